#!/usr/bin/env python3
"""Folds a bench run directory into one results.json before it is committed.

Usage: scripts/compact-bench-run.py bench/results/<run> [...]

Every jog-bench/1 result file of the run (in its subdirectories too) becomes
one entry of results.json's "results", tagged with "source", the file it came
from; the raw text files (.info, .txt, .csv, .log) go into its "files" map,
by path. `jog bench report` and `jog bench compare` read results.json like
any result file (they ignore "source" and "files"). Notes (.md), charts
(.svg), profiles (.pprof, .pb.gz), other JSON (qos.json, cp.json) and any
file the docs name stay as they are. The folded files are deleted (with
`git rm` when tracked); git history keeps them:
`git show <commit>:bench/results/<run>/<file>`.
"""
import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TEXT = (".info", ".txt", ".csv", ".log")
DOCS = ["README.md", "docs", "bench"]


def cited():
    """The bench/results paths the docs and bench scripts name."""
    names = set()
    for top in DOCS:
        path = os.path.join(ROOT, top)
        paths = [path] if os.path.isfile(path) else [
            os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs
            if f.endswith((".md", ".sh")) and "/results/" not in d + "/"]
        for p in paths:
            with open(p, encoding="utf-8") as f:
                names.update(m.rstrip(".") for m in re.findall(r"bench/results/[A-Za-z0-9._/-]*", f.read()))
    return names


def bench_result(path):
    """The parsed file when it is a jog-bench/1 result file, else None."""
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except (ValueError, UnicodeDecodeError):
        return None
    return d if isinstance(d, dict) and d.get("format") == "jog-bench/1" else None


def compact(run, keep):
    out = os.path.join(run, "results.json")
    if os.path.exists(out):
        sys.exit(f"{out} exists: {run} is compacted already")
    results, files, folded = [], {}, []
    for d, dirs, fs in sorted(os.walk(run)):
        dirs.sort()
        for name in sorted(fs):
            path = os.path.join(d, name)
            rel = os.path.relpath(path, run)
            if os.path.relpath(path, ROOT) in keep:
                continue
            if name.endswith(".json"):
                r = bench_result(path)
                if r is None:
                    continue
                for res in r["results"]:
                    res["source"] = rel
                    results.append(res)
            elif name.endswith(TEXT):
                with open(path, encoding="utf-8") as f:
                    files[rel] = f.read()
            else:
                continue
            folded.append(path)
    if not folded:
        return
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"format": "jog-bench/1", "results": results, "files": files}, f, indent=1)
        f.write("\n")
    tracked = subprocess.run(["git", "ls-files", "--", *folded], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    if tracked:
        subprocess.run(["git", "rm", "-q", "--", *tracked], cwd=ROOT, check=True)
    for p in folded:
        if os.path.exists(p):
            os.remove(p)
    for d, _, _ in sorted(os.walk(run), reverse=True):
        if not os.listdir(d):
            os.rmdir(d)
    print(f"{out}: {len(results)} results, {len(files)} text files, from {len(folded)} files")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    keep = cited()
    for run in sys.argv[1:]:
        compact(os.path.abspath(run), keep)


if __name__ == "__main__":
    main()
