"""Reading the store: the queue (`reads`, loaded in named steps by `loading`), decisions from the
files (`fromfiles`), the judged listing and its cache (`listing`), a read's look at the remote
(`freshen`), the dashboard's last view (`viewstore`), the store's stamp (`watch`), `atk wi
process-loop` (`loop`)."""
