#!/usr/bin/env python3
"""Side by side in one run: several labelled commands in turn (A B C A B C ...), each timed by its wall
clock, the table of best and worst per label with the ratio of medians to the first label.

    python3 scripts/bench/alternate.py --reps 3 --keys matrix_s,engine \\
        base='/tmp/base route --graph NY.gr.xz --matrix o.txt d.txt --json' \\
        new='target/release/urbanflow route --graph NY.gr.xz --matrix o.txt d.txt --json'

Each command runs under `bash -c`; where its last line of stdout is a JSON object, the `--keys` named
are kept beside the wall time. `--out F.jsonl` writes every run as a JSON line (label, rep, wall_s,
the keys). A failing command stops the run with its status (exit 1). This one harness replaces the
per-change scripts kept under scripts/bench/lab/ (the records of earlier runs docs/benchmarks.md cites).
"""
import argparse
import json
import statistics
import subprocess
import sys
import time


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=3, help="rounds (each runs every command once)")
    p.add_argument("--keys", default="", help="comma-separated keys of the commands' JSON to keep")
    p.add_argument("--out", help="write every run as a JSON line here")
    p.add_argument("commands", nargs="+", metavar="LABEL=COMMAND")
    a = p.parse_args()
    runs = []
    for spec in a.commands:
        label, sep, command = spec.partition("=")
        if not sep or not label or not command:
            p.error(f"{spec!r}: expected LABEL=COMMAND")
        runs.append((label, command))
    keys = [k for k in a.keys.split(",") if k]
    rows = []
    for rep in range(1, a.reps + 1):
        for label, command in runs:
            t = time.perf_counter()
            r = subprocess.run(["bash", "-c", command], capture_output=True, text=True)
            wall = time.perf_counter() - t
            if r.returncode != 0:
                print(f"{label} (round {rep}) failed with status {r.returncode}:\n{r.stderr}", file=sys.stderr)
                return 1
            row = {"label": label, "rep": rep, "wall_s": wall}
            last = r.stdout.strip().splitlines()[-1:] or [""]
            try:
                out = json.loads(last[0])
            except json.JSONDecodeError:
                out = None
            if isinstance(out, dict):
                row.update({k: out.get(k) for k in keys})
            rows.append(row)
            print(json.dumps(row), file=sys.stderr)
    if a.out:
        with open(a.out, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    first = statistics.median(r["wall_s"] for r in rows if r["label"] == runs[0][0])
    print(f"| command | wall (best–worst of {a.reps}) | median / {runs[0][0]}'s |" + "".join(f" {k} |" for k in keys))
    print("|---|---:|---:|" + "---|" * len(keys))
    for label, _ in runs:
        mine = [r for r in rows if r["label"] == label]
        walls = [r["wall_s"] for r in mine]
        cells = "".join(f" {', '.join(sorted({str(r.get(k)) for r in mine}))} |" for k in keys)
        print(f"| {label} | {min(walls):.3f}–{max(walls):.3f} s | {statistics.median(walls) / first:.2f} |{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
