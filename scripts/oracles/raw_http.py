#!/usr/bin/env python3
"""Sends raw bytes to a server and prints what came back, for hostile-input tests: the status
line, or "closed" when the server closed the connection without an answer, or "timeout".
Usage: raw_http.py HOST PORT KIND [SECONDS]
KIND: malformed (a broken request line), big-header (one 1 MiB header), long-body (a body
longer than its Content-Length), short-body (half the announced body, then the sending side
closed), slow (a head sent one byte every 0.2 s, never finished), pipelined (three requests with the
API key `k` in one write, a POST with a body between two GETs: prints each response's status
and the target the upstream echoed, in the order they came, as "200 /p1,200 /p2,200 /p3"), reuse (GET, GET, then a body-less POST, one after another on one
connection, printed the same way), then-garbage (a GET with the key `gw-key-123` and garbage after
it in one write: the two answers in the order they came, printed the same way), close (a GET with `Connection: close`: its status line and
", then closed" once the server closes the connection), unknown-key and stale-date (the head of
a POST announcing a 1 MB body, SigV4-signed by key id AKIDUNKNOWN, or dated 2015; no body is
ever sent, so only a server that decides on the head answers), connect, asterisk, dot-raw and
dot-encoded (a CONNECT, an OPTIONS *, and GETs whose path climbs with /../ or /%2E%2e/, all
with the API key `gw-key-123`), half-close-get and half-close-post (a request, with the API key
`gw-key-123`, then the sending side closed: the answer must still come), expect and
expect-refused (a POST with `Expect: 100-continue` and the key `gw-key-123`, or a wrong one:
prints "100, then STATUS" when the server asked for the body and answered it, or "STATUS,
then closed" when it answered without the body and closed), trickle-body (a POST announcing
1000 bytes, then sending one every 0.5 s: prints the answer once one comes), fast-then-trickle
(a POST with the key `gw-key-123` announcing 400,000 bytes, 200,000 sent at once, then one each
0.5 s: prints the answer and how long after the trickle began it came), forged-known (as
unknown-key, with the key id given as the fifth argument and a declared x-amz-content-sha256), framed (the
request given as the fifth argument, with \\r\\n escapes: prints the answer's status and
"framed" when it has a Content-Length, is chunked, or says Connection: close and the server
then closes, else "unframed"; a server that does not close leaves the client to time out),
idle-then-stop (a GET with the key `k`, its answer read, then SIGTERM sent to the process
whose id is the fifth argument: prints "STATUS, then closed" once the server closes the idle
connection, or "STATUS, then timeout")."""
import json
import select
import socket
import sys
import time



def read_response(stream):
    """One response from `stream`: its status and the target its JSON body names ("-" for none)."""
    status = stream.readline().split(b" ")[1].decode()
    length = 0
    while (line := stream.readline()) not in (b"\r\n", b""):
        name, _, value = line.decode("latin-1").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    body = stream.read(length)
    try:
        return status, json.loads(body).get("target", "-")
    except ValueError:
        return status, "-"


host, port, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
limit = float(sys.argv[4]) if len(sys.argv) > 4 else 10
sock = socket.create_connection((host, port), timeout=limit)
try:
    if kind == "malformed":
        sock.sendall(b"GARBAGE / NOT-HTTP\r\n\r\n")
    elif kind == "big-header":
        sock.sendall(b"GET /x HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
    elif kind == "long-body":
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n0123456789GET /y HTTP/1.1\r\n\r\n")
    elif kind == "short-body":
        sock.sendall(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\n01234")
        sock.shutdown(socket.SHUT_WR)
    elif kind == "pipelined":
        sock.sendall(
            b"GET /p1 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n\r\n"
            b"POST /p2 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nContent-Length: 3\r\n\r\nabc"
            b"GET /p3 HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n\r\n")
        stream = sock.makefile("rb")
        print(",".join(" ".join(read_response(stream)) for _ in range(3)))
        sys.exit(0)
    elif kind == "then-garbage":
        sock.sendall(b"GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: gw-key-123\r\n\r\nGARBAGE / NOT-HTTP\r\n\r\n")
        stream = sock.makefile("rb")
        print(",".join(" ".join(read_response(stream)) for _ in range(2)))
        sys.exit(0)
    elif kind == "reuse":
        stream = sock.makefile("rb")
        answers = []
        for method, path in (("GET", "/keepalive/a"), ("GET", "/keepalive/b"), ("POST", "/keepalive/c")):
            sock.sendall(f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nContent-Length: 0\r\n\r\n".encode())
            answers.append(" ".join(read_response(stream)))
        print(",".join(answers))
        sys.exit(0)
    elif kind == "idle-then-stop":
        import os, signal
        stream = sock.makefile("rb")
        sock.sendall(b"GET /i HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\n\r\n")
        status, _ = read_response(stream)
        os.kill(int(sys.argv[5]), signal.SIGTERM)
        try:
            print(status + (", then closed" if stream.read(1) == b"" else ", then more"))
        except socket.timeout:
            print(status + ", then timeout")
        sys.exit(0)
    elif kind == "close":
        sock.sendall(b"GET /c HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: k\r\nConnection: close\r\n\r\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
        print(data.split(b"\r\n", 1)[0].decode("latin-1") + ", then closed")
        sys.exit(0)
    elif kind in ("connect", "asterisk", "dot-raw", "dot-encoded"):
        target = {"connect": "CONNECT 127.0.0.1:9 HTTP/1.1", "asterisk": "OPTIONS * HTTP/1.1",
                  "dot-raw": "GET /t/../escape HTTP/1.1", "dot-encoded": "GET /t/%2E%2e/escape HTTP/1.1"}[kind]
        sock.sendall(f"{target}\r\nHost: 127.0.0.1\r\nx-api-key: gw-key-123\r\n\r\n".encode())
    elif kind in ("half-close-get", "half-close-post"):
        method, body = ("GET", b"") if kind == "half-close-get" else ("POST", b"abc")
        sock.sendall(f"{method} /half HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: gw-key-123\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        sock.shutdown(socket.SHUT_WR)
    elif kind in ("expect", "expect-refused"):
        key = "gw-key-123" if kind == "expect" else "wrong-key"
        sock.sendall(f"POST /expect HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: {key}\r\nContent-Length: 3\r\n"
                     "Expect: 100-continue\r\n\r\n".encode())
        stream = sock.makefile("rb")
        status, _ = read_response(stream)
        if status == "100":
            sock.sendall(b"abc")
            print("100, then " + read_response(stream)[0])
        else:
            print(status + (", then closed" if sock.recv(1) == b"" else ", then open"))
        sys.exit(0)
    elif kind == "framed":
        sock.sendall(sys.argv[5].encode().decode("unicode_escape").encode("latin-1"))
        stream = sock.makefile("rb")
        status = stream.readline().split(b" ")[1].decode()
        fields = []
        while (line := stream.readline()) not in (b"\r\n", b""):
            fields.append(line.decode("latin-1").lower())
        framed = any(f.startswith("content-length:") or (f.startswith("transfer-encoding:") and "chunked" in f) for f in fields)
        if not framed and "connection: close\r\n" in fields:
            stream.read()  # framed by the connection's end, if it comes
            framed = True
        print(status, "framed" if framed else "unframed")
        sys.exit(0)
    elif kind == "trickle-body":
        sock.sendall(b"POST /trickle HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: gw-key-123\r\nContent-Length: 1000\r\n\r\n")
        start = time.time()
        # One byte each 0.5 s until the server answers (or the time is up).
        while time.time() - start < limit and not select.select([sock], [], [], 0.5)[0]:
            sock.sendall(b"a")
    elif kind == "fast-then-trickle":
        sock.sendall(b"POST /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: gw-key-123\r\nContent-Length: 400000\r\n\r\n"
                     + b"a" * 200000)
        start = time.time()
        while time.time() - start < limit and not select.select([sock], [], [], 0.5)[0]:
            sock.sendall(b"a")
        data = sock.recv(65536)
        status = data.split(b"\r\n", 1)[0].decode("latin-1") if data else "closed"
        print(f"{status} after {time.time() - start:.1f} s")
        sys.exit(0)
    elif kind in ("unknown-key", "stale-date", "forged-known"):
        stamp = "20150830T123600Z" if kind == "stale-date" else time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        key = "AKIDUNKNOWN" if kind == "unknown-key" else sys.argv[5]
        sock.sendall(
            f"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Amz-Date: {stamp}\r\nContent-Length: 1000000\r\n"
            f"x-amz-content-sha256: {'ab' * 32}\r\n"
            f"Authorization: AWS4-HMAC-SHA256 Credential={key}/{stamp[:8]}/us-east-1/execute-api/aws4_request, "
            f"SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature={'0' * 64}\r\n\r\n".encode())
    elif kind == "slow":
        start = time.time()
        for byte in b"GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + b"a" * 1000:
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
