#!/usr/bin/env python3
"""A local API-Gateway-like server that checks authorization the way API Gateway does.

Routes pick the mode, as API Gateway's per-method authorization does:
  /iam/...      AWS_IAM: the signature is recomputed with botocore from the secret this
                server knows (--key AKID:SECRET), over the headers the client signed; a
                mismatch or a signing time more than 5 minutes off gives 403 with API
                Gateway's messages and a Date header. aws-chunked bodies up to 1 MiB are
                decoded and their chunk signatures, checksum trailer and trailer signature
                checked (400 on a mismatch).
  /apikey/...   API_KEY: x-api-key must be one of --api-key.
  /jwt/...      Cognito user pools / OIDC: Authorization holds a JWT (raw, or "Bearer ")
                whose RS256 signature verifies against --jwks-url.
  /open/...     no authorization.
  /mcp-iam/...  AWS_IAM as /iam/, then the request is sent on to --mcp-upstream (the rest of the
                path after /mcp-iam) and its answer streamed back as it arrives (an MCP server's
                event streams): the botocore-verifying end of `multiauth mcp-proxy`.
  /flaky/ID/N   503 for the first N requests with this ID, then the echo (retry tests).
Every accepted request is echoed as JSON: method, raw target, headers in order, body length
and SHA-256 (bodies are hashed as they stream in, never held). --clock-offset shifts this
server's clock, to test clock-skew recovery. Prints "listening PORT" once ready.
"""
import argparse
import datetime
import hashlib
import json
import sys
import threading
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

MISMATCH = ("The request signature we calculated does not match the signature you provided. Check your AWS "
            "Secret Access Key and signing method. Consult the service documentation for details.")
_clock_lock = threading.Lock()


def now(offset):
    return datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=offset)


def check_aws_chunked(body, headers, seed, secret, amz_date, scope):
    """Decodes an aws-chunked body and checks every chunk signature (chained from the seed),
    the decoded length, the trailing checksum and the trailer signature, from the S3 API
    reference's formulas. Returns a problem, or None."""
    import base64, hmac, zlib
    mode = headers.get("X-Amz-Content-SHA256")
    signed = mode.startswith("STREAMING-AWS4-HMAC-SHA256-PAYLOAD")
    key = ("AWS4" + secret).encode()
    for part in scope.split("/"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    empty = hashlib.sha256(b"").hexdigest()
    previous, position, decoded = seed, 0, bytearray()
    while True:
        end = body.find(b"\r\n", position)
        if end < 0:
            return "truncated chunk header"
        line = body[position:end].decode()
        size_text, _, extension = line.partition(";")
        size = int(size_text, 16)
        chunk = body[end + 2:end + 2 + size]
        if signed:
            to_sign = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", amz_date, scope, previous, empty, hashlib.sha256(chunk).hexdigest()])
            previous = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
            if extension != "chunk-signature=" + previous:
                return f"chunk signature mismatch at decoded offset {len(decoded)}"
        decoded += chunk
        position = end + 2 + size
        if size == 0:
            break
        if body[position:position + 2] != b"\r\n":
            return "chunk not followed by CRLF"
        position += 2
    if str(len(decoded)) != headers.get("x-amz-decoded-content-length"):
        return "x-amz-decoded-content-length does not match the decoded body"
    trailer_name = headers.get("x-amz-trailer")
    if not trailer_name:
        return None if body[position:] == b"\r\n" else "bytes after the final chunk"
    lines = body[position:].decode().split("\r\n")
    name, _, value = lines[0].partition(":")
    if name != trailer_name:
        return "trailer missing"
    if name == "x-amz-checksum-crc32":
        actual = base64.b64encode((zlib.crc32(decoded) & 0xFFFFFFFF).to_bytes(4, "big")).decode()
    else:
        actual = base64.b64encode(hashlib.sha256(decoded).digest()).decode()
    if value != actual:
        return f"{name} does not match the body"
    if signed:
        canonical = f"{name}:{value}\n"
        to_sign = "\n".join(["AWS4-HMAC-SHA256-TRAILER", amz_date, scope, previous, hashlib.sha256(canonical.encode()).hexdigest()])
        if lines[1] != "x-amz-trailer-signature:" + hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest():
            return "trailer signature mismatch"
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "MultiAuthTestAPI"
    wbufsize = 1 << 16  # one write per response: unbuffered header lines meet delayed ACKs (40 ms)

    def log_message(self, *args):
        pass

    def do_any(self):
        digest, length, body = hashlib.sha256(), int(self.headers.get("Content-Length") or 0), b""
        remaining = length
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            digest.update(chunk)
            if length <= 1 << 20:
                body += chunk
            remaining -= len(chunk)
        route = self.path.split("/")[1] if self.path.startswith("/") else ""
        if route == "flaky":  # /flaky/ID/N: 503 for the first N requests with this ID, then 200
            parts = self.path.split("/")
            with _clock_lock:
                seen = self.server.flaky.get(parts[2], 0)
                self.server.flaky[parts[2]] = seen + 1
            if seen < int(parts[3]):
                return self.reply(503, {"message": "Service Unavailable"})
        check = {"iam": self.check_iam, "apikey": self.check_api_key, "jwt": self.check_jwt, "mcp-iam": self.check_iam}.get(route)
        if check is not None:
            problem = check(body if length <= 1 << 20 else None, digest.hexdigest())
            if problem:
                return self.reply(problem[0], {"message": problem[1]}, problem[2] if len(problem) > 2 else {})
        if route == "mcp-iam":
            return self.forward_mcp(body)
        self.reply(200, {
            "method": self.command, "target": self.path,
            "headers": [[name, value] for name, value in self.headers.items()],
            "body_length": length, "body_sha256": digest.hexdigest(),
        })

    do_GET = do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_any

    def reply(self, status, payload, headers=None):
        data = json.dumps(payload).encode()
        self.send_response_only(status)  # no automatic Date: this server's clock may be offset
        self.send_header("Server", self.server_version)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Date", now(self.server.clock_offset).strftime("%a, %d %b %Y %H:%M:%S GMT"))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        self.wfile.flush()

    def forward_mcp(self, body):
        """Sends the verified request on to the MCP server and streams its answer back."""
        target = self.server.mcp_upstream + self.path[len("/mcp-iam"):]
        forwarded = {name: value for name, value in self.headers.items()
                     if name.lower() in ("accept", "content-type", "mcp-session-id", "mcp-protocol-version", "last-event-id",
                                         "mcp-method", "mcp-name")}
        request = urllib.request.Request(target, data=body or None, method=self.command, headers=forwarded)
        try:
            upstream = urllib.request.urlopen(request, timeout=60)
        except urllib.error.HTTPError as error:
            upstream = error
        self.send_response_only(upstream.status)
        for name, value in upstream.headers.items():
            if name.lower() not in ("transfer-encoding", "content-length", "connection", "date", "server"):
                self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        while True:
            chunk = upstream.read1(1 << 16) if hasattr(upstream, "read1") else upstream.read(1 << 16)
            if not chunk:
                break
            self.wfile.write(chunk)
            self.wfile.flush()

    # -- AWS_IAM -------------------------------------------------------------------------
    def check_iam(self, body, body_sha256):
        authorization = self.headers.get("Authorization", "")
        if not authorization.startswith("AWS4-HMAC-SHA256 "):
            return 403, "Missing Authentication Token", {"x-amzn-ErrorType": "MissingAuthenticationTokenException"}
        fields = dict(part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
        key_id, date, region, service, _ = fields["Credential"].split("/")
        secret = self.server.keys.get(key_id)
        if secret is None:
            return 403, "The security token included in the request is invalid.", {"x-amzn-ErrorType": "UnrecognizedClientException"}
        amz_date = self.headers.get("X-Amz-Date", "")
        try:
            signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        except ValueError:
            return 403, MISMATCH, {"x-amzn-ErrorType": "InvalidSignatureException"}
        current = now(self.server.clock_offset)
        if abs((current - signed_at).total_seconds()) > 300:
            stamp = current.strftime("%Y%m%dT%H%M%SZ")
            limit = (current - datetime.timedelta(minutes=5)).strftime("%Y%m%dT%H%M%SZ")
            return 403, f"Signature expired: {amz_date} is now earlier than {limit} ({stamp} - 5 min.)", \
                {"x-amzn-ErrorType": "InvalidSignatureException"}
        expected_hash = self.headers.get("X-Amz-Content-SHA256")
        streaming = (expected_hash or "").startswith("STREAMING-")
        if expected_hash and not streaming and expected_hash not in ("UNSIGNED-PAYLOAD",) and expected_hash != body_sha256:
            return 400, "The provided x-amz-content-sha256 header does not match what was computed."
        signed = fields["SignedHeaders"].split(";")
        request = AWSRequest(method=self.command, url=f"http://{self.headers.get('Host')}{self.path}",
                             data=body if body is not None else b"")
        for name, value in self.headers.items():
            if name.lower() in signed:
                request.headers[name] = value
        token = self.headers.get("X-Amz-Security-Token") if "x-amz-security-token" in signed else None
        with _clock_lock:  # botocore reads the clock through a module global
            botocore.auth.get_current_datetime = lambda: signed_at
            SigV4Auth(Credentials(key_id, secret, token), service, region).add_auth(request)
        if request.headers["Authorization"] != authorization:
            return 403, MISMATCH, {"x-amzn-ErrorType": "InvalidSignatureException"}
        if streaming and body is not None:
            problem = check_aws_chunked(body, self.headers, fields["Signature"], secret, amz_date, f"{date}/{region}/{service}/aws4_request")
            if problem:
                return 400, problem
        return None

    # -- API_KEY -------------------------------------------------------------------------
    def check_api_key(self, body, body_sha256):
        if self.headers.get("x-api-key") not in self.server.api_keys:
            return 403, "Forbidden"
        return None

    # -- JWT (user pools, OIDC) ----------------------------------------------------------
    def check_jwt(self, body, body_sha256):
        from joserfc import jwt
        from joserfc.jwk import KeySet
        token = self.headers.get("Authorization", "")
        token = token[len("Bearer "):] if token.startswith("Bearer ") else token
        if not token:
            return 401, "Unauthorized"
        try:
            if self.server.key_set is None:
                with urllib.request.urlopen(self.server.jwks_url, timeout=5) as response:
                    self.server.key_set = KeySet.import_key_set(json.load(response))
            claims = jwt.decode(token, self.server.key_set).claims
            if claims.get("exp", 0) < now(0).timestamp():
                return 401, "The incoming token has expired"
        except Exception:
            return 401, "Unauthorized"
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", action="append", default=[], help="AKID:SECRET (repeatable)")
    parser.add_argument("--api-key", action="append", default=[])
    parser.add_argument("--jwks-url")
    parser.add_argument("--clock-offset", type=float, default=0.0)
    parser.add_argument("--mcp-upstream", default="", help="the MCP server /mcp-iam/ forwards to")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.keys = dict(pair.split(":", 1) for pair in args.key)
    server.api_keys = set(args.api_key)
    server.jwks_url, server.key_set = args.jwks_url, None
    server.clock_offset = args.clock_offset
    server.flaky = {}
    server.mcp_upstream = args.mcp_upstream
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
