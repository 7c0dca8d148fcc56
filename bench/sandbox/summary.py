#!/usr/bin/env python3
"""Mean and min of each command in a hyperfine JSON export (from
bench/sandbox/run.sh with JSON=FILE), in ms to the microsecond, with each
sandbox's cost over plain and its ratio to bubblewrap.

  bench/sandbox/summary.py FILE.json
"""
import json
import sys

if len(sys.argv) != 2:
    sys.exit(__doc__)
rows = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
for name, r in rows.items():
    mean, low = r["mean"] * 1000, r["min"] * 1000
    line = f"{name:32} mean {mean:6.3f}  min {low:6.3f} ms"
    kind = name.split(" ")[-1]  # "true" or "echo"
    plain = rows.get("plain true" if kind == "true" else "plain bash echo")
    bwrap = rows.get("bwrap true" if kind == "true" else "bwrap bash echo")
    if plain and r is not plain:
        line += f"  over plain {mean - plain['mean'] * 1000:+.3f} / {low - plain['min'] * 1000:+.3f}"
    if bwrap and r is not bwrap and not name.startswith("plain"):
        line += f"  x bwrap {r['mean'] / bwrap['mean']:.2f} / {r['min'] / bwrap['min']:.2f}"
    print(line)
