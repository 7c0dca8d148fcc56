"""The issue-10 table for the interactive UIs of sepp, pi, Claude Code and Codex,
in one run, all against the same scripted fake provider (no network), each on
a pseudo-terminal of 120x40 that answers the usual terminal queries (DA1,
DECRQM 2026 "supported", OSC 10/11 colours, cursor position), so every UI
gets the same modern terminal. Run through bench/tui/peers.sh (which
installs the pinned peers); see bench/tui/RESULTS.md for what each column is.

Two runs per agent and round:
  empty   start to prompt (until the UI's prompt or footer is on screen, READY,
          and the output then went quiet for 1 s: the time of its last byte,
          the bytes, the CPU), then 10 s idle (CPU, timer wake-ups: the
          scheduler's count of times each thread ran, /proc/PID/task/*/schedstat,
          bytes written), RSS idle, then the 12 KB Markdown answer streamed
          (CPU and bytes from the Enter until the output settled).
  resume  a 2,000-message session in the tool's own format (made by running
          the tool once headless, then cloning that exchange 1,000 times with
          fresh ids chained parent to child), resumed: start to prompt (until
          the last message is on screen and the output went quiet), RSS,
          40 keystrokes one at a time (keystroke -> first byte p50/p95, CPU per
          key), a width resize 120 -> 100 (bytes, scrollback erase CSI 3J
          seen), peak RSS (VmHWM summed over the process tree).
CPU is user + system of the agent's process tree from /proc (Cpu: clock
ticks with reaped children, or schedstat's nanoseconds of the live threads,
whichever is more). Wall times (start, keystroke latency) move with the
machine's load; CPU, bytes, wake-ups and RSS much less.
"""
import fcntl, json, os, pty, re, select, shutil, signal, statistics, struct, subprocess, sys, tempfile
import termios, time, urllib.request, uuid

root, build, cache, peers, runs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1", int(sys.argv[5])
keep = bool(os.environ.get("KEEP"))
MARK = "ZZ-END-OF-ANSWER"
PROMPT_TOKEN, ANSWER_TOKEN = "BENCHPROMPT", "BENCHANSWER"
EXCHANGES = 1000  # a user and an assistant message each: 2,000 messages
KEYS = 40


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


def script(responses):
    body = json.dumps({"responses": responses}).encode()
    urllib.request.urlopen(urllib.request.Request(url + "/__script", data=body, method="POST")).read()


# ---- each agent's configuration, pointed at the fake provider

def agent_env(name, tag):
    """argv, env, workspace, resume arguments ({stem}: the session file's
    name, {uuid}: the uuid that ends it), headless argv for one prompt."""
    home = os.path.join(work, f"{name}-{tag}", "home")
    ws = os.path.join(work, f"{name}-{tag}", "ws")
    os.makedirs(home, exist_ok=True)
    os.makedirs(ws, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": home, "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "COLORTERM": "truecolor", "TMPDIR": os.path.join(work, f"{name}-{tag}")}
    if name == "sepp":
        env.update(SEPP_HOME=home + "/.sepp", SEPP_PROVIDER="anthropic", ANTHROPIC_BASE_URL=url,
                   ANTHROPIC_API_KEY="bench-key", SEPP_TUI_STATS=os.path.join(work, f"sepp-{tag}-stats.json"))
        return [f"{build}/sepp"], env, ws, ["-c"], [f"{build}/sepp", "-p", PROMPT_TOKEN]
    if name == "pi":
        agent_dir = os.path.join(home, "pi-agent")
        os.makedirs(agent_dir, exist_ok=True)
        json.dump({"providers": {"fake": {"baseUrl": url, "api": "anthropic-messages", "apiKey": "bench-key",
                                          "models": [{"id": "fake-model", "reasoning": False}]}}},
                  open(os.path.join(agent_dir, "models.json"), "w"))
        json.dump({"defaultProvider": "fake", "defaultModel": "fake-model"},
                  open(os.path.join(agent_dir, "settings.json"), "w"))
        env.update(PI_CODING_AGENT_DIR=agent_dir, PI_OFFLINE="1", PI_SKIP_VERSION_CHECK="1")
        # pi needs Node 22, which tests/rpc/node pins.
        argv = [f"{root}/tests/rpc/node/node_modules/.bin/node", f"{root}/tests/rpc/node/node_modules/.bin/pi"]
        return argv, env, ws, ["-c"], argv + ["-p", PROMPT_TOKEN]
    if name == "claude":
        key = "sk-ant-bench-key-0123456789abcdefghij"
        json.dump({"hasCompletedOnboarding": True, "theme": "dark",
                   "customApiKeyResponses": {"approved": [key[-20:]]},
                   "projects": {ws: {"hasTrustDialogAccepted": True}}}, open(os.path.join(home, ".claude.json"), "w"))
        env.update(ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY=key, DISABLE_AUTOUPDATER="1", IS_SANDBOX="1",
                   CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_TELEMETRY="1")
        argv = [f"{cache}/node_modules/.bin/claude"]
        return argv, env, ws, ["--resume", "{stem}"], argv + ["-p", PROMPT_TOKEN]
    if name == "codex":
        codex_home = os.path.join(home, ".codex")
        os.makedirs(codex_home, exist_ok=True)
        open(os.path.join(codex_home, "config.toml"), "w").write(
            f'model = "gpt-5"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\nbase_url = "{url}/v1"\n'
            f'wire_api = "responses"\nenv_key = "OPENAI_API_KEY"\n[projects."{ws}"]\ntrust_level = "trusted"\n')
        env.update(CODEX_HOME=codex_home, OPENAI_API_KEY="bench-key")
        argv = [f"{cache}/node_modules/.bin/codex"]
        return argv, env, ws, ["resume", "{uuid}"], argv + ["exec", "--skip-git-repo-check", PROMPT_TOKEN]
    raise SystemExit(f"unknown agent {name}")


# ---- the 2,000-message session, in each tool's own format

def replace_tokens(value, user_text, answer_text):
    if isinstance(value, str):
        return value.replace(PROMPT_TOKEN, user_text).replace(ANSWER_TOKEN, answer_text)
    if isinstance(value, list):
        return [replace_tokens(v, user_text, answer_text) for v in value]
    if isinstance(value, dict):
        return {k: replace_tokens(v, user_text, answer_text) for k, v in value.items()}
    return value


def fresh_id(like):
    """A new id shaped like `like`: each hex digit replaced by a random one."""
    return "".join(f"{uuid.uuid4().int % 16:x}" if ch in "0123456789abcdef" else ch for ch in like)


ID_KEYS = ("id", "uuid", "turn_id", "item_id", "root_turn_id", "first_user_item_id", "final_agent_item_id")


def renew_ids(value, ids):
    """The ids anywhere in an entry (ID_KEYS), new for each copy, the same
    id mapped alike within the copy."""
    if isinstance(value, list):
        return [renew_ids(v, ids) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for k, v in value.items():
        if k in ID_KEYS and isinstance(v, str) and v:
            out[k] = ids.setdefault(v, fresh_id(v))
        else:
            out[k] = renew_ids(v, ids)
    return out


def make_long_session(name):
    """Runs the tool once headless on PROMPT_TOKEN (answered ANSWER_TOKEN), then
    repeats that exchange in its session file until it holds 2,000 messages.
    Returns the arguments that resume it, or raises with why not."""
    argv, env, ws, _, headless = agent_env(name, "resume")
    script([{"text": ANSWER_TOKEN}] * 8)  # any side request a tool makes gets the same answer
    r = subprocess.run(headless, env=env, cwd=ws, stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
    if ANSWER_TOKEN.encode() not in r.stdout:
        raise RuntimeError(f"{name} headless run did not answer: {r.stdout[-300:]!r} {r.stderr[-300:]!r}")
    files = []
    for d, _, names in os.walk(env["HOME"]):
        for n in names:
            p = os.path.join(d, n)
            if n.endswith(".jsonl") and PROMPT_TOKEN.encode() in open(p, "rb").read():
                files.append(p)
    if len(files) != 1:
        raise RuntimeError(f"{name}: expected one session file holding the prompt, found {files}")
    path = files[0]
    lines = [json.loads(l) for l in open(path).read().splitlines()]
    # The exchange's messages are the entries (with an id, or Codex's ordinal)
    # that hold the prompt or the answer (Claude Code's other lines are the
    # request's attachments, snapshots and queue); a line that points at the leaf (Claude Code's
    # last-prompt) is written once more at the end, pointing at the new leaf.
    has_token = lambda o: PROMPT_TOKEN in json.dumps(o) or ANSWER_TOKEN in json.dumps(o)
    is_entry = lambda o: any(isinstance(o.get(k), str) for k in ("id", "uuid")) or "ordinal" in o
    block = [o for o in lines if has_token(o) and is_entry(o)]
    leaf_lines = [o for o in lines if "leafUuid" in o]
    id_keys, parent_keys = ("id", "uuid"), ("parentId", "parentUuid")
    last_id, ordinal = None, None
    for o in lines:
        for k in id_keys:
            if isinstance(o.get(k), str):
                last_id = o[k]
        if isinstance(o.get("ordinal"), int):
            ordinal = o["ordinal"]
    out = []
    for n in range(EXCHANGES):
        user = f"message {2 * n}: look at step {n} of the plan and tell me what changes in the parser"
        reply = (f"message {2 * n + 1}: step {n} changes **the parser**: it reads `token {n}` before the "
                 f"header, so the loop in `parse_{n}()` ends one byte earlier.\n\n- the tests stay\n"
                 f"- the benchmark moves by {n % 7} percent")
        ids = {}
        for o in block:
            c = renew_ids(replace_tokens(o, user, reply), ids)
            for k in parent_keys:
                if k in c:  # a root of the exchange hangs off the entry before it
                    c[k] = ids.get(c[k], last_id)
            for k in id_keys:
                if isinstance(c.get(k), str):
                    last_id = c[k]
            if ordinal is not None and isinstance(c.get("ordinal"), int):
                ordinal += 1
                c["ordinal"] = ordinal
            out.append(json.dumps(c, separators=(",", ":"), ensure_ascii=False))
    for o in leaf_lines[-1:]:
        c = replace_tokens(o, user, reply)
        c["leafUuid"] = last_id
        out.append(json.dumps(c, separators=(",", ":"), ensure_ascii=False))
    with open(path, "a") as f:
        f.write("\n".join(out) + "\n")
    stem = os.path.basename(path)[:-len(".jsonl")]
    return [a.format(stem=stem, uuid=stem[-36:]) for a in agent_env(name, "resume")[3]]


# ---- the process tree

def tree_pids(pid):
    kids = {}
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                ppid = int(open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[1])
                kids.setdefault(ppid, []).append(int(p))
            except OSError:
                pass
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def tree_cpu(pid):
    """utime + stime + reaped children's (seconds) of pid and its descendants."""
    total = 0
    for p in tree_pids(pid):
        try:
            f = open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()
            total += sum(int(x) for x in f[11:15])
        except OSError:
            pass
    return total / os.sysconf("SC_CLK_TCK")


def tree_cpu_ns(pid):
    """CPU seconds of the tree's live threads at nanosecond resolution
    (schedstat's run time): for the short measures (a keystroke, idle), where
    clock ticks of 10 ms are too coarse. Threads that end meanwhile are lost."""
    total = 0
    for p in tree_pids(pid):
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                total += int(open(f"/proc/{p}/task/{t}/schedstat").read().split()[0])
        except OSError:
            pass
    return total / 1e9


class Cpu:
    """CPU of the tree since it was made: clock ticks (10 ms; they count
    threads and reaped children that ended) or schedstat's nanoseconds
    (live threads only), whichever is more: a lower bound with both."""

    def __init__(self, pid, since_start=False):
        self.pid = pid
        self.ticks0 = 0 if since_start else tree_cpu(pid)
        self.ns0 = 0 if since_start else tree_cpu_ns(pid)

    def seconds(self):
        return max(tree_cpu(self.pid) - self.ticks0, tree_cpu_ns(self.pid) - self.ns0)


def tree_runs(pid):
    """{(pid, tid): times the thread was put on a CPU} over the tree."""
    out = {}
    for p in tree_pids(pid):
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                out[(p, int(t))] = int(open(f"/proc/{p}/task/{t}/schedstat").read().split()[2])
        except OSError:
            pass
    return out


def tree_memory(pid, field):
    kb = 0
    for p in tree_pids(pid):
        try:
            for l in open(f"/proc/{p}/status"):
                if l.startswith(field + ":"):
                    kb += int(l.split()[1])
        except OSError:
            pass
    return kb / 1024


ANSWERS = [(b"\x1b[c", b"\x1b[?62;22c"), (b"\x1b[0c", b"\x1b[?62;22c"), (b"\x1b[6n", b"\x1b[40;1R"),
           (b"\x1b[?2026$p", b"\x1b[?2026;2$y"), (b"\x1b[?1007$p", b"\x1b[?1007;2$y"), (b"\x1b[?u", b"\x1b[?0u"),
           (b"\x1b]10;?\x1b\\", b"\x1b]10;rgb:dddd/dddd/dddd\x1b\\"),
           (b"\x1b]11;?\x1b\\", b"\x1b]11;rgb:1111/1111/1111\x1b\\"), (b"\x1b]10;?\x07", b"\x1b]10;rgb:dddd/dddd/dddd\x07"),
           (b"\x1b]11;?\x07", b"\x1b]11;rgb:1111/1111/1111\x07")]


class Term:
    """One agent on a pty of 120x40 that answers the terminal queries."""

    def __init__(self, argv, env, cwd):
        self.t0 = time.monotonic()
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(cwd)
            os.execve(argv[0], argv, env)
        self.resize(120, 40)
        self.out = bytearray()
        self.last_byte = self.t0
        self.alive = True

    def resize(self, cols, rows):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def pump(self, seconds, until=None, quiet=None):
        end = time.monotonic() + seconds
        while time.monotonic() < end and self.alive:
            r, _, _ = select.select([self.fd], [], [], 0.02)
            if r:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    chunk = b""
                if not chunk:
                    self.alive = False
                    return False
                self.last_byte = time.monotonic()
                self.out.extend(chunk)
                # In the order asked, as a terminal answers (a UI may take
                # DA1's answer as the last).
                asked = sorted((chunk.find(q), a) for q, a in ANSWERS if q in chunk)
                for _, a in asked:
                    os.write(self.fd, a)
            if until and until():
                return True
            if quiet and time.monotonic() - self.last_byte >= quiet:
                return True
        return False

    def key(self, data):
        """Writes data; returns seconds until the first byte came back (None: none in 1 s)."""
        before = len(self.out)
        sent = time.monotonic()
        os.write(self.fd, data)
        self.pump(1.0, until=lambda: len(self.out) > before)
        return self.last_byte - sent if len(self.out) > before else None

    def close(self, name, phase):
        if keep:
            open(os.path.join(cache, f"{name}-{phase}.out"), "wb").write(bytes(self.out))
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        self.pump(2)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


# What shows that the UI is ready for input: a part of its prompt or footer
# (empty), the last message of the resumed session (resume).
READY = {"sepp": [b"ctx "], "pi": [b"fake-model"], "claude": [b"for shortcuts", b"shift+tab"],
         "codex": [b"for shortcuts", b"Ask Codex"]}
LAST_MESSAGE = [b"step 999 of the plan"]


def started(t, markers):
    """Up to the prompt: until one of the markers is on screen and the output
    then went quiet for 1 s (30 s at most); the time is the last byte's."""
    t.pump(30, until=lambda: any(m in t.out for m in markers))
    t.pump(30, quiet=1.0)
    return {"start_s": t.last_byte - t.t0, "start_bytes": len(t.out),
            "start_cpu": Cpu(t.pid, since_start=True).seconds()}


def run_empty(name):
    argv, env, ws, _, _ = agent_env(name, "empty")
    script([{"text": answer(), "chunk_delay_ms": 5}])
    t = Term(argv, env, ws)
    r = started(t, READY[name])
    # Idle: 10 s without input.
    cpu, runs0, bytes0 = Cpu(t.pid), tree_runs(t.pid), len(t.out)
    t.pump(10)
    runs1 = tree_runs(t.pid)
    r["idle_cpu"] = cpu.seconds()
    r["idle_wakeups"] = sum(n - runs0.get(k, 0) for k, n in runs1.items())
    r["idle_bytes"] = len(t.out) - bytes0
    r["rss_idle"] = tree_memory(t.pid, "VmRSS")
    # The 12 KB answer, from the Enter until the output settled.
    cpu, bytes0 = Cpu(t.pid), len(t.out)
    os.write(t.fd, b"hi")
    t.pump(1.0)  # typed, not pasted (Codex takes a fast "hi\r" for a paste)
    os.write(t.fd, b"\r")
    begun = time.monotonic()
    t.pump(60, until=lambda: time.monotonic() - begun > 5.5)  # 1,000 pieces 5 ms apart
    t.pump(60, quiet=1.5)
    if len(t.out) - bytes0 > 12 * 1024:
        r["stream_cpu"], r["stream_bytes"] = cpu.seconds(), len(t.out) - bytes0
    t.close(name, "empty")
    return r


def run_resume(name, resume):
    argv, env, ws, _, _ = agent_env(name, "resume")
    script([{"text": ANSWER_TOKEN}] * 8)
    t = Term(argv + resume, env, ws)
    r = started(t, LAST_MESSAGE)
    r = {"resume_" + k: v for k, v in r.items()}
    r["rss_2000"] = tree_memory(t.pid, "VmRSS")
    # Keystrokes one at a time, each after the screen settled.
    cpu, lat = Cpu(t.pid), []
    for i in range(KEYS):
        got = t.key(bytes([ord("a") + i % 26]))
        if got is not None:
            lat.append(got)
        t.pump(0.5, quiet=0.05)
    r["key_missed"] = KEYS - len(lat)  # keys with no byte back within 1 s
    if lat:
        lat.sort()
        r["key_p50"] = statistics.median(lat)
        r["key_p95"] = lat[int(0.95 * (len(lat) - 1))]
        r["key_cpu"] = cpu.seconds() / KEYS
    # A width resize: what it writes and whether it erases the scrollback.
    bytes0 = len(t.out)
    t.resize(100, 40)
    t.pump(3, until=lambda: len(t.out) > bytes0)  # a UI may wait for the drag to end
    t.pump(10, quiet=1.0)
    after = bytes(t.out[bytes0:])
    r["resize_bytes"] = len(after)
    r["resize_erase"] = b"\x1b[3J" in after
    r["rss_peak"] = tree_memory(t.pid, "VmHWM")
    t.close(name, "resume")
    return r


agents = ["sepp"] + (os.environ.get("PEERS", "pi claude codex").split() if peers else [])
why_not, resume_args = {}, {}
for a in agents:
    try:
        resume_args[a] = make_long_session(a)
    except Exception as e:  # noqa: BLE001: the table says why, the rest runs
        why_not[a] = str(e)
samples = {a: [] for a in agents}
for _ in range(runs):
    for a in agents:  # interleaved: a load change hits every agent alike
        r = run_empty(a)
        if a not in why_not:
            r.update(run_resume(a, resume_args[a]))
        samples[a].append(r)
fake.terminate()
shutil.rmtree(work, ignore_errors=True)


def med(a, k):
    v = [s[k] for s in samples[a] if k in s]
    return statistics.median(v) if v else None


ROWS = [  # key, label, unit scale, format, target (lower is better), target text
    ("start_s", "start to prompt, empty", 1000, "{:.0f} ms", 50, "≤ 50 ms"),
    ("start_bytes", "bytes written at start, empty", 1 / 1024, "{:.1f} KB", None, ""),
    ("start_cpu", "CPU to prompt, empty", 1000, "{:.0f} ms", None, ""),
    ("resume_start_s", "start to prompt, 2,000 messages", 1000, "{:.0f} ms", 150, "≤ 150 ms"),
    ("resume_start_bytes", "bytes written at start, 2,000 messages", 1 / 1024, "{:.1f} KB", 200, "≤ 200 KB"),
    ("resume_start_cpu", "CPU to prompt, 2,000 messages", 1000, "{:.0f} ms", None, ""),
    ("key_p50", "keystroke → first byte p50, 2,000 messages", 1000, "{:.2f} ms", 1, "≤ 1 ms"),
    ("key_p95", "keystroke → first byte p95, 2,000 messages", 1000, "{:.2f} ms", 3, "≤ 3 ms"),
    ("key_cpu", "CPU per keystroke, 2,000 messages", 1000, "{:.2f} ms", 0.3, "≤ 0.3 ms"),
    ("stream_cpu", "12 KB streamed answer: CPU", 1, "{:.2f} s", 0.3, "≤ 0.3 s"),
    ("stream_bytes", "12 KB streamed answer: bytes written", 1 / 1024, "{:.1f} KB", 40, "≤ 40 KB"),
    ("idle_cpu", "idle 10 s: CPU", 1000, "{:.0f} ms", 0, "0"),
    ("idle_wakeups", "idle 10 s: threads put on a CPU", 1, "{:.0f}", 0, "0"),
    ("idle_bytes", "idle 10 s: bytes written", 1, "{:.0f}", 0, "0"),
    ("rss_idle", "RSS idle, empty", 1, "{:.1f} MB", 25, "≤ 25 MB"),
    ("rss_2000", "RSS with 2,000 messages", 1, "{:.1f} MB", 60, "≤ 60 MB"),
    ("rss_peak", "RSS peak with 2,000 messages", 1, "{:.1f} MB", 80, "≤ 80 MB"),
    ("resize_bytes", "width resize, 2,000 messages: bytes", 1 / 1024, "{:.1f} KB", None, "≤ live region"),
]

print(f"pty 120x40, fake provider, median of {runs} rounds; load average {os.getloadavg()[0]:.1f} at the end")
for a, why in why_not.items():
    print(f"- {a}: no 2,000-message session: {why}")
for a in agents:
    missed = sum(s.get("key_missed", 0) for s in samples[a])
    if missed:
        print(f"- {a}: {missed} of {KEYS * len(samples[a])} keystrokes drew nothing within 1 s (left out of p50/p95)")
print()
print("| measure | " + " | ".join(agents) + " | best peer / sepp | target | met |")
print("|---" * (len(agents) + 4) + "|")
for key, label, scale, fmt, target, target_text in ROWS:
    cells, values = [], {}
    for a in agents:
        v = med(a, key)
        values[a] = v
        cells.append("—" if v is None else fmt.format(v * scale))
    peer_values = [v for a, v in values.items() if a != "sepp" and v is not None]
    best = min(peer_values) if peer_values else None
    s = values.get("sepp")
    ratio = "" if best is None or s is None else ("∞" if s == 0 and best > 0 else "—" if s == 0 else f"{best / s:.1f}x")
    met = "" if target is None or s is None else ("yes" if s * scale <= target else "no")
    print(f"| {label} | " + " | ".join(cells) + f" | {ratio} | {target_text} | {met} |")
erase = ["—" if med(a, "resize_bytes") is None else
         ("erased" if any(s.get("resize_erase") for s in samples[a]) else "kept") for a in agents]
print("| width resize: scrollback (CSI 3J) | " + " | ".join(erase) + " |  | kept | " +
      ("yes" if erase[0] == "kept" else "no") + " |")
