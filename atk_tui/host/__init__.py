"""What comes from the machine: the config file, the environment, child processes."""
