#!/usr/bin/env bash
# The issue-16 numbers in one command: the per-call overheads (CPU, syscalls
# and wall per call, bench/sandbox/percall.py) and the session sandbox's
# set-up against one confined launch (bench/sandbox/setup_ratio.py), for a
# base build (main 0a4e0b1's, the fixed baseline) and this tree's build.
#
#   bench/sandbox/issue16.sh BASE_BUILD_DIR [NEW_BUILD_DIR=build]
#
# Make the base build apart, e.g.
#   mkdir -p build-base/src && git archive 0a4e0b1 | tar -x -C build-base/src
#   cp bench/sandbox/session_sandbox_bench.cc build-base/src/bench/sandbox/   # SEPP_BENCH_ITERATIONS
#   cmake -S build-base/src -B build-base/build -G Ninja -DCMAKE_BUILD_TYPE=Release
#   cmake --build build-base/build --target sepp bench_session_sandbox
#   bench/sandbox/issue16.sh build-base/build
# On a quiet machine run it as is; on a loaded one as root with CHRT=1 (every
# bench under SCHED_FIFO, which takes the CPUs from the other work while it
# runs). ROUNDS (default 5) applies to both parts. SPLIT=1 adds where the CPU
# of one launch and of one set-up goes, part by part, for both builds
# (bench/sandbox/setup_split.py: perf record, needs root).
set -euo pipefail
cd "$(dirname "$0")/../.."
base=${1:?usage: bench/sandbox/issue16.sh BASE_BUILD_DIR [NEW_BUILD_DIR]}
new=${2:-build}
prio=()
[ "${CHRT:-0}" = 1 ] && prio=(chrt -f 10)
echo "== per call (load $(cut -d' ' -f1-3 /proc/loadavg))"
STRACE=1 WALL=1 "${prio[@]}" python3 bench/sandbox/percall.py "$base" "$new"
echo
echo "== set-up (load $(cut -d' ' -f1-3 /proc/loadavg))"
MIN_TIME=${MIN_TIME:-0.5} "${prio[@]}" python3 bench/sandbox/setup_ratio.py "$base" "$new"
if [ "${SPLIT:-0}" = 1 ]; then
  for b in "$base" "$new"; do
    echo
    echo "== where the CPU goes: $b (load $(cut -d' ' -f1-3 /proc/loadavg))"
    "${prio[@]}" python3 bench/sandbox/setup_split.py "$b"
  done
fi
