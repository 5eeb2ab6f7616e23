#!/usr/bin/env python3
"""A Kubernetes API stand-in that authenticates as EKS does, over HTTPS (kubectl runs an exec
plugin only for an https server). Every request must carry `Authorization: Bearer
k8s-aws-v1.<base64url of a presigned STS GetCallerIdentity URL>`; the stub decodes it and
recomputes the URL's query signature with botocore's own SigV4QueryAuth from the secret it
knows (--key AKID:SECRET), checking that `x-k8s-aws-id` (the cluster, --cluster) is signed,
that X-Amz-Expires is 60 and that the URL is not expired. A good token gets GET /version's
JSON (what `kubectl version` asks for); any other gets 401 with a Kubernetes Status. Every
decision is recorded: GET /_peer/auth lists them (no token text).
Usage: eks_api_server.py --port N --tls-cert PEM --tls-key PEM --key AKID:SECRET --cluster NAME
"""
import argparse
import base64
import datetime
import json
import ssl
import threading
from http.server import ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

import botocore.auth
from botocore.auth import SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from peer_http import QuietHandler

PREFIX = "k8s-aws-v1."
decisions = []
lock = threading.Lock()


def check(token, keys, cluster):
    """Returns None when `token` is a valid EKS token for `cluster`, else why not."""
    if not token.startswith(PREFIX):
        return "no k8s-aws-v1 token"
    encoded = token[len(PREFIX):]
    url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    if query.get("Action") != "GetCallerIdentity" or query.get("X-Amz-Expires") != "60":
        return "not a 60-second GetCallerIdentity URL"
    if query.get("X-Amz-SignedHeaders") != "host;x-k8s-aws-id":
        return "x-k8s-aws-id is not signed"
    key_id, _, region, service, _ = query["X-Amz-Credential"].split("/")
    if key_id not in keys or service != "sts" or parts.netloc != f"sts.{region}.amazonaws.com":
        return "unknown key or endpoint"
    signed_at = datetime.datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    age = (datetime.datetime.now(datetime.timezone.utc) - signed_at).total_seconds()
    if not -300 <= age <= 60 + 300:
        return "expired"
    unsigned = {k: v for k, v in query.items() if not k.startswith("X-Amz-")}
    request = AWSRequest(method="GET", url=f"https://{parts.netloc}/", params=unsigned, headers={"x-k8s-aws-id": cluster})
    token_value = query.get("X-Amz-Security-Token")
    with lock:  # botocore reads the clock through a module global
        botocore.auth.get_current_datetime = lambda: signed_at.replace(tzinfo=None)
        SigV4QueryAuth(Credentials(key_id, keys[key_id], token_value), "sts", region, expires=60).add_auth(request)
    expected = dict(parse_qsl(urlsplit(request.url).query)).get("X-Amz-Signature")
    return None if expected == query["X-Amz-Signature"] else "signature mismatch"


class Handler(QuietHandler):
    def do_GET(self):
        if self.path == "/_peer/auth":
            with lock:
                return self.send_json(200, list(decisions))
        header = self.headers.get("Authorization", "")
        problem = check(header[len("Bearer "):], self.server.keys, self.server.cluster) if header.startswith("Bearer ") \
            else "no bearer token"
        with lock:
            decisions.append(problem or "ok")
        if problem:
            return self.send_json(401, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": "Unauthorized",
                                        "reason": "Unauthorized", "code": 401})
        if self.path.split("?")[0] == "/version":
            return self.send_json(200, {"major": "1", "minor": "31", "gitVersion": "v1.31.0-eks-stub", "platform": "linux/amd64"})
        self.send_json(404, {"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--tls-cert", required=True)
    parser.add_argument("--tls-key", required=True)
    parser.add_argument("--key", action="append", default=[])
    parser.add_argument("--cluster", required=True)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.keys = dict(pair.split(":", 1) for pair in arguments.key)
    server.cluster = arguments.cluster
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(arguments.tls_cert, arguments.tls_key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.serve_forever()
