#!/usr/bin/env bash
# Streaming a 12 KB Markdown answer in the interactive UI, sepp side by side
# with pi, Claude Code and Codex in one run, all against the same scripted
# fake provider (no network), each on a pseudo-terminal of 120x40 that
# answers the usual terminal queries (DA1, DECRQM 2026 "supported", OSC
# 10/11 colours, cursor position), so every UI gets the same modern terminal.
# Measured from the Enter that sends the prompt until the answer's last line
# is on screen and the output settled: CPU of the agent's process tree
# (user + system, from /proc) and bytes written to the terminal. Prints both
# and the ratios peer/sepp. pi comes from tests/rpc/node (scripts/setup);
# Claude Code and Codex are installed from npm into $SEPP_BENCH_CACHE
# (default bench/.peers). CI does not run this.
# Usage: bench/tui/peers.sh [--no-peers]   (RUNS=N runs each, default 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-$root/build}
cache=${SEPP_BENCH_CACHE:-$root/bench/.peers}
peers=1
[ "${1:-}" = "--no-peers" ] && peers=0
[ -x "$build/sepp" ] && [ -x "$build/fake-provider" ] || { echo "build first: scripts/setup" >&2; exit 1; }
if ((peers)) && { [ ! -x "$cache/node_modules/.bin/claude" ] || [ ! -x "$cache/node_modules/.bin/codex" ]; }; then
  mkdir -p "$cache"
  npm install --silent --prefix "$cache" @anthropic-ai/claude-code @openai/codex
fi
exec python3 - "$root" "$build" "$cache" "$peers" "${RUNS:-3}" <<'PY'
import json, os, pty, re, select, shutil, signal, subprocess, sys, tempfile, time, fcntl, struct, termios

root, build, cache, peers, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5])
MARK = "ZZ-END-OF-ANSWER"

def answer():
    parts, i = [], 0
    while sum(map(len, parts)) < 12 * 1024:
        parts.append(f"## Step {i}\n\nA paragraph with **bold**, `code` and a [link](https://example.com/{i}) "
                     f"that runs on\nfor a second line of the paragraph.\n\n- an item\n- another item\n\n"
                     f"```python\ndef step_{i}(x):\n    return x * 2  # doubled\n```\n\n"
                     f"| key | value |\n|-----|------:|\n| a | {i} |\n\n")
        i += 1
    return "".join(parts) + MARK + "\n"

work = tempfile.mkdtemp(prefix="sepp-tui-peers-")
fake = subprocess.Popen([f"{build}/fake-provider", "--port", "0"], stdout=subprocess.PIPE, text=True)
url = None
for line in fake.stdout:
    m = re.search(r"listening on (http\S+)", line)
    if m:
        url = m.group(1)
        break
if not url:
    sys.exit("fake provider did not start")

def script():
    body = json.dumps({"responses": [{"text": answer(), "chunk_delay_ms": 5}]}).encode()
    import urllib.request
    urllib.request.urlopen(urllib.request.Request(url + "/__script", data=body, method="POST")).read()

def agent_env(name):
    home = os.path.join(work, name, "home")
    ws = os.path.join(work, name, "ws")
    os.makedirs(home, exist_ok=True)
    os.makedirs(ws, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": home, "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "COLORTERM": "truecolor", "TMPDIR": os.path.join(work, name)}
    if name == "sepp":
        env.update(SEPP_HOME=home + "/.sepp", SEPP_PROVIDER="anthropic", ANTHROPIC_BASE_URL=url,
                   ANTHROPIC_API_KEY="bench-key", SEPP_TUI_STATS=os.path.join(work, "sepp-stats.json"))
        return [f"{build}/sepp"], env, ws
    if name == "pi":
        agent_dir = os.path.join(home, "pi-agent")
        os.makedirs(agent_dir, exist_ok=True)
        json.dump({"providers": {"fake": {"baseUrl": url, "api": "anthropic-messages", "apiKey": "bench-key",
                                          "models": [{"id": "fake-model", "reasoning": False}]}}},
                  open(os.path.join(agent_dir, "models.json"), "w"))
        json.dump({"defaultProvider": "fake", "defaultModel": "fake-model"}, open(os.path.join(agent_dir, "settings.json"), "w"))
        env.update(PI_CODING_AGENT_DIR=agent_dir, PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
        # pi needs Node 22, which tests/rpc/node pins.
        node = f"{root}/tests/rpc/node/node_modules/.bin/node"
        return [node, f"{root}/tests/rpc/node/node_modules/.bin/pi"], env, ws
    if name == "claude":
        key = "sk-ant-bench-key-0123456789abcdefghij"
        json.dump({"hasCompletedOnboarding": True, "theme": "dark",
                   "customApiKeyResponses": {"approved": [key[-20:]]},
                   "projects": {ws: {"hasTrustDialogAccepted": True}}}, open(os.path.join(home, ".claude.json"), "w"))
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=key, DISABLE_AUTOUPDATER="1", IS_SANDBOX="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1")
        return [f"{cache}/node_modules/.bin/claude"], env, ws
    if name == "codex":
        codex_home = os.path.join(home, ".codex")
        os.makedirs(codex_home, exist_ok=True)
        open(os.path.join(codex_home, "config.toml"), "w").write(
            f'model = "gpt-5"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\nbase_url = "{url}/v1"\n'
            f'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n[projects."{ws}"]\ntrust_level = "trusted"\n')
        env.update(CODEX_HOME=codex_home, OPENAI_API_KEY="bench-key")
        return [f"{cache}/node_modules/.bin/codex"], env, ws

def tree_cpu(pid):
    """utime + stime (seconds) of pid and its descendants, with their reaped children."""
    tick = os.sysconf("SC_CLK_TCK")
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
                kids.setdefault(int(f[1]), []).append((int(p), f))
            except OSError:
                pass
    total, todo = 0, [pid]
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in f[11:15])
    except OSError:
        return 0
    while todo:
        for child, f in kids.get(todo.pop(), []):
            total += sum(int(x) for x in f[11:15])
            todo.append(child)
    return total / tick

ANSWERS = [(b"\x1b[c", b"\x1b[?62;22c"), (b"\x1b[0c", b"\x1b[?62;22c"), (b"\x1b[6n", b"\x1b[40;1R"),
           (b"\x1b[?2026$p", b"\x1b[?2026;2$y"), (b"\x1b[?1007$p", b"\x1b[?1007;2$y"), (b"\x1b[?u", b"\x1b[?0u"), (b"\x1b]10;?\x1b\\", b"\x1b]10;rgb:dddd/dddd/dddd\x1b\\"),
           (b"\x1b]11;?\x1b\\", b"\x1b]11;rgb:1111/1111/1111\x1b\\"), (b"\x1b]10;?\x07", b"\x1b]10;rgb:dddd/dddd/dddd\x07"),
           (b"\x1b]11;?\x07", b"\x1b]11;rgb:1111/1111/1111\x07")]

def run(name):
    argv, env, ws = agent_env(name)
    script()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(ws)
        os.execve(argv[0], argv, env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    out = bytearray()
    def pump(seconds, until=None, quiet=None):
        end = time.time() + seconds
        last = time.time()
        while time.time() < end:
            r, _, _ = select.select([fd], [], [], 0.05)
            if r:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                out.extend(chunk)
                last = time.time()
                for q, a in ANSWERS:
                    if q in chunk:
                        os.write(fd, a)
            if until and until():
                return True
            if quiet and time.time() - last >= quiet:
                return True
        return False
    pump(30, quiet=1.5)  # up to the prompt: started and quiet
    cpu0, bytes0 = tree_cpu(pid), len(out)
    os.write(fd, b"hi")
    pump(1.0)  # typed, not pasted (Codex takes a fast "hi\r" for a paste)
    os.write(fd, b"\r")
    # The end: the stream takes about 5 s (1,000 pieces, 5 ms apart); then the
    # output goes quiet. (The marker cannot be searched in the bytes: a UI
    # that writes only new tails writes it in pieces.)
    started = time.time()
    pump(60, until=lambda: time.time() - started > 5.5)
    pump(60, quiet=1.5)
    seen = len(out) - bytes0 > 12 * 1024
    if not seen or os.environ.get("KEEP"):
        open(os.path.join(root, f"bench/.peers/{name}.out"), "wb").write(bytes(out))
    cpu, nbytes = tree_cpu(pid) - cpu0, len(out) - bytes0
    os.kill(pid, signal.SIGTERM)
    pump(2)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)
    os.close(fd)
    return (cpu, nbytes) if seen else None

agents = ["sepp"] + ([a for a in os.environ.get("PEERS", "pi claude codex").split()] if peers else [])
results = {}
for a in agents:
    got = [run(a) for _ in range(runs)]
    ok = [g for g in got if g]
    results[a] = (sum(g[0] for g in ok) / len(ok), sum(g[1] for g in ok) / len(ok)) if ok else None
fake.terminate()
print(f"12 KB Markdown answer streamed in 12-byte pieces every 5 ms, pty 120x40, mean of {runs}")
print(f"{'agent':8} {'CPU':>9} {'bytes':>10}   ratio to sepp (CPU / bytes)")
base = results.get("sepp")
for a in agents:
    r = results[a]
    if not r:
        print(f"{a:8} did not show the whole answer")
        continue
    ratio = f"{r[0] / base[0]:6.1f}x / {r[1] / base[1]:.1f}x" if base else ""
    print(f"{a:8} {r[0]:8.2f}s {r[1] / 1024:8.1f}KB   {ratio}")
if os.path.exists(os.path.join(work, "sepp-stats.json")):
    print("sepp render statistics (last run):", open(os.path.join(work, "sepp-stats.json")).read().strip())
shutil.rmtree(work, ignore_errors=True)
PY
