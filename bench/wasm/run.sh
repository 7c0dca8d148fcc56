#!/usr/bin/env bash
# Times sepp's wasm engine against wabt's wasm-interp and native code on the
# same C sources, in one run:
#   fib(35)              bench_fib     (calls, integer arithmetic)
#   SHA-256 over 10 MiB  bench_sha256  (loads/stores, rotates, loops)
# Usage: bench/wasm/run.sh [RUNNER]
#   RUNNER: build/bench/wasm/wasm_bench_run (default) or "build/sepp wasm"
#   (anything that accepts `run FILE.wasm --invoke NAME`).
# Needs clang (wasm32 target), wasm-ld and wabt. Reports user+sys CPU seconds
# (best of RUNS, default 3), which is stable on a shared machine, and ratios.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runner=${1:-$here/../../build-wasm/bench/wasm/wasm_bench_run}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for p in fib sha256; do
  clang --target=wasm32 -O2 -nostdlib -Wl,--no-entry -Wl,--export-dynamic -o "$work/$p.wasm" "$here/$p.c"
  clang -O2 -DNATIVE -o "$work/$p.native" "$here/$p.c"
done

# best CMD... -> prints the best user+sys seconds over $runs runs
best() {
  local best=999999 out t
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$work/time" -f "%U %S" "$@" > "$work/out" 2>/dev/null
    t=$(tail -1 "$work/time" | awk '{print $1 + $2}')
    best=$(awk -v a="$best" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
  done
  echo "$best"
}

printf "%-8s %10s %12s %10s %14s %12s\n" bench native wasm-interp sepp "sepp/interp" "sepp/native"
for spec in "fib bench_fib" "sha256 bench_sha256"; do
  set -- $spec
  p=$1 fn=$2
  n=$(best "$work/$p.native")
  w=$(best wasm-interp "$work/$p.wasm" --run-all-exports)
  s=$(best $runner run "$work/$p.wasm" --invoke "$fn")
  grep -q "i32:" "$work/out" || { echo "sepp run of $p failed: $(cat "$work/out")" >&2; exit 1; }
  printf "%-8s %9.3fs %11.3fs %9.3fs %14.3f %11.1fx\n" "$p" "$n" "$w" "$s" \
    "$(awk -v a="$s" -v b="$w" 'BEGIN { print a / b }')" "$(awk -v a="$s" -v b="$n" 'BEGIN { print (b > 0) ? a / b : 0 }')"
done
