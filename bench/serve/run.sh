#!/usr/bin/env bash
# sepp serve against sandbox-agent 0.4.2 in one run (bench/serve/serve_bench.mjs):
# cold start, idle RSS, /v1/health throughput (wrk), ACP prompt round trip.
# Needs the build, tests/acp/node installed (scripts/setup) and wrk
# (apt-get install wrk). RUNS, SECS, PROMPTS to change the sizes.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
command -v wrk >/dev/null || { echo "install wrk first: apt-get install wrk" >&2; exit 1; }
BUILD=${BUILD:-$root/build} exec node "$root/bench/serve/serve_bench.mjs"
