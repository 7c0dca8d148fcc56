#!/usr/bin/env bash
# Instructions per /v1/health request in the sepp serve process (callgrind:
# load-independent), over 50 keep-alive connections: the run with N2
# requests minus the run with N1, divided by N2 - N1 (start-up and shutdown
# cancel out). SEPP=path/to/sepp to measure another build (e.g. main's).
# Usage: bench/serve/health_callgrind.sh [N1 N2]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
sepp=${SEPP:-$root/build/sepp}
n1=${1:-2000}
n2=${2:-22000}
command -v valgrind >/dev/null || { echo "install valgrind first: apt-get install valgrind" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

run() {  # $1 = requests; prints the process's instruction count
  local n=$1 port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  mkdir -p "$work/home"
  SEPP_HOME="$work/home" HOME="$work/home" ANTHROPIC_API_KEY=bench-not-a-key ANTHROPIC_BASE_URL=http://127.0.0.1:9 \
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.$n" --trace-children=no \
    "$sepp" serve --no-token --port "$port" >"$work/out.$n" 2>"$work/err.$n" &
  local pid=$!
  python3 "$root/bench/serve/health_load.py" "$port" "$n" 50
  kill -TERM "$pid"
  wait "$pid" || true
  grep -m1 '^summary:' "$work/cg.$n" | awk '{print $2}'
}

a=$(run "$n1")
b=$(run "$n2")
echo "instructions: $n1 requests $a, $n2 requests $b"
echo "per request: $(( (b - a) / (n2 - n1) ))"
