"""A strict stand-in for the EC2 instance metadata service (IMDS) on 127.0.0.1, for what moto's
mock lacks: moto never checks the IMDSv2 token. botocore's own InstanceMetadataProvider is run
against it in the tests to show it is faithful.

The path prefix chooses the behaviour, so one server serves every case (IMDS clients append
`latest/...` to the endpoint, path included):
  /          IMDSv2: `PUT /latest/api/token` with `x-aws-ec2-metadata-token-ttl-seconds`
             (1..21600) hands out a token that expires after that many seconds; every GET must
             carry a live one in `x-aws-ec2-metadata-token`, else 401.
  /v1only/   an IMDS that does not know tokens: the PUT answers 405, GETs need no token.
  /malformed/ as `/`, but the credentials document is not JSON.
  /silent/   accepts the connection and never answers (a timeout).
Control: `POST /_peer/revoke` forgets every token (the next GET with one gets 401);
`GET /_peer/stats` answers the counts of token PUTs and GETs as JSON.
"""
import argparse
import datetime
import json
import secrets
import threading
import time
from http.server import ThreadingHTTPServer

from peer_http import QuietHandler

ROLE = "multiauth-instance-role"


class Handler(QuietHandler):
    def split(self):
        for prefix in ("/v1only/", "/malformed/", "/silent/"):
            if self.path.startswith(prefix):
                return prefix.strip("/"), "/" + self.path[len(prefix):]
        return "strict", self.path

    def do_PUT(self):
        mode, path = self.split()
        self.server.count("put")
        if mode == "silent":
            return time.sleep(3600)
        if path != "/latest/api/token":
            return self.reply(404, b"")
        if mode == "v1only":
            return self.reply(405, b"")
        try:
            ttl = int(self.headers.get("x-aws-ec2-metadata-token-ttl-seconds", ""))
        except ValueError:
            return self.reply(400, b"")
        if not 1 <= ttl <= 21600:
            return self.reply(400, b"")
        token = "imds-token-" + secrets.token_hex(16)
        with self.server.lock:
            self.server.tokens[token] = time.time() + ttl
        self.reply(200, token.encode(), {"x-aws-ec2-metadata-token-ttl-seconds": str(ttl)})

    def do_POST(self):
        if self.path == "/_peer/revoke":
            with self.server.lock:
                self.server.tokens.clear()
            return self.reply(200, b"{}")
        self.reply(404, b"")

    def do_GET(self):
        if self.path == "/_peer/stats":
            with self.server.lock:
                return self.reply(200, json.dumps(self.server.counts).encode())
        mode, path = self.split()
        self.server.count("get")
        if mode == "silent":
            return time.sleep(3600)
        if mode != "v1only" and not self.token_is_live():
            return self.reply(401, b"")
        if path == "/latest/meta-data/placement/region":
            return self.reply(200, self.server.region.encode())
        if path == "/latest/meta-data/iam/security-credentials/":
            return self.reply(200, ROLE.encode())
        if path == "/latest/meta-data/iam/security-credentials/" + ROLE:
            if mode == "malformed":
                return self.reply(200, b"<html>not credentials</html>")
            return self.reply(200, self.document(mode))
        self.reply(404, b"")

    def token_is_live(self):
        token = self.headers.get("x-aws-ec2-metadata-token")
        with self.server.lock:
            expiry = self.server.tokens.get(token)
        return expiry is not None and expiry > time.time()

    def document(self, mode):
        expiration = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=6)
        return json.dumps({
            "Code": "Success", "Type": "AWS-HMAC", "AccessKeyId": self.server.key_id,
            "SecretAccessKey": self.server.secret, "Token": "imds-session-token-" + mode,
            "Expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "LastUpdated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }).encode()

    def reply(self, status, body, headers=None):
        self.send_body(status, body, {"Content-Type": "text/plain", **(headers or {})})


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, key, region):
        super().__init__(address, Handler)
        self.key_id, self.secret = key.split(":", 1)
        self.region = region
        self.tokens = {}
        self.counts = {"put": 0, "get": 0}
        self.lock = threading.Lock()

    def count(self, what):
        with self.lock:
            self.counts[what] += 1


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True, help="KEY_ID:SECRET handed out (one the API server knows)")
    parser.add_argument("--region", default="eu-west-3")
    args = parser.parse_args()
    Server(("127.0.0.1", args.port), args.key, args.region).serve_forever()


if __name__ == "__main__":
    main()
