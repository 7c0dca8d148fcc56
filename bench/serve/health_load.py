#!/usr/bin/env python3
"""Sends exactly N GET /v1/health requests over C keep-alive connections
(one outstanding per connection, as wrk does) once the server answers;
for bench/serve/health_callgrind.sh, where a fixed count matters more than
a duration. Usage: health_load.py PORT N [C]"""
import selectors
import socket
import sys
import time

port, total = int(sys.argv[1]), int(sys.argv[2])
conns = int(sys.argv[3]) if len(sys.argv) > 3 else 50
req = f"GET /v1/health HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()

deadline = time.time() + 120
while True:  # the server may still be starting (under valgrind: slowly)
    try:
        socket.create_connection(("127.0.0.1", port)).close()
        break
    except OSError:
        if time.time() > deadline:
            sys.exit("the server never answered")
        time.sleep(0.05)

sel = selectors.DefaultSelector()
sent = done = 0
socks = []
for _ in range(min(conns, total)):
    s = socket.create_connection(("127.0.0.1", port))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    socks.append(s)
    s.sendall(req)
    sent += 1
    sel.register(s, selectors.EVENT_READ, bytearray())
while done < total:
    for key, _ in sel.select(timeout=30):
        s, buf = key.fileobj, key.data
        chunk = s.recv(65536)
        if not chunk:
            sys.exit("the server closed a connection")
        buf += chunk
        # Each answer is a head with Content-Length: 15 and a 15-byte body.
        while True:
            end = buf.find(b"\r\n\r\n")
            if end < 0 or len(buf) < end + 4 + 15:
                break
            del buf[: end + 4 + 15]
            done += 1
            if sent < total:
                s.sendall(req)
                sent += 1
for s in socks:
    s.close()
print(f"{done} answers", file=sys.stderr)
