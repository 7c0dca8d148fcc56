#!/usr/bin/env bash
# One-shot agent benchmarks, sepp side by side with Claude Code and Codex in
# one run, all against the same scripted fake provider (no network):
#   - `sepp --version` cold start
#   - one-shot -p with 0 tool turns and with 10 tool turns (bash `true`)
#   - peak RSS of each (/usr/bin/time -v)
# Peers are installed from npm into $SEPP_BENCH_CACHE (default bench/.peers).
# Usage: bench/agent/run.sh [--no-peers]      (needs: hyperfine, node/npm, curl)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
cache=${SEPP_BENCH_CACHE:-$root/bench/.peers}
peers=1
[ "${1:-}" = "--no-peers" ] && peers=0

sepp=$build/sepp
fake=$build/fake-provider
[ -x "$sepp" ] && [ -x "$fake" ] || { echo "build first: scripts/setup" >&2; exit 1; }

if ((peers)); then
  if [ ! -x "$cache/node_modules/.bin/claude" ] || [ ! -x "$cache/node_modules/.bin/codex" ]; then
    mkdir -p "$cache"
    npm install --silent --prefix "$cache" @anthropic-ai/claude-code @openai/codex
  fi
  claude=$cache/node_modules/.bin/claude
  codex=$cache/node_modules/.bin/codex
fi

work=$(mktemp -d)
trap 'kill $fake_pid 2>/dev/null || true; rm -rf "$work"' EXIT

# 10 tool turns then an answer; 0-turn runs use the answer only.
python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
tool = {"tool_calls": [{"name": "bash", "arguments": {"command": "true"}}]}
json.dump({"responses": [{"text": "done"}]}, open(w + "/zero.json", "w"))
json.dump({"responses": [tool] * 10 + [{"text": "done"}]}, open(w + "/ten.json", "w"))
PY

"$fake" --script "$work/zero.json" --port 0 > "$work/fake.out" &
fake_pid=$!
for _ in $(seq 50); do grep -q listening "$work/fake.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/fake.out" | head -1)
[ -n "$url" ] || { echo "fake provider did not start" >&2; exit 1; }
echo "fake provider at $url"

reset() { curl -s -X POST --data-binary @"$work/$1.json" "$url/__script" > /dev/null; }

mkdir -p "$work/ws" "$work/home"
export SEPP_HOME=$work/home HOME=$work/home
cd "$work/ws"

sepp_env="ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=bench-key SEPP_PROVIDER=anthropic"
claude_env="ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=bench-key DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_ERROR_REPORTING=1"
codex_cfg=(-c model_provider=fake -c "model_providers.fake={name=\"fake\",base_url=\"$url/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}" -c model=gpt-5)
codex_cmd="OPENAI_API_KEY=bench-key $codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox ${codex_cfg[*]@Q}"

echo "== cold start"
hyperfine -N --warmup 5 --runs 200 "$sepp --version"

for turns in zero ten; do
  echo "== one-shot, $turns tool turns"
  cmds=(-n sepp "env $sepp_env $sepp --no-session -p hi")
  if ((peers)); then
    cmds+=(-n claude-code "env $claude_env $claude -p hi --dangerously-skip-permissions")
    cmds+=(-n codex "env $codex_cmd hi")
  fi
  hyperfine --warmup 1 --runs "${RUNS:-10}" --prepare "curl -s -X POST --data-binary @$work/$turns.json $url/__script" \
    --export-markdown "$work/$turns.md" "${cmds[@]}" || true
  cat "$work/$turns.md"
done

echo "== peak RSS (KB), one-shot with 10 tool turns"
rss() { reset ten; /usr/bin/time -v env "$@" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'; }
echo "sepp: $(rss $sepp_env $sepp --no-session -p hi)"
if ((peers)); then
  echo "claude-code: $(rss $claude_env $claude -p hi --dangerously-skip-permissions)"
  echo "codex: $(eval reset ten; /usr/bin/time -v bash -c "$codex_cmd hi" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p')"
fi
