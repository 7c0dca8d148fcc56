#!/usr/bin/env python3
"""Interleaved start-up comparison of sepp binaries: runs `BIN sandbox -- CMD`
for each binary in turn, N rounds, so that the machine's load hits all of them
alike (hyperfine runs one command's batch after another, which on a shared
2-core machine can favour whichever batch ran in a quiet minute).

  bench/sandbox/compare.py OLD_SEPP NEW_SEPP [...]   (N=300, CMD="true")
Prints min / p10 / median / mean wall time in ms (includes Python's spawn).
"""
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

bins = [os.path.realpath(b) for b in sys.argv[1:]]
if not bins:
    sys.exit(__doc__)
cmd = shlex.split(os.environ.get("CMD", "true"))
rounds = int(os.environ.get("N", "300"))
times = {b: [] for b in bins}
with tempfile.TemporaryDirectory() as ws:
    os.chdir(ws)
    for _ in range(rounds):
        for b in bins:
            t = time.perf_counter()
            subprocess.run([b, "sandbox", "--", *cmd], check=True, stdout=subprocess.DEVNULL)
            times[b].append((time.perf_counter() - t) * 1000)
for b in bins:
    v = sorted(times[b])
    print(f"{b}: min {v[0]:.2f}  p10 {v[len(v) // 10]:.2f}  median {statistics.median(v):.2f}"
          f"  mean {statistics.mean(v):.2f} ms")
