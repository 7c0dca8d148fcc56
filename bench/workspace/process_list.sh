#!/usr/bin/env bash
# process_list with 500 sleeping processes in a session sandbox against
# sage's way (Node reading /proc through bash) and `ps` in bash, in one run:
# wall and CPU medians side by side (bench/workspace/process_bench.cc).
# Issue 15's target: process_list <= 20 ms. Run as root for the CPU column
# (a cgroup of the run's own). Not run by CI.
# Usage: bench/workspace/process_list.sh   (RUNS=N BUILD=dir to change)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
[ -x "$build/bench/workspace/bench_process" ] || cmake --build "$build" --target bench_process sepp
exec "$build/bench/workspace/bench_process" "$build/sepp" "$root/bench/workspace/sage_process_list.mjs"
