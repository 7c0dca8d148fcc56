#!/usr/bin/env python3
"""Where an ACP prompt's time goes in `sepp serve`, counted, not timed.

Runs `sepp serve` under `strace -f` twice, with a short and a long run of
prompts (bench/serve/prompt_driver.mjs: one connection, one SSE subscriber,
session/prompt one after another), and prints the difference divided by the
extra prompts: what one prompt costs in system calls, in futex wake-ups that
woke a sleeping thread (each one a hand-off from one thread to another: in
this VM a few hundred microseconds of wall time), in writes to pipes and
sockets, and which threads ran. Counts do not depend on the machine's load.

  python3 bench/serve/trace_prompt.py [build]      (PROMPTS=N, MODE=fake|cached|both)

fake:   the agent's model is build/fake-provider over loopback HTTP.
cached: `sepp serve --replay FILE --replay-mode lenient`, the cassette
        recorded first through the same server with --record.
"""
import collections, json, os, re, signal, subprocess, sys, tempfile, time, urllib.request

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build"))
prompts = int(os.environ.get("PROMPTS", "50"))
modes = {"both": ["fake", "cached"]}.get(os.environ.get("MODE", "both"), [os.environ.get("MODE", "both")])
driver = os.path.join(root, "bench/serve/prompt_driver.mjs")
work = tempfile.mkdtemp(prefix="sepp-serve-trace-")

fake = subprocess.Popen([os.path.join(build, "fake-provider"), "--port", "0"], stdout=subprocess.PIPE, text=True)
fake_url = fake.stdout.readline().strip().replace("listening on ", "")
script = json.dumps({"responses": [{"text": "ok"}] * (10 * prompts + 100)}).encode()
urllib.request.urlopen(urllib.request.Request(fake_url + "/__script", data=script, method="POST")).read()


def free_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def serve(extra, home, strace_out=None):
    port = free_port()
    os.makedirs(home, exist_ok=True)
    env = {"PATH": os.environ["PATH"], "HOME": home, "SEPP_HOME": home,
           "ANTHROPIC_BASE_URL": fake_url, "ANTHROPIC_API_KEY": "trace-key"}
    cmd = [os.path.join(build, "sepp"), "serve", "--no-token", "--port", str(port)] + extra
    if strace_out:
        cmd = ["strace", "-f", "-qq", "-o", strace_out] + cmd
    proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(2000):
        try:
            if urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=1).read() == b'{"status":"ok"}':
                break
        except OSError:
            time.sleep(0.01)
    return proc, port


def drive(port, n):
    out = subprocess.run(["node", driver, str(port), str(n)], cwd=work, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def stop(proc):
    # Under strace the server is strace's child: it gets the signal (strace
    # would only detach), and strace ends with it.
    kids = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
    os.kill(int(kids[0]) if kids and proc.args[0] == "strace" else proc.pid, signal.SIGTERM)
    proc.wait()


CALL = re.compile(r"^(\d+)\s+(?:<\.\.\. )?(\w+)[( ]")
WOKE = re.compile(r"FUTEX_WAKE[^)]*\)\s+=\s+([1-9]\d*)")
RESUMED_WOKE = re.compile(r"<\.\.\. futex resumed>.*=\s+([1-9]\d*)")


def count(path):
    calls, tids, woke, fds = collections.Counter(), collections.Counter(), 0, collections.Counter()
    pending_wake = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = CALL.match(line)
            if not m:
                continue
            tid, name = m.group(1), m.group(2)
            if "resumed>" in line:
                if pending_wake.pop(tid, False) and RESUMED_WOKE.search(line):
                    woke += 1
                continue
            calls[name] += 1
            tids[tid] += 1
            if name == "futex" and "FUTEX_WAKE" in line:
                if WOKE.search(line):
                    woke += 1
                elif "<unfinished ...>" in line:
                    pending_wake[tid] = True
            if name in ("write", "sendto", "writev", "sendmsg"):
                fds[name] += 1
    return calls, tids, woke, fds


def measure(mode):
    home = os.path.join(work, mode + "-home")
    extra = []
    if mode == "cached":
        cassette = os.path.join(work, "trace.cassette")
        proc, port = serve(["--record", cassette], os.path.join(work, "record-home"))
        drive(port, 10 + prompts + 5)  # the longer run needs 10 + prompts
        stop(proc)
        extra = ["--replay", cassette, "--replay-mode", "lenient"]
    runs = {}
    for n in (10, 10 + prompts):
        out = os.path.join(work, f"{mode}-{n}.strace")
        proc, port = serve(extra, home + str(n), out)
        timing = drive(port, n)
        stop(proc)
        runs[n] = count(out) + (timing,)
    (c1, t1, w1, f1, _), (c2, t2, w2, f2, timing) = runs[10], runs[10 + prompts]
    per = lambda a, b: (a - b) / prompts
    total = per(sum(c2.values()), sum(c1.values()))
    print(f"\n== {mode}: per prompt (strace -f, {10 + prompts} - 10 prompts) ==")
    print(f"system calls: {total:.1f}")
    for name, n in sorted(((k, per(c2[k], c1[k])) for k in c2), key=lambda kv: -kv[1])[:14]:
        if n >= 0.5:
            print(f"  {name:16s} {n:6.1f}")
    print(f"futex wake-ups that woke a thread (thread hand-offs): {per(w2, w1):.1f}")
    busy = [t for t in t2 if t2[t] >= prompts]  # threads that make a call on every prompt
    print(f"threads making system calls on every prompt: {len(busy)}")
    print(f"(under strace) p50 {timing['p50']:.2f} ms, fastest {timing['fastest']:.2f} ms, SSE frames {timing['frames']}")


try:
    for mode in modes:
        measure(mode)
finally:
    fake.terminate()
    subprocess.run(["rm", "-rf", work])
