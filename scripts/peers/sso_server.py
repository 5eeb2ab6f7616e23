"""A stand-in for IAM Identity Center on 127.0.0.1: the SSO OIDC service (RegisterClient,
StartDeviceAuthorization, CreateToken with the device-code and refresh-token grants) and the
access portal's GetRoleCredentials, in their REST-JSON wire forms. Neither moto nor any other
peer here serves them. botocore's own SSO provider and sso-oidc client are run against it in
the tests to show it is faithful.

Rules it enforces:
- a client registration expires (`clientSecretExpiresAt`); an expired or unknown one gets
  InvalidClientException;
- a device code is "authorization_pending" on its first CreateToken poll and approved on the
  next (a user approving in the browser); a start URL ending in /denied is refused
  (AccessDeniedException);
- hostile answers, by start URL suffix, for the client's defences: /hostile-uri gets a
  verificationUriComplete of file:///etc/passwd and a verificationUri and user code holding
  a terminal escape; /expired-token gets an access token with expiresIn 0; /slow-interval
  asks for 9,999 s between polls;
- refresh tokens rotate: each one works once, and its use hands out a new one;
- GetRoleCredentials, ListAccounts and ListAccountRoles need a live access token in
  `x-amz-sso_bearer_token`, else UnauthorizedException (401); `expiration` is in milliseconds.
  The two lists answer at most 2 items a page (fewer with a smaller `max_result`) with a
  `nextToken`, so a client must page; the accounts and roles are the token's own, given at
  seeding ("assignments"), else DEFAULT_ASSIGNMENTS.
Control: `POST /_peer/seed` registers a client and tokens given as JSON (to stand for an
earlier login); `GET /_peer/stats` answers counts of calls as JSON, by path and by
"path clientId".
"""
import argparse
import json
import secrets
import threading
import time
import urllib.parse
from http.server import ThreadingHTTPServer

from peer_http import QuietHandler

ACCESS_TOKEN_SECONDS = 8 * 3600
DEFAULT_ASSIGNMENTS = [
    {"accountId": "111111111111", "accountName": "Production Web", "roles": ["AdministratorAccess", "ReadOnly"]},
    {"accountId": "222222222222", "accountName": "dev sandbox", "roles": ["Developer"]},
    {"accountId": "333333333333", "accountName": "Ünïcode & Co", "roles": ["ReadOnly"]},
]
PAGE = 2
CLIENT_SECONDS = 90 * 24 * 3600


class Handler(QuietHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except ValueError:
            return self.error(400, "InvalidRequestException", "invalid_request", "body is not JSON")
        routes = {"/client/register": self.register, "/device_authorization": self.device_authorization,
                  "/token": self.create_token, "/_peer/seed": self.seed}
        route = routes.get(self.path)
        if route is None:
            return self.error(404, "ResourceNotFoundException", "not_found", self.path)
        with self.server.lock:
            # Counted per client too, so tests running side by side can tell their calls apart.
            for key in (self.path, self.path + " " + str(body.get("clientId"))):
                self.server.counts[key] = self.server.counts.get(key, 0) + 1
            route(body)

    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_peer/stats":
            with self.server.lock:
                return self.reply(200, self.server.counts)
        if url.path in ("/assignment/accounts", "/assignment/roles"):
            return self.assignments(url)
        if url.path != "/federation/credentials":
            return self.error(404, "ResourceNotFoundException", "not_found", url.path)
        query = urllib.parse.parse_qs(url.query)
        with self.server.lock:
            token = self.counted_token(url.path)
            if token is None:
                return self.unauthorized()
            self.server.issued += 1
            issued = self.server.issued
        account, role = query.get("account_id", [""])[0], query.get("role_name", [""])[0]
        if not account or not role:
            return self.error(400, "InvalidRequestException", None, "account_id and role_name are required")
        self.reply(200, {"roleCredentials": {
            "accessKeyId": self.server.key_id, "secretAccessKey": self.server.secret,
            "sessionToken": f"sso-session-token-{account}-{role}-{issued}",
            "expiration": int((time.time() + 3600) * 1000),
        }})

    def counted_token(self, path):
        """Counts a portal call to `path` and returns its access token, or None when it is not live
        (called with the lock held)."""
        self.server.counts[path] = self.server.counts.get(path, 0) + 1
        token = self.headers.get("x-amz-sso_bearer_token", "")
        return token if self.server.access_tokens.get(token, 0) > time.time() else None

    def unauthorized(self):
        return self.error(401, "UnauthorizedException", None, "Session token not found or invalid")

    def assignments(self, url):
        """ListAccounts and ListAccountRoles, a page at a time."""
        query = urllib.parse.parse_qs(url.query)
        with self.server.lock:
            token = self.counted_token(url.path)
            if token is None:
                return self.unauthorized()
            owned = self.server.assignments.get(token, DEFAULT_ASSIGNMENTS)
        if url.path == "/assignment/accounts":
            items = [{"accountId": a["accountId"], "accountName": a["accountName"], "emailAddress": "owner@example.com"} for a in owned]
            key = "accountList"
        else:
            account = query.get("account_id", [""])[0]
            if not account:
                return self.error(400, "InvalidRequestException", None, "account_id is required")
            items = [{"roleName": role, "accountId": account} for a in owned if a["accountId"] == account for role in a["roles"]]
            key = "roleList"
        start = int(query.get("next_token", ["0"])[0] or 0)
        size = min(PAGE, int(query.get("max_result", [str(PAGE)])[0]))
        page = {key: items[start:start + size]}
        if start + size < len(items):
            page["nextToken"] = str(start + size)
        self.reply(200, page)

    # --- SSO OIDC (called with the lock held) ---

    def register(self, body):
        if not body.get("clientName") or body.get("clientType") != "public":
            return self.error(400, "InvalidRequestException", "invalid_request", "clientName and clientType public are required")
        client_id, secret = "client-" + secrets.token_hex(8), "secret-" + secrets.token_hex(16)
        expires = int(time.time()) + CLIENT_SECONDS
        self.server.clients[client_id] = (secret, expires)
        self.reply(200, {"clientId": client_id, "clientSecret": secret, "clientIdIssuedAt": int(time.time()),
                         "clientSecretExpiresAt": expires})

    def device_authorization(self, body):
        if not self.client_is_valid(body):
            return self.error(400, "InvalidClientException", "invalid_client", "unknown or expired client")
        code, user_code = "device-" + secrets.token_hex(12), secrets.token_hex(4).upper()
        self.server.devices[code] = {"client": body["clientId"], "polls": 0, "start_url": body.get("startUrl", ""),
                                     "expires": time.time() + 600}
        uri = f"http://127.0.0.1:{self.server.server_port}/start/#/device"
        answer = {"deviceCode": code, "userCode": user_code, "verificationUri": uri,
                  "verificationUriComplete": uri + "?user_code=" + user_code, "expiresIn": 600, "interval": 1}
        start_url = body.get("startUrl", "")
        if start_url.endswith("/hostile-uri"):
            answer.update(verificationUri=uri + "\x1b[2J", userCode=user_code + "\x1b[31m", verificationUriComplete="file:///etc/passwd")
        elif start_url.endswith("/slow-interval"):
            answer["interval"] = 9999
        self.reply(200, answer)

    def create_token(self, body):
        if not self.client_is_valid(body):
            return self.error(400, "InvalidClientException", "invalid_client", "unknown or expired client")
        grant = body.get("grantType")
        if grant == "urn:ietf:params:oauth:grant-type:device_code":
            device = self.server.devices.get(body.get("deviceCode"))
            if device is None or device["client"] != body["clientId"] or device["expires"] < time.time():
                return self.error(400, "ExpiredTokenException", "expired_token", "unknown or expired device code")
            if device["start_url"].endswith("/denied"):
                return self.error(400, "AccessDeniedException", "access_denied", "the user denied the request")
            device["polls"] += 1
            if device["polls"] == 1:
                return self.error(400, "AuthorizationPendingException", "authorization_pending", None)
            del self.server.devices[body["deviceCode"]]
            if device["start_url"].endswith("/expired-token"):
                tokens = self.tokens_for(body["clientId"])
                return self.reply(200, dict(tokens, expiresIn=0))
        elif grant == "refresh_token":
            owner = self.server.refresh_tokens.pop(body.get("refreshToken"), None)
            if owner != body["clientId"]:
                return self.error(400, "InvalidGrantException", "invalid_grant", "unknown or used refresh token")
        else:
            return self.error(400, "UnsupportedGrantTypeException", "unsupported_grant_type", None)
        self.reply(200, self.tokens_for(body["clientId"]))

    def tokens_for(self, client_id):
        access, refresh = "sso-access-" + secrets.token_hex(16), "sso-refresh-" + secrets.token_hex(16)
        self.server.access_tokens[access] = time.time() + ACCESS_TOKEN_SECONDS
        self.server.refresh_tokens[refresh] = client_id
        return {"accessToken": access, "tokenType": "Bearer", "expiresIn": ACCESS_TOKEN_SECONDS, "refreshToken": refresh}

    def client_is_valid(self, body):
        secret, expires = self.server.clients.get(body.get("clientId"), (None, 0))
        return secret is not None and secret == body.get("clientSecret") and expires > time.time()

    def seed(self, body):
        self.server.clients[body["clientId"]] = (body["clientSecret"], time.time() + body.get("clientExpiresIn", CLIENT_SECONDS))
        self.server.access_tokens[body["accessToken"]] = time.time() + body.get("accessExpiresIn", ACCESS_TOKEN_SECONDS)
        self.server.refresh_tokens[body["refreshToken"]] = body["clientId"]
        if "assignments" in body:
            self.server.assignments[body["accessToken"]] = body["assignments"]
        self.reply(200, {})

    def error(self, status, kind, oauth_error, description):
        body = {"error": oauth_error, "error_description": description} if oauth_error else {"message": description}
        self.reply(status, body, {"x-amzn-ErrorType": kind})

    def reply(self, status, document, headers=None):
        self.send_json(status, document, headers)

class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address, key):
        super().__init__(address, Handler)
        self.key_id, self.secret = key.split(":", 1)
        self.lock = threading.Lock()
        self.clients, self.devices, self.access_tokens, self.refresh_tokens = {}, {}, {}, {}
        self.counts = {}
        self.assignments = {}
        self.issued = 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--key", required=True, help="KEY_ID:SECRET handed out as role credentials")
    args = parser.parse_args()
    Server(("127.0.0.1", args.port), args.key).serve_forever()


if __name__ == "__main__":
    main()
