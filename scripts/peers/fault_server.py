"""A raw TCP server that misbehaves on purpose, standing in for the broken servers of the
adversarial run (issue 19). It reads one request head and then, by path:

  /hang/...        never answers and keeps the connection open (a dead backend behind a proxy)
  /stream/N        answers 200 with N bytes of 'x', written as fast as the client reads
  /cut/N           announces N bytes of 'x', sends half of them and closes the connection
  /always500/...   answers 500 with a small JSON error, every time
  /capture/...     answers 200 with the raw bytes of the request head as the body
  /discovery/...   an OpenID discovery document whose endpoints name gopher:// and file:// URLs
  /keepalive/...   answers 200 and keeps the connection open, then closes it without an
                   answer when the next request head arrives on it (a kept-alive connection the
                   server dropped just as a client reused it)
  /delay/MS        answers 200 after MS milliseconds
  /trickle/N       announces N bytes of JSON and sends them one a second (a slow-loris
                   answer that never stalls long enough for a stall limit)
  /_seen?target=T  {"seen": true} once a request for the path T has arrived (so a test knows a
                   request is under way without sleeping)

Any other path gets 404. It never reads a body beyond the head."""
import argparse
import json
import socket
import threading
from urllib.parse import parse_qs, urlsplit

SEEN = set()
SEEN_LOCK = threading.Lock()


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 16:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def reply(conn, status, body, content_type="application/json"):
    head = f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    conn.sendall(head.encode() + body)


def serve(conn, port):
    try:
        head = read_head(conn)
        parts = head.split(b" ", 2)
        path = parts[1].decode("latin-1") if len(parts) > 1 else "/"
        with SEEN_LOCK:
            SEEN.add(path)
        if path.startswith("/_seen"):
            target = parse_qs(urlsplit(path).query).get("target", [""])[0]
            with SEEN_LOCK:
                seen = target in SEEN
            reply(conn, 200, json.dumps({"seen": seen}).encode())
        elif path.startswith("/hang"):
            threading.Event().wait(3600)
        elif path.startswith("/stream/"):
            size = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode())
            block = b"x" * (1 << 16)
            while size > 0:
                sent = conn.send(block[: min(size, len(block))])
                size -= sent
        elif path.startswith("/cut/"):
            size = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode())
            conn.sendall(b"x" * (size // 2))
        elif path.startswith("/keepalive"):
            body = json.dumps({"target": path}).encode()
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            read_head(conn)
        elif path.startswith("/delay/"):
            threading.Event().wait(int(path.split("/")[2]) / 1000)
            reply(conn, 200, json.dumps({"target": path}).encode())
        elif path.startswith("/trickle/"):
            count = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {count}\r\n\r\n".encode())
            for _ in range(count):
                conn.sendall(b" ")
                threading.Event().wait(1)
        elif path.startswith("/always500"):
            reply(conn, 500, b'{"message": "Internal Server Error"}')
        elif path.startswith("/capture"):
            reply(conn, 200, head, "application/octet-stream")
        elif path.startswith("/discovery"):
            issuer = f"http://127.0.0.1:{port}/discovery"
            document = {
                "issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"gopher://127.0.0.1:{port}/_token", "jwks_uri": "file:///etc/passwd",
                "device_authorization_endpoint": f"gopher://127.0.0.1:{port}/_device",
            }
            reply(conn, 200, json.dumps(document).encode())
        else:
            reply(conn, 404, b'{"message": "no such fault"}')
    except OSError:
        pass
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    listener = socket.create_server(("127.0.0.1", args.port), backlog=128)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args.port), daemon=True).start()


if __name__ == "__main__":
    main()
