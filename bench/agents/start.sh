#!/bin/bash
# The start of an external agent through sepp serve, confined and not: the
# time of its initialize (sepp starts the adapter: the sandbox's set-up and
# node's start) and of its session/new (the adapter starts Claude Code),
# claude-agent-acp from tests/agents/node against the fake provider. One
# run per mode, printed; CI does not run this.
# Usage: bench/agents/start.sh [on|off]...   (default: on off; BUILD=dir)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${BUILD:-$ROOT/build}
run() {
R=$(mktemp -d); mkdir -p $R/home $R/sepp $R/ws
$B/fake-provider --port 0 > $R/fp.out & FP=$!
sleep 0.3; F=$(head -1 $R/fp.out | sed 's/listening on //')
PORT=${F##*:}
printf '[[serve.agents]]\nname = "claude"\nallow_domains = ["127.0.0.1:%s"]\n' $PORT > $R/sepp/settings.toml
cd $R/ws
env -i PATH=$ROOT/tests/agents/node/node_modules/.bin:/usr/bin:/bin HOME=$R/home SEPP_HOME=$R/sepp ANTHROPIC_BASE_URL=$F ANTHROPIC_API_KEY=k \
  $B/sepp serve --port 0 --no-token --sandbox $1 > $R/s.out 2>$R/s.err & S=$!
for i in $(seq 50); do grep -q listening $R/s.out 2>/dev/null && break; sleep 0.1; done
U=$(grep -o 'http://[^ ]*' $R/s.out | head -1)
post() { curl -s -H 'Content-Type: application/json' "$U/v1/acp/m$2" -d "$1" > /dev/null; }
t0=$(date +%s%N)
post '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}' '?agent=claude'
t1=$(date +%s%N)
post '{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"'$R/ws'","mcpServers":[]}}'
t2=$(date +%s%N)
echo "sandbox $1: initialize $(( (t1-t0)/1000000 )) ms, session/new $(( (t2-t1)/1000000 )) ms"
kill $S $FP; wait 2>/dev/null || true; rm -rf $R
}
for m in "${@:-on off}"; do for mode in $m; do run $mode; done; done
