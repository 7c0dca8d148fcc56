#!/usr/bin/env python3
"""The per-call cost of the session sandbox in CPU time and syscalls, which
the machine's load does not move (wall time it does): for each build and
case, bench_session_sandbox runs the case for exactly N1 and then N2
iterations (SEPP_BENCH_ITERATIONS) under `perf stat -e task-clock` (every
process and thread of the run: the bench, the session sandbox, its worker,
bash), and the cost of one call is

  (task-clock(N2) - task-clock(N1)) / (N2 - N1)

so the start of the bench and of the worker cancel out. With STRACE=1 the
syscalls per call are counted the same way (`strace -f -c`). With WALL=1
each case also runs once calibrated (--benchmark_min_time=MIN_TIME) for
its wall time per call; on a loaded machine CHRT=1 runs every bench under
SCHED_FIFO (`chrt -f 10`, root only), which takes the CPUs from the other
work for the run and so gives close to a quiet machine's wall times. Rounds
interleave the builds; the medians are printed, and the overheads

  bash in the session sandbox - bash with the sandbox off
  read through the worker     - read in process with one guard

  bench/sandbox/percall.py BUILD_DIR [BUILD_DIR...]
      (ROUNDS=5 N1=50 N2=550 STRACE=0 WALL=0 MIN_TIME=0.5 CHRT=0)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import json

CASES = ("BM_BashSandboxOff", "BM_BashSessionSandbox", "BM_ReadInProcessOneGuard", "BM_ReadViaWorker")
N1 = int(os.environ.get("N1", "50"))
N2 = int(os.environ.get("N2", "550"))


PRIO = ["chrt", "-f", "10"] if os.environ.get("CHRT") == "1" else []


def bench(build):
    return os.path.join(build, "bench/sandbox/bench_session_sandbox")


def wall_us(build, case):
    out = subprocess.run(PRIO + [bench(build), f"--benchmark_filter=^{case}/",
                                 "--benchmark_format=json",
                                 "--benchmark_min_time=" + os.environ.get("MIN_TIME", "0.5")],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["benchmarks"][0]["real_time"]


def env_with(n):
    e = dict(os.environ)
    e["SEPP_BENCH_ITERATIONS"] = str(n)
    return e


def task_clock_ms(build, case, n):
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as f:
        subprocess.run(PRIO + ["perf", "stat", "-x,", "-e", "task-clock", "-o", f.name, bench(build),
                        f"--benchmark_filter=^{case}/"], env=env_with(n), check=True,
                       stdout=subprocess.DEVNULL)
        for line in f.read().splitlines():
            if line.endswith("task-clock") or ",task-clock," in line:
                return float(line.split(",")[0])
    raise RuntimeError("no task-clock from perf stat")


def syscalls(build, case, n):
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as f:
        subprocess.run(PRIO + ["strace", "-f", "-c", "-o", f.name, bench(build),
                        f"--benchmark_filter=^{case}/"], env=env_with(n), check=True,
                       stdout=subprocess.DEVNULL)
        m = re.search(r"^-+.*\n\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+\d*\s*total", f.read(), re.M)
        return int(m.group(1)) if m else float("nan")


if len(sys.argv) < 2:
    sys.exit(__doc__)
builds = sys.argv[1:]
cpu = {(b, c): [] for b in builds for c in CASES}
sys_count = {(b, c): [] for b in builds for c in CASES}
wall = {(b, c): [] for b in builds for c in CASES}
for _ in range(int(os.environ.get("ROUNDS", "5"))):
    for b in builds:
        for c in CASES:
            lo, hi = task_clock_ms(b, c, N1), task_clock_ms(b, c, N2)
            cpu[(b, c)].append((hi - lo) * 1000 / (N2 - N1))
            if os.environ.get("STRACE") == "1":
                lo, hi = syscalls(b, c, N1), syscalls(b, c, N2)
                sys_count[(b, c)].append((hi - lo) / (N2 - N1))
            if os.environ.get("WALL") == "1":
                wall[(b, c)].append(wall_us(b, c))
med = {k: statistics.median(v) for k, v in cpu.items()}
print(f"load average {os.getloadavg()[0]:.1f} at the end; N1={N1} N2={N2}; medians of "
      f"{len(cpu[(builds[0], CASES[0])])} rounds; CPU us per call (all processes)")
for b in builds:
    print(f"\n{b}")
    for c in CASES:
        line = f"  {c:26} {med[(b, c)]:8.1f} us"
        if sys_count[(b, c)]:
            line += f"  {statistics.median(sys_count[(b, c)]):7.1f} syscalls"
        if wall[(b, c)]:
            line += f"  {statistics.median(wall[(b, c)]):8.1f} us wall"
        print(line)
    bash = med[(b, 'BM_BashSessionSandbox')] - med[(b, 'BM_BashSandboxOff')]
    read = med[(b, 'BM_ReadViaWorker')] - med[(b, 'BM_ReadInProcessOneGuard')]
    print(f"  CPU:  bash session - off: {bash:+.1f} us   read worker - in process: {read:+.1f} us")
    if wall[(b, CASES[0])]:
        w = {c: statistics.median(wall[(b, c)]) for c in CASES}
        print(f"  wall: bash session - off: "
              f"{w['BM_BashSessionSandbox'] - w['BM_BashSandboxOff']:+.1f} us   "
              f"read worker - in process: "
              f"{w['BM_ReadViaWorker'] - w['BM_ReadInProcessOneGuard']:+.1f} us")
