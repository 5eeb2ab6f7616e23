"""A stand-in for the ECS/EKS container credentials endpoint on 127.0.0.1. It answers any GET
whose Authorization header equals the current content of --token-file (read on every request,
as the EKS Pod Identity agent checks a rotating token) with a credentials document; a wrong or
missing token gets 401. The key pair handed out is --key (one the verifying API server knows),
with a session token that names the authorization token, so a rotation shows. Paths starting /fail500 always get 500, /malformed a non-JSON answer.
botocore's ContainerProvider is run against it in the tests to show it is faithful."""
import argparse
import datetime
import json
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        self.server.requests += 1
        if self.path.startswith("/fail500"):
            return self.reply(500, b'{"message": "internal error"}')
        with open(self.server.token_file) as file:
            expected = file.read()
        if self.headers.get("Authorization") != expected:
            return self.reply(401, b'{"message": "unauthorized"}')
        if self.path.startswith("/malformed"):
            return self.reply(200, b"<html>not credentials</html>")
        expiration = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(hours=6)
        document = {
            "AccessKeyId": self.server.key_id, "SecretAccessKey": self.server.secret,
            "Token": "container-session-token-" + expected, "AccountId": "123456789012",
            "Expiration": expiration.strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
        self.reply(200, json.dumps(document).encode())

    def reply(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--key", required=True, help="KEY_ID:SECRET handed out (one the API server knows)")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.token_file = args.token_file
    server.requests = 0
    server.key_id, server.secret = args.key.split(":", 1)
    server.serve_forever()


if __name__ == "__main__":
    main()
