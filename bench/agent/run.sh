#!/usr/bin/env bash
# One-shot agent benchmarks, sepp side by side with Claude Code and Codex in
# one run, all against the same scripted fake provider (no network):
#   - `sepp --version` cold start
#   - one-shot -p with 0 tool turns and with 10 tool turns (each agent's own
#     shell tool running `true`: sepp bash, Claude Code Bash, Codex exec_command)
#   - peak RSS of each (/usr/bin/time -v), 10 tool turns
# Prints mean times and the ratios peer/sepp. Peers are installed from npm
# into $SEPP_BENCH_CACHE (default bench/.peers); CI does not run this.
# Usage: bench/agent/run.sh [--no-peers]   (RUNS=N to change the run count)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
cache=${SEPP_BENCH_CACHE:-$root/bench/.peers}
runs=${RUNS:-10}
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
fi

work=$(mktemp -d)
fake_pid=
trap '[ -n "$fake_pid" ] && kill $fake_pid 2>/dev/null; rm -rf "$work"' EXIT

python3 - "$work" <<'PY'
import json, sys
w = sys.argv[1]
tools = {"sepp": ("bash", {"command": "true"}),
         "claude": ("Bash", {"command": "true"}),
         "codex": ("exec_command", {"cmd": "true"})}
for agent, (name, args) in tools.items():
    call = {"tool_calls": [{"name": name, "arguments": args}]}
    json.dump({"responses": [{"text": "done"}]}, open(f"{w}/{agent}-0.json", "w"))
    json.dump({"responses": [call] * 10 + [{"text": "done"}]}, open(f"{w}/{agent}-10.json", "w"))
PY

"$fake" --port 0 > "$work/fake.out" &
fake_pid=$!
for _ in $(seq 50); do grep -q listening "$work/fake.out" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/fake.out" | head -1)
[ -n "$url" ] || { echo "fake provider did not start" >&2; exit 1; }

mkdir -p "$work/ws" "$work/home/.codex" "$work/home/.sepp"
cd "$work/ws"
common="HOME=$work/home SEPP_HOME=$work/home/.sepp CODEX_HOME=$work/home/.codex"
declare -A cmd
cmd[sepp]="env $common ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=bench-key SEPP_PROVIDER=anthropic $sepp --no-session -p hi"
if ((peers)); then
  # IS_SANDBOX=1: Claude Code refuses to skip permissions as root otherwise.
  cmd[claude]="env $common ANTHROPIC_BASE_URL=$url ANTHROPIC_API_KEY=bench-key IS_SANDBOX=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 $cache/node_modules/.bin/claude -p hi --dangerously-skip-permissions"
  provider="model_providers.fake={name=\"fake\",base_url=\"$url/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}"
  cmd[codex]="env $common OPENAI_API_KEY=bench-key $cache/node_modules/.bin/codex exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox -c model_provider=fake -c '$provider' -c model=gpt-5 hi"
fi

echo "== sepp --version cold start"
hyperfine -N --warmup 10 --runs 300 --export-json "$work/version.json" "$sepp --version" | grep -E 'Time|Range'

agents="sepp"
((peers)) && agents="sepp claude codex"
for turns in 0 10; do
  for a in $agents; do
    hyperfine --warmup 1 --runs "$runs" \
      --prepare "curl -s -X POST --data-binary @$work/$a-$turns.json $url/__script" \
      --export-json "$work/$a-$turns.time.json" -n "$a $turns turns" "${cmd[$a]}" > "$work/hf.log" 2>&1 || { echo "$a ($turns turns) failed:"; bash -c "${cmd[$a]}" 2>&1 | tail -5; exit 1; }
  done
done

rss() {  # agent -> peak RSS in KB of a 10-turn run
  curl -s -X POST --data-binary @"$work/$1-10.json" "$url/__script" > /dev/null
  /usr/bin/time -v bash -c "${cmd[$1]}" 2>&1 >/dev/null | sed -n 's/.*Maximum resident set size (kbytes): //p'
}
for a in $agents; do echo "$(rss "$a")" > "$work/$a.rss"; done

python3 - "$work" "$agents" <<'PY'
import json, sys
w, agents = sys.argv[1], sys.argv[2].split()
mean = lambda f: json.load(open(f))["results"][0]["mean"]
v = json.load(open(f"{w}/version.json"))["results"][0]
print(f"sepp --version: mean {v['mean']*1000:.2f} ms, min {v['min']*1000:.2f} ms")
print(f"{'agent':8} {'0 turns':>10} {'10 turns':>10} {'peak RSS':>10}   ratio to sepp (0 / 10 turns)")
base = {t: mean(f"{w}/sepp-{t}.time.json") for t in (0, 10)}
for a in agents:
    t0, t10 = mean(f"{w}/{a}-0.time.json"), mean(f"{w}/{a}-10.time.json")
    rss = int(open(f"{w}/{a}.rss").read().strip() or 0)
    print(f"{a:8} {t0*1000:8.1f}ms {t10*1000:8.1f}ms {rss/1024:8.1f}MB   {t0/base[0]:7.1f}x / {t10/base[10]:.1f}x")
PY
