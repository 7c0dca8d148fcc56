#!/usr/bin/env python3
"""The session sandbox's set-up against one confined launch, for a base build
and a new build in one run: each round runs the set-up cases of both builds'
bench_session_sandbox in turn (interleaved, so the machine's load hits both
alike), then prints the medians of wall time and of cpu_all_us (the CPU of
every process of the case, kernel time included) and the ratios

  new set-up / base launch   (against today's single launch)
  new set-up / new launch    (against the launch of the same build)
  base set-up / base launch

  bench/sandbox/setup_ratio.py BASE_BUILD_DIR NEW_BUILD_DIR   (ROUNDS=5, MIN_TIME=1)
"""
import json
import os
import statistics
import subprocess
import sys

CASES = ("BM_SetUpOneOffLaunch", "BM_SetUpSessionSandbox")


def run(build):
    exe = os.path.join(build, "bench/sandbox/bench_session_sandbox")
    out = subprocess.run(
        [exe, "--benchmark_filter=SetUp", "--benchmark_format=json",
         "--benchmark_min_time=" + os.environ.get("MIN_TIME", "1")],
        check=True, capture_output=True, text=True).stdout
    rows = {}
    for b in json.loads(out)["benchmarks"]:
        name = b["name"].split("/")[0]
        if name in CASES:
            rows[name] = (b["real_time"], b.get("cpu_all_us", float("nan")))
    return rows


if len(sys.argv) != 3:
    sys.exit(__doc__)
builds = {"base": sys.argv[1], "new": sys.argv[2]}
got = {k: {c: ([], []) for c in CASES} for k in builds}
for _ in range(int(os.environ.get("ROUNDS", "5"))):
    for k, b in builds.items():
        for c, (wall, cpu) in run(b).items():
            got[k][c][0].append(wall)
            got[k][c][1].append(cpu)
med = {k: {c: (statistics.median(w), statistics.median(u)) for c, (w, u) in v.items()}
       for k, v in got.items()}
print(f"load average {os.getloadavg()[0]:.1f} at the end; medians of "
      f"{len(got['new'][CASES[0]][0])} rounds")
print(f"{'case':26} {'base wall':>10} {'base cpu':>10} {'new wall':>10} {'new cpu':>10}  (us)")
for c in CASES:
    print(f"{c:26} {med['base'][c][0]:10.0f} {med['base'][c][1]:10.0f} "
          f"{med['new'][c][0]:10.0f} {med['new'][c][1]:10.0f}")
launch, setup = CASES
for label, s, l in (("new set-up / base launch", "new", "base"),
                    ("new set-up / new launch", "new", "new"),
                    ("base set-up / base launch", "base", "base")):
    print(f"{label:28} wall {med[s][setup][0] / med[l][launch][0]:.2f}x  "
          f"cpu {med[s][setup][1] / med[l][launch][1]:.2f}x")
