#!/usr/bin/env bash
# The issue-10 table for the interactive UIs, sepp side by side with pi,
# Claude Code and Codex in one run, all against the same scripted fake
# provider on one pty harness (bench/tui/peers.py says what each measure is).
# Prints a Markdown table (medians, ratio of the best peer to sepp, the
# targets and whether sepp meets them) for bench/tui/RESULTS.md.
# pi comes from tests/rpc/node (scripts/setup, npm ci); Claude Code and Codex
# are installed from npm at the versions pinned here into $SEPP_BENCH_CACHE
# (default bench/.peers). CI does not run this.
# Usage: bench/tui/peers.sh [--no-peers]   (RUNS=N rounds, default 3;
# PEERS="pi codex" to pick peers; KEEP=1 keeps each run's terminal output in
# the cache folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
cache=${SEPP_BENCH_CACHE:-$root/bench/.peers}
claude_version=2.1.332
codex_version=0.171.0
peers=1
[ "${1:-}" = "--no-peers" ] && peers=0
[ -x "$build/sepp" ] && [ -x "$build/fake-provider" ] || { echo "build first: scripts/setup" >&2; exit 1; }
installed() { node -p "require('$cache/node_modules/$1/package.json').version" 2>/dev/null || true; }
if ((peers)); then
  [ -x "$root/tests/rpc/node/node_modules/.bin/pi" ] || (cd "$root/tests/rpc/node" && npm ci --silent)
  if [ "$(installed @anthropic-ai/claude-code)" != "$claude_version" ] || [ "$(installed @openai/codex)" != "$codex_version" ]; then
    mkdir -p "$cache"
    npm install --silent --no-save --prefix "$cache" "@anthropic-ai/claude-code@$claude_version" "@openai/codex@$codex_version"
  fi
fi
exec python3 "$root/bench/tui/peers.py" "$root" "$build" "$cache" "$peers" "${RUNS:-3}"
