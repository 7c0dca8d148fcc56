#!/usr/bin/env python3
"""The per-call cost of the session sandbox in CPU time and syscalls, which
the machine's load does not move (wall time it does): for each build and
case, bench_session_sandbox runs the case for exactly N1 and then N2
iterations (SEPP_BENCH_ITERATIONS) under `perf stat -e task-clock` (every
process and thread of the run: the bench, the session sandbox, its worker,
bash), and the cost of one call is

  (task-clock(N2) - task-clock(N1)) / (N2 - N1)

so the start of the bench and of the worker cancel out. With STRACE=1 the
syscalls per call are counted the same way (`strace -f -c`). Rounds
interleave the builds; the medians are printed, and the overheads

  bash in the session sandbox - bash with the sandbox off
  read through the worker     - read in process with one guard

  bench/sandbox/percall.py BUILD_DIR [BUILD_DIR...]   (ROUNDS=5 N1=50 N2=550 STRACE=0)
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

CASES = ("BM_BashSandboxOff", "BM_BashSessionSandbox", "BM_ReadInProcessOneGuard", "BM_ReadViaWorker")
N1 = int(os.environ.get("N1", "50"))
N2 = int(os.environ.get("N2", "550"))


def bench(build):
    return os.path.join(build, "bench/sandbox/bench_session_sandbox")


def env_with(n):
    e = dict(os.environ)
    e["SEPP_BENCH_ITERATIONS"] = str(n)
    return e


def task_clock_ms(build, case, n):
    with tempfile.NamedTemporaryFile("r", suffix=".perf") as f:
        subprocess.run(["perf", "stat", "-x,", "-e", "task-clock", "-o", f.name, bench(build),
                        f"--benchmark_filter=^{case}/"], env=env_with(n), check=True,
                       stdout=subprocess.DEVNULL)
        for line in f.read().splitlines():
            if line.endswith("task-clock") or ",task-clock," in line:
                return float(line.split(",")[0])
    raise RuntimeError("no task-clock from perf stat")


def syscalls(build, case, n):
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as f:
        subprocess.run(["strace", "-f", "-c", "-o", f.name, bench(build),
                        f"--benchmark_filter=^{case}/"], env=env_with(n), check=True,
                       stdout=subprocess.DEVNULL)
        m = re.search(r"^-+.*\n\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+\d*\s*total", f.read(), re.M)
        return int(m.group(1)) if m else float("nan")


if len(sys.argv) < 2:
    sys.exit(__doc__)
builds = sys.argv[1:]
cpu = {(b, c): [] for b in builds for c in CASES}
sys_count = {(b, c): [] for b in builds for c in CASES}
for _ in range(int(os.environ.get("ROUNDS", "5"))):
    for b in builds:
        for c in CASES:
            lo, hi = task_clock_ms(b, c, N1), task_clock_ms(b, c, N2)
            cpu[(b, c)].append((hi - lo) * 1000 / (N2 - N1))
            if os.environ.get("STRACE") == "1":
                lo, hi = syscalls(b, c, N1), syscalls(b, c, N2)
                sys_count[(b, c)].append((hi - lo) / (N2 - N1))
med = {k: statistics.median(v) for k, v in cpu.items()}
print(f"load average {os.getloadavg()[0]:.1f} at the end; N1={N1} N2={N2}; medians of "
      f"{len(cpu[(builds[0], CASES[0])])} rounds; CPU us per call (all processes)")
for b in builds:
    print(f"\n{b}")
    for c in CASES:
        line = f"  {c:26} {med[(b, c)]:8.1f} us"
        if sys_count[(b, c)]:
            line += f"  {statistics.median(sys_count[(b, c)]):7.1f} syscalls"
        print(line)
    bash = med[(b, 'BM_BashSessionSandbox')] - med[(b, 'BM_BashSandboxOff')]
    read = med[(b, 'BM_ReadViaWorker')] - med[(b, 'BM_ReadInProcessOneGuard')]
    print(f"  bash session - off: {bash:+.1f} us   read worker - in process: {read:+.1f} us")
