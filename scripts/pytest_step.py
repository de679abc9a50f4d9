"""Run pytest as a step of ``make test``; collecting no test is a failure, not a pass.

    python scripts/pytest_step.py "the unit tests" -- tests -q -m "not slow"
    python scripts/pytest_step.py "the notebooks" --env LRLIB_QUICK=1 --shards 2 -- --nbval-lax 'notebooks/[0-9][0-9]_*.ipynb'

Arguments after ``--`` go to pytest; those with a glob character are expanded here, and a
pattern that matches no file stops the step with a message (pytest would say "file not
found"). pytest's exit code 5 (no test collected) becomes 1, with a message naming WHAT.
``--shards N`` deals the file arguments round-robin to N pytest processes run at once (the
notebooks are single-threaded; a 2-core machine runs two), prints each one's output when it
ends, and fails if any shard fails or collects nothing.
"""

from __future__ import annotations

import glob
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def expand(args: list[str]) -> list[str]:
    out = []
    for a in args:
        if not a.startswith("-") and any(c in a for c in "*?["):
            hits = sorted(glob.glob(a))
            if not hits:
                raise SystemExit(f"pytest_step: no file matches {a!r}")
            out += hits
        else:
            out.append(a)
    return out


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv or argv.index("--") < 1:
        raise SystemExit("usage: pytest_step.py WHAT [--env NAME=VALUE ...] -- PYTEST ARGS...")
    i = argv.index("--")
    head, args = argv[:i], expand(argv[i + 1:])
    what, env, shards = head[0], dict(os.environ), 1
    rest = head[1:]
    while rest:
        if rest[0] == "--shards" and len(rest) >= 2 and rest[1].isdigit() and int(rest[1]) >= 1:
            shards = int(rest[1])
        elif rest[0] != "--env" or len(rest) < 2 or "=" not in rest[1]:
            raise SystemExit(f"pytest_step: unexpected {rest[0]!r} (use --env NAME=VALUE or --shards N)")
        else:
            k, v = rest[1].split("=", 1)
            env[k] = v
        rest = rest[2:]
    pytest = Path(sys.executable).with_name("pytest")
    files = [a for a in args if not a.startswith("-") and Path(a).exists()]
    if shards == 1 or len(files) < 2:
        return _verdict(what, subprocess.call([str(pytest), *args], env=env))
    others = [a for a in args if a not in files]
    groups = [files[i::shards] for i in range(min(shards, len(files)))]
    with tempfile.TemporaryDirectory() as tmp:
        logs = [Path(tmp) / f"shard{i}.log" for i in range(len(groups))]
        procs = [subprocess.Popen([str(pytest), *others, *g], env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
                 for g, log in zip(groups, logs)]
        rcs = [p.wait() for p in procs]
        for g, log, rc in zip(groups, logs, rcs):
            print(f"---- pytest on {len(g)} file(s): {' '.join(g)} (exit {rc})")
            print(log.read_text(), end="", flush=True)
    bad = [rc for rc in rcs if rc != 0]
    return _verdict(what, 5 if 5 in bad else (bad[0] if bad else 0))


def _verdict(what: str, rc: int) -> int:
    if rc == 5:
        print(f"make test: pytest collected no tests for {what} (exit 5): they are missing.", file=sys.stderr)
        return 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
