#!/usr/bin/env python3
"""A trivial upstream for the gateway and proxy tests: answers every request 200 with a JSON
description of what arrived (method, raw target, headers, body length and SHA-256), and
counts arrivals by the first two path segments, so a test can prove a rejected request never
reached it.
  /_peer/count?prefix=/t/abc   -> {"count": N}   (requests whose target starts with the prefix)
  anything else                -> 200 {"method", "target", "headers", "body_length", "body_sha256"}
With --tls-cert and --tls-key it serves HTTPS instead (for the transports' TLS options).
Usage: upstream_server.py --port N [--tls-cert PEM --tls-key PEM]
"""
import argparse
import hashlib
import ssl
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from peer_http import QuietHandler

arrivals = []
lock = threading.Lock()


class Handler(QuietHandler):
    def handle_any(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        if self.path.startswith("/_peer/count"):
            prefix = parse_qs(urlsplit(self.path).query).get("prefix", [""])[0]
            with lock:
                count = sum(1 for target in arrivals if target.startswith(prefix))
            return self.send_json(200, {"count": count})
        with lock:
            arrivals.append(self.path)
        self.send_json(200, {
            "method": self.command, "target": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body_length": len(body), "body_sha256": hashlib.sha256(body).hexdigest(),
        })

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_OPTIONS = handle_any


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    if arguments.tls_cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(arguments.tls_cert, arguments.tls_key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()
