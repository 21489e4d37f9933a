"""A fake `gh` (the GitHub CLI) for the tests: run as `gh` from a folder put first on the PATH
(`support.ghkit.FakeGh` writes the launcher). It never reaches the network.

It answers `gh issue list`, `gh issue view`, `gh pr list` and `gh pr view` from recorded
`--json` output (`scenario.json` beside the calls log: key -> records, the key made of the
command, the repository and the label or number: `issue list acme/web ready`, `issue view
acme/web 18`, `pr list acme/web`), printing only the fields asked for, as gh does, and
refusing a field gh does not know (gh's "Unknown JSON field"). The scenario's `mode` makes it
report logged out (gh's exit 4 and its words), report a rate limit, fail, or wait for a file
(`gate`) before answering; `raw` prints a key's output as given (what gh would never print). `--web` prints what gh prints and opens nothing.

Every call is logged (one JSON list of arguments a line, in `calls.jsonl`; its pid in `pids`); any command that
is not a read (`issue edit`, `pr merge`, `api -X POST` …) is refused with exit 97, so a test can
assert that nothing was written.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HERE = Path(os.environ["ATK_FAKE_GH_DIR"])
#: the fields `gh issue list/view --json` and `gh pr list/view --json` accept (gh's api/query_builder.go)
ISSUE_FIELDS = {
    "assignees", "author", "body", "closed", "comments", "createdAt", "closedAt", "id", "labels", "milestone",
    "number", "projectCards", "projectItems", "reactionGroups", "state", "stateReason", "title", "updatedAt", "url", "isPinned",
}  # fmt: skip
PR_FIELDS = ISSUE_FIELDS - {"isPinned", "stateReason"} | {
    "additions", "baseRefName", "changedFiles", "commits", "deletions", "files", "headRefName", "headRepository",
    "headRepositoryOwner", "isCrossRepository", "isDraft", "latestReviews", "maintainerCanModify", "mergeable",
    "mergeCommit", "mergedAt", "mergedBy", "mergeStateStatus", "potentialMergeCommit", "reviewDecision",
    "reviewRequests", "reviews", "statusCheckRollup", "closingIssuesReferences",
}  # fmt: skip
LOGGED_OUT = (
    "To get started with GitHub CLI, please run:  gh auth login\n"
    "Alternatively, populate the GH_TOKEN environment variable with a GitHub API authentication token.\n"
)
RATE_LIMITED = "GraphQL: API rate limit exceeded for user ID 1234567. (graphql)\n"


def option(args: list[str], *names: str) -> str | None:
    for i, a in enumerate(args):
        for n in names:
            if a == n and i + 1 < len(args):
                return args[i + 1]
            if a.startswith(n + "="):
                return a[len(n) + 1 :]
    return None


def positional(args: list[str]) -> list[str]:
    out, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a.startswith("-"):
            skip = "=" not in a and a in ("--repo", "-R", "--label", "-l", "--json", "--state", "-s", "--limit", "-L", "--jq", "-q")
            continue
        out.append(a)
    return out


def trim(record: object, fields: list[str]) -> object:
    return {f: record.get(f) for f in fields} if isinstance(record, dict) else record


def main(args: list[str]) -> int:
    with open(HERE / "calls.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(args) + "\n")
    with open(HERE / "pids", "a", encoding="utf-8") as fh:
        fh.write(f"{os.getpid()}\n")
    if args[:1] == ["--version"]:
        print("gh version 2.62.0 (2024-11-14)\nhttps://github.com/cli/cli/releases/tag/v2.62.0")
        return 0
    words = positional(args)
    if words[:2] not in (["issue", "list"], ["issue", "view"], ["pr", "list"], ["pr", "view"]):
        sys.stderr.write(f"fake gh: refused {' '.join(args)} (a test's gh only reads)\n")
        return 97
    scenario = json.loads((HERE / "scenario.json").read_text(encoding="utf-8"))
    gate = scenario.get("gate")
    if gate:  # hold the answer until the test lets it go (bounded: the caller's time limit ends it)
        deadline = time.monotonic() + 60
        while not Path(gate).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
    mode = scenario.get("mode", "ok")
    if mode == "logged-out":
        sys.stderr.write(LOGGED_OUT)
        return 4
    if mode == "rate-limit":
        sys.stderr.write(RATE_LIMITED)
        return 1
    if mode == "fail":
        sys.stderr.write(scenario.get("message", "HTTP 502: Bad Gateway (https://api.github.com/graphql)") + "\n")
        return 1
    repo = option(args, "--repo", "-R") or "(no repo)"
    if words[1] == "view":
        number = words[2] if len(words) > 2 else "?"
        key = f"{words[0]} view {repo} {number}"
        if "--web" in args:
            kind = "pull" if words[0] == "pr" else "issues"
            sys.stderr.write(f"Opening https://github.com/{repo}/{kind}/{number} in your browser.\n")
            return 0
    else:
        label = option(args, "--label", "-l")
        key = f"{words[0]} list {repo}" + (f" {label}" if label else "")
    raw = scenario.get("raw", {})  # printed as it is: what gh would never print (a test of the parser)
    if key in raw:
        sys.stdout.write(raw[key])
        return 0
    failures = scenario.get("failures", {})
    if key in failures:
        sys.stderr.write(failures[key] + "\n")
        return 1
    fields = (option(args, "--json") or "").split(",")
    known = PR_FIELDS if words[0] == "pr" else ISSUE_FIELDS
    unknown = [f for f in fields if f and f not in known]
    if not fields or unknown:
        sys.stderr.write(f"Unknown JSON field: {unknown[0] if unknown else '(none)'}\n")
        return 1
    responses = scenario.get("responses", {})
    if words[1] == "view":
        if key not in responses:
            sys.stderr.write(f"GraphQL: Could not resolve to an issue or pull request with the number of {number}. (repository.issue)\n")
            return 1
        print(json.dumps(trim(responses[key], fields), ensure_ascii=False))
        return 0
    print(json.dumps([trim(r, fields) for r in responses.get(key, [])], ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
