#!/usr/bin/env python3
"""Sends raw bytes to a server and prints what came back, for hostile-input tests: the status
line, or "closed" when the server closed the connection without an answer, or "timeout".
Usage: raw_http.py HOST PORT KIND [SECONDS]
KIND: malformed (a broken request line), big-header (one 1 MiB header), long-body (a body
longer than its Content-Length), short-body (half the announced body, then the sending side
closed), slow (a head sent one byte every 0.2 s, never finished)."""
import socket
import sys
import time

host, port, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 10
sock = socket.create_connection((host, port), timeout=limit)
try:
    if kind == "malformed":
        sock.sendall(b"GARBAGE / NOT-HTTP\r\n\r\n")
    elif kind == "big-header":
        sock.sendall(b"GET /x HTTP/1.1\r\nHost: h\r\nx-api-key: k\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
    elif kind == "long-body":
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\n0123456789GET /y HTTP/1.1\r\n\r\n")
    elif kind == "short-body":
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n01234")
        sock.shutdown(socket.SHUT_WR)
    elif kind == "slow":
        start = time.time()
        for byte in b"GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: " + b"a" * 1000:
            sock.sendall(bytes([byte]))
            time.sleep(0.2)
            if time.time() - start > limit:
                break
    data = sock.recv(65536)
    print(data.split(b"\r\n", 1)[0].decode("latin-1") if data else "closed")
except (ConnectionResetError, BrokenPipeError):
    print("closed")
except socket.timeout:
    print("timeout")
