#!/usr/bin/env python3
"""Cold start of `sepp serve`: spawn -> first 200 {"status":"ok"} on /v1/health,
polled with raw sockets in a tight loop (a Node poller costs tens of ms under
load, see RESULTS.md). Two cases, RUNS each (median, min, max, in ms):
  first  a fresh SEPP_HOME each time: sessions.db is created (SQLite fsyncs)
  again  the same SEPP_HOME: the database exists
Usage: bench/serve/cold_start.py [BUILD_DIR]   (RUNS=N)"""
import os, socket, subprocess, sys, tempfile, time, statistics, shutil

build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../build")
sepp = os.path.abspath(os.path.join(build, "sepp"))
runs = int(os.environ.get("RUNS", "20"))

def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port

def healthy(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as c:
            c.sendall(b"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nConnection: close\r\n\r\n" % port)
            data = b""
            while chunk := c.recv(4096):
                data += chunk
            return data.startswith(b"HTTP/1.1 200") and data.endswith(b'{"status":"ok"}')
    except OSError:
        return False

def one(home, cwd):
    port = free_port()
    env = {"PATH": os.environ["PATH"], "HOME": home, "SEPP_HOME": home, "ANTHROPIC_API_KEY": "bench-key"}
    t0 = time.perf_counter()
    p = subprocess.Popen([sepp, "serve", "--port", str(port), "--no-token"], cwd=cwd, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not healthy(port):
        if p.poll() is not None:
            raise SystemExit("sepp serve exited early")
    ms = (time.perf_counter() - t0) * 1000
    p.terminate()
    p.wait()
    return ms

work = tempfile.mkdtemp(prefix="sepp-cold-")
try:
    results = {}
    for case in ("first", "again"):
        times = []
        for i in range(runs):
            home = os.path.join(work, f"home-{i}" if case == "first" else "home-again")
            os.makedirs(home, exist_ok=True)
            times.append(one(home, work))
        results[case] = times
    for case, t in results.items():
        print(f"{case:6} median {statistics.median(t):6.1f} ms   min {min(t):6.1f}   max {max(t):6.1f}   ({len(t)} runs)")
finally:
    shutil.rmtree(work, ignore_errors=True)
