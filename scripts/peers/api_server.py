#!/usr/bin/env python3
"""A local API-Gateway-like server that checks authorization the way API Gateway does.

Routes pick the mode, as API Gateway's per-method authorization does:
  /iam/...      AWS_IAM: the signature is recomputed with botocore from the secret this
                server knows (--key AKID:SECRET), over the headers the client signed; a
                mismatch or a signing time more than 5 minutes off gives 403 with API
                Gateway's messages and a Date header.
  /apikey/...   API_KEY: x-api-key must be one of --api-key.
  /jwt/...      Cognito user pools / OIDC: Authorization holds a JWT (raw, or "Bearer ")
                whose RS256 signature verifies against --jwks-url.
  /open/...     no authorization.
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
        check = {"iam": self.check_iam, "apikey": self.check_api_key, "jwt": self.check_jwt}.get(route)
        if check is not None:
            problem = check(body if length <= 1 << 20 else None, digest.hexdigest())
            if problem:
                return self.reply(problem[0], {"message": problem[1]}, problem[2] if len(problem) > 2 else {})
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
        if expected_hash and expected_hash not in ("UNSIGNED-PAYLOAD",) and expected_hash != body_sha256:
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
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.keys = dict(pair.split(":", 1) for pair in args.key)
    server.api_keys = set(args.api_key)
    server.jwks_url, server.key_set = args.jwks_url, None
    server.clock_offset = args.clock_offset
    server.flaky = {}
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
