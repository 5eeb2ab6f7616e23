#!/usr/bin/env python3
"""A Lambda-style authorizer served over HTTP, as the gateway's request authorizers call one:
POST / with API Gateway's event (payload 1.0 REQUEST or TOKEN, or 2.0). The decision comes
from the identity token's first word (the rest makes a test's tokens its own):
  allow-pets-…   1.0 policy allowing GET /authz/pets only, principalId user-1, context tier=gold
  open-…         1.0 policy allowing every route of the API (the load bench's)
  metered-…      as open-, with usageIdentifierKey gw-key-gold (a key the tests give the gateway)
  unmetered-…    as open-, with usageIdentifierKey gw-key-unknown (a key it does not have)
  deny-…         1.0 policy with an explicit Deny of everything (and an Allow of everything)
  elsewhere-…    1.0 policy allowing another account's API
  garbage-…      200 with a body that is not JSON
  huge-…         200 with 10 MB
  slow-…         waits 30 s
  unauthorized-… 401
  yes-… / no-…   2.0 simple response, isAuthorized true (context tier=silver) or false
GET /_peer/calls?token=T answers {"count": N, "events": [...]} for calls with that token.
Prints "listening PORT" once ready. Usage: authorizer_server.py --port N
"""
import argparse
import json
import sys
import threading
import time
import urllib.parse
from http.server import ThreadingHTTPServer

from peer_http import QuietHandler

calls = []
lock = threading.Lock()
ACCOUNT = "123456789012"


def policy(effect, resource):
    return {"Version": "2012-10-17", "Statement": [{"Action": "execute-api:Invoke", "Effect": effect, "Resource": resource}]}


class Handler(QuietHandler):
    def do_GET(self):
        wanted = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.path).query)).get("token")
        with lock:
            events = [event for token, event in calls if token == wanted]
        self.send_json(200, {"count": len(events), "events": events})

    def do_POST(self):
        event = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
        if event.get("version") == "2.0":
            token = (event.get("identitySource") or [""])[0]
        elif event.get("type") == "TOKEN":
            token = event.get("authorizationToken", "")
        else:
            token = event.get("headers", {}).get("x-token", "")
        with lock:
            calls.append((token, event))
        kind = token.split("-", 1)[0]
        arn = event.get("methodArn") or event.get("routeArn") or ""
        prefix = arn.split("/", 1)[0]
        if kind == "allow":
            return self.send_json(200, {"principalId": "user-1", "policyDocument": policy("Allow", prefix + "/*/GET/authz/pets"),
                                        "context": {"tier": "gold", "level": 3}})
        if kind == "open":
            return self.send_json(200, {"principalId": "bench", "policyDocument": policy("Allow", prefix + "/*")})
        if kind in ("metered", "unmetered"):
            key = "gw-key-gold" if kind == "metered" else "gw-key-unknown"
            return self.send_json(200, {"principalId": "meter", "policyDocument": policy("Allow", prefix + "/*"), "usageIdentifierKey": key})
        if kind == "deny":
            document = policy("Allow", "*")
            document["Statement"].append({"Action": "execute-api:Invoke", "Effect": "Deny", "Resource": prefix + "/*"})
            return self.send_json(200, {"principalId": "user-2", "policyDocument": document})
        if kind == "elsewhere":
            other = prefix.replace(":" + ACCOUNT + ":", ":999999999999:")
            return self.send_json(200, {"principalId": "user-3", "policyDocument": policy("Allow", other + "/*")})
        if kind == "garbage":
            return self.send_body(200, b"this is not an authorizer response", {"Content-Type": "text/plain"})
        if kind == "huge":
            return self.send_body(200, b"x" * (10 << 20), {"Content-Type": "application/json"})
        if kind == "slow":
            time.sleep(30)
            return self.send_json(200, {})
        if kind in ("yes", "no"):
            return self.send_json(200, {"isAuthorized": kind == "yes", "context": {"tier": "silver"}})
        return self.send_json(401, {"message": "Unauthorized"})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
