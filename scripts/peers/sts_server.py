#!/usr/bin/env python3
"""An STS stand-in that checks what moto does not: every request's SigV4 signature is
recomputed with botocore (from the secret of --key AKID:SECRET, or of a session this server
issued, with its token), the signing time must be within 5 minutes, and MFA parameters are
checked (--mfa SERIAL=CODE: the one code that device accepts). It serves AssumeRole,
GetSessionToken, GetFederationToken (long-term keys only; Name and a JSON Policy checked) and
GetCallerIdentity and GetWebIdentityToken over STS's query API (form POST, XML answers, STS's error codes), issues
random ASIA session keys that expire after DurationSeconds (900 to 43200, default 3600; up to
129600 and by default 43200 for GetFederationToken), and records every call, refused ones too.

GetWebIdentityToken (outbound identity federation) signs a JWT for the caller: `sub` its ARN,
`aud` the Audience.member.N values (1 to 10; a string for one), `iss` this server, RS256 (a
2048-bit RSA key) or ES384 (P-384) as SigningAlgorithm asks, lasting DurationSeconds (60 to
3600, default 300). The keys are made at start; GET /.well-known/jwks.json and
/.well-known/openid-configuration publish them, as the account's issuer does.

AssumeRoleWithSAML is served unsigned, as STS does, by saml_peer.py: the assertion's XML
signature is verified by xmlsec1 against the metadata of --saml-provider ARN=METADATA_URL.

GET /federation is the sign-in service's federation endpoint (federation_peer.py): sign-in
tokens for the sessions issued here, and the console login redirect.

With --roles-anywhere-port, IAM Roles Anywhere's CreateSession is served over HTTPS on that port
(rolesanywhere_peer.py checks it): its sessions are issued from the same keys, so STS accepts them.

POST /v1/token is the sign-in service's CreateOAuth2Token refresh for `aws login` sessions
(signin_peer.py checks DPoP proofs and rotates refresh tokens); POST /_peer/login-session with
{"jwk": {...}, "revoked": bool} makes a session bound to that key and returns its refresh token
and client id.

GET /_peer/calls?FIELD=VALUE lists the recorded calls whose FIELD equals VALUE (fields:
action, role_arn, session_name, serial, key_id, outcome, duration): what tests count.
Prints "listening PORT" once ready.
"""
import argparse
import datetime
import json
import secrets
import ssl
import string
import sys
import threading
import urllib.parse
from http.server import ThreadingHTTPServer

import botocore.auth
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

import federation_peer
import rolesanywhere_peer
import saml_peer
import signin_peer
from cryptography import x509
from peer_http import QuietHandler

ACCOUNT = "123456789012"
_lock = threading.RLock()


def random_text(length, alphabet=string.ascii_uppercase + string.digits):
    return "".join(secrets.choice(alphabet) for _ in range(length))


class Handler(QuietHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path in ("/federation", "/_peer/signin-token"):
            return self.federation(url)
        if url.path == "/.well-known/jwks.json":
            return self.send_json(200, {"keys": [key.as_dict(private=False) for key in self.server.token_keys.values()]})
        if url.path == "/.well-known/openid-configuration":
            issuer = self.server.token_issuer
            return self.send_json(200, {"issuer": issuer, "jwks_uri": issuer + "/.well-known/jwks.json",
                                        "id_token_signing_alg_values_supported": sorted(self.server.token_keys)})
        if url.path == "/v1/authorize":
            with _lock:
                status, headers, body = self.server.signin.authorize(url.query, f"http://{self.headers.get('Host')}")
            return self.send_body(status, body, headers)
        if url.path != "/_peer/calls":
            return self.send_json(404, {"message": "not found"})
        wanted = dict(urllib.parse.parse_qsl(url.query))
        with _lock:
            calls = [call for call in self.server.calls if all(str(call.get(k)) == v for k, v in wanted.items())]
        self.send_json(200, calls)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path == "/v1/token":
            return self.sign_in_refresh(body)
        if self.path == "/_peer/login-session":
            document = json.loads(body)
            with _lock:
                created = self.server.signin.add_session(document["jwk"], ACCOUNT, revoked=document.get("revoked", False))
            return self.send_json(200, created)
        form = dict(urllib.parse.parse_qsl(body.decode()))
        call = {
            "action": form.get("Action"), "role_arn": form.get("RoleArn"), "session_name": form.get("RoleSessionName"),
            "serial": form.get("SerialNumber"), "duration": form.get("DurationSeconds"), "external_id": form.get("ExternalId"),
            "federated_name": form.get("Name"), "policy": form.get("Policy"),
        }
        if call["action"] == "AssumeRoleWithSAML":
            return self.assume_role_with_saml(form, call)
        caller, problem = self.check_signature(body)
        call["key_id"] = caller[0] if caller else None
        if problem is None:
            problem = self.check_mfa(form)
        shortest, longest = (60, 3600) if call["action"] == "GetWebIdentityToken" else (900, 129600 if call["action"] == "GetFederationToken" else 43200)
        if problem is None and call["duration"] is not None and not (shortest <= int(call["duration"]) <= longest):
            problem = (400, "ValidationError", f"DurationSeconds must be between {shortest} and {longest}")
        if problem is None and call["action"] == "GetFederationToken":
            problem = self.check_federation(form, caller)
        call["outcome"] = "ok" if problem is None else problem[1]
        with _lock:
            self.server.calls.append(call)
        if problem is not None:
            return self.error(*problem)
        action = form.get("Action")
        if action == "GetCallerIdentity":
            arn = caller[1] or f"arn:aws:iam::{ACCOUNT}:user/peer"
            return self.xml(action, f"<Arn>{arn}</Arn><UserId>{caller[0]}</UserId><Account>{ACCOUNT}</Account>")
        if action == "GetWebIdentityToken":
            return self.web_identity_token(form, caller)
        if action not in ("AssumeRole", "GetSessionToken", "GetFederationToken"):
            return self.error(400, "InvalidAction", f"Could not find operation {action}")
        arn = None
        if action == "GetFederationToken":
            arn = f"arn:aws:sts::{ACCOUNT}:federated-user/{form['Name']}"
            return self.xml(action, self.issue(int(call["duration"] or 43200), arn, user="FederatedUser", user_id=f"{ACCOUNT}:{form['Name']}"))
        if action == "AssumeRole":
            role = form.get("RoleArn", "")
            arn = f"arn:aws:sts::{ACCOUNT}:assumed-role/{role.rsplit('/', 1)[-1]}/{form.get('RoleSessionName')}"
        self.xml(action, self.issue(int(call["duration"] or 3600), arn))

    def web_identity_token(self, form, caller):
        from joserfc import jwt
        audiences = [value for name, value in sorted(form.items()) if name.startswith("Audience.member.")]
        algorithm = form.get("SigningAlgorithm")
        if not 1 <= len(audiences) <= 10:
            return self.error(400, "ValidationError", "Audience must have 1 to 10 members")
        if algorithm not in self.server.token_keys:
            return self.error(400, "ValidationError", "SigningAlgorithm must be RS256 or ES384")
        now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        expires = now + datetime.timedelta(seconds=int(form.get("DurationSeconds") or 300))
        key = self.server.token_keys[algorithm]
        claims = {"iss": self.server.token_issuer, "sub": caller[1] or f"arn:aws:iam::{ACCOUNT}:user/peer",
                  "aud": audiences[0] if len(audiences) == 1 else audiences, "iat": int(now.timestamp()),
                  "exp": int(expires.timestamp()), "jti": random_text(16)}
        token = jwt.encode({"alg": algorithm, "kid": key.kid, "typ": "JWT"}, claims, key, algorithms=[algorithm])
        self.xml("GetWebIdentityToken", f"<WebIdentityToken>{token}</WebIdentityToken><Expiration>{expires.strftime('%Y-%m-%dT%H:%M:%SZ')}</Expiration>")

    def assume_role_with_saml(self, form, call):
        call.update(role_arn=form.get("RoleArn"), key_id=None)
        try:
            with _lock:
                role, session_name, duration = saml_peer.assume_role_with_saml(
                    form, self.server.saml_providers, self.server.saml_used, datetime.datetime.now(datetime.timezone.utc))
            if not 900 <= duration <= 43200:
                raise saml_peer.Refusal(400, "ValidationError", "DurationSeconds must be between 900 and 43200")
        except saml_peer.Refusal as refusal:
            call["outcome"] = refusal.code
            with _lock:
                self.server.calls.append(call)
            return self.error(refusal.status, refusal.code, refusal.message)
        arn = f"arn:aws:sts::{ACCOUNT}:assumed-role/{role.rsplit('/', 1)[-1]}/{session_name}"
        issued = self.issue(duration, arn)
        call.update(outcome="ok", session_name=session_name, duration=str(duration),
                    key_id=issued.split("<AccessKeyId>", 1)[1].split("<", 1)[0])
        with _lock:
            self.server.calls.append(call)
        self.xml("AssumeRoleWithSAML", issued)

    def sign_in_refresh(self, body):
        with _lock:
            call = {"action": "CreateOAuth2Token", "key_id": None, "role_arn": None, "session_name": self.server.signin.session_of(body)}
        try:
            with _lock:  # one refresh at a time, as the rotation is
                output = self.server.signin.refresh(
                    self.headers, f"http://{self.headers.get('Host')}{self.path}", body,
                    lambda seconds, account: issue_keys(self.server, seconds, f"arn:aws:sts::{account}:assumed-role/console/login")[:3])
        except signin_peer.Refusal as refusal:
            call["outcome"] = refusal.error
            with _lock:
                self.server.calls.append(call)
            return self.send_json(refusal.status, {"error": refusal.error, "message": refusal.message}, {"x-amzn-ErrorType": refusal.code})
        call.update(outcome="ok", key_id=output["accessToken"]["accessKeyId"])
        with _lock:
            self.server.calls.append(call)
        self.send_json(200, output)

    def check_signature(self, body):
        """Returns ((key id, arn), None) or (None, (status, code, message))."""
        authorization = self.headers.get("Authorization", "")
        if not authorization.startswith("AWS4-HMAC-SHA256 "):
            return None, (400, "MissingAuthenticationToken", "Request is missing Authentication Token")
        fields = dict(part.strip().split("=", 1) for part in authorization[len("AWS4-HMAC-SHA256 "):].split(","))
        key_id, _, region, service, _ = fields["Credential"].split("/")
        with _lock:
            known = self.server.keys.get(key_id)
        if known is None:
            return None, (403, "InvalidClientTokenId", "The security token included in the request is invalid.")
        secret, token, arn, expires = known
        if expires is not None and expires < datetime.datetime.now(datetime.timezone.utc):
            return None, (403, "ExpiredToken", "The security token included in the request is expired")
        if token is not None and self.headers.get("X-Amz-Security-Token") != token:
            return None, (403, "InvalidClientTokenId", "The security token included in the request is invalid.")
        amz_date = self.headers.get("X-Amz-Date", "")
        signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        if abs((datetime.datetime.now(datetime.timezone.utc) - signed_at).total_seconds()) > 300:
            return None, (403, "SignatureDoesNotMatch", "Signature expired")
        signed = fields["SignedHeaders"].split(";")
        request = AWSRequest(method="POST", url=f"http://{self.headers.get('Host')}{self.path}", data=body)
        for name, value in self.headers.items():
            if name.lower() in signed:
                request.headers[name] = value
        with _lock:  # botocore reads the clock through a module global
            botocore.auth.get_current_datetime = lambda: signed_at
            SigV4Auth(Credentials(key_id, secret, token), service, region).add_auth(request)
        if request.headers["Authorization"] != authorization:
            return None, (403, "SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
        return (key_id, arn), None

    def check_federation(self, form, caller):
        """GetFederationToken's rules: long-term keys only, a valid Name, a JSON Policy if any."""
        with _lock:
            known = self.server.keys.get(caller[0])
        if known is not None and known[1] is not None:
            return (403, "AccessDenied", "Cannot call GetFederationToken with session credentials")
        name = form.get("Name", "")
        if not (2 <= len(name) <= 32) or any(not (c.isascii() and (c.isalnum() or c in "+=,.@_-")) for c in name):
            return (400, "ValidationError", "Name must be 2 to 32 of [\\w+=,.@-]")
        if form.get("Policy") is not None:
            try:
                policy = json.loads(form["Policy"])
                assert isinstance(policy, dict) and "Statement" in policy
            except (ValueError, AssertionError):
                return (400, "MalformedPolicyDocument", "The policy is not a JSON policy document")
        return None

    def federation(self, url):
        query = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/_peer/signin-token":
            with _lock:
                belongs = federation_peer.token_belongs(query, self.server.signin_tokens)
            return self.send_json(200 if belongs else 403, {"belongs": belongs})
        action = query.get("Action")
        call = {"action": action, "key_id": None, "role_arn": None, "session_name": None, "duration": query.get("SessionDuration")}
        try:
            with _lock:
                if action == "getSigninToken":
                    token, call["key_id"] = federation_peer.get_signin_token(query, self.server.keys, self.server.signin_tokens)
                elif action == "login":
                    destination = federation_peer.login(query, self.server.signin_tokens)
                else:
                    raise federation_peer.Refusal(400, "Action must be getSigninToken or login")
        except federation_peer.Refusal as refusal:
            call["outcome"] = "refused"
            with _lock:
                self.server.calls.append(call)
            return self.send_json(refusal.status, {"message": refusal.message})
        call["outcome"] = "ok"
        with _lock:
            self.server.calls.append(call)
        if action == "login":
            return self.send_body(302, b"", {"Location": destination})
        self.send_json(200, {"SigninToken": token})

    def check_mfa(self, form):
        serial = form.get("SerialNumber")
        if serial is None and form.get("TokenCode") is None:
            return None
        if serial not in self.server.mfa or form.get("TokenCode") != self.server.mfa[serial]:
            return (403, "AccessDenied", "MultiFactorAuthentication failed with invalid MFA one time pass code.")
        return None

    def issue(self, duration, arn, user=None, user_id=None):
        key_id, secret, token, expires = issue_keys(self.server, duration, arn)
        stamp = expires.strftime("%Y-%m-%dT%H:%M:%SZ")
        credentials = (f"<Credentials><AccessKeyId>{key_id}</AccessKeyId><SecretAccessKey>{secret}</SecretAccessKey>"
                       f"<SessionToken>{token}</SessionToken><Expiration>{stamp}</Expiration></Credentials>")
        if user:
            return credentials + f"<{user}><Arn>{arn}</Arn><{user}Id>{user_id}</{user}Id></{user}>"
        if arn:
            credentials += f"<AssumedRoleUser><Arn>{arn}</Arn><AssumedRoleId>AROA{random_text(16)}</AssumedRoleId></AssumedRoleUser>"
        return credentials

    def xml(self, action, inner):
        body = (f'<{action}Response xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><{action}Result>{inner}</{action}Result>'
                f"<ResponseMetadata><RequestId>{random_text(8)}</RequestId></ResponseMetadata></{action}Response>")
        self.send_body(200, body.encode(), {"Content-Type": "text/xml"})

    def error(self, status, code, message):
        body = (f'<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>{code}</Code>'
                f"<Message>{message}</Message></Error><RequestId>{random_text(8)}</RequestId></ErrorResponse>")
        self.send_body(status, body.encode(), {"Content-Type": "text/xml"})


def issue_keys(server, duration, arn):
    key_id, secret, token = "ASIA" + random_text(16), random_text(40, string.ascii_letters + string.digits), random_text(64)
    expires = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0) + datetime.timedelta(seconds=duration)
    with _lock:
        server.keys[key_id] = (secret, token, arn, expires)
    return key_id, secret, token, expires


class RolesAnywhereHandler(QuietHandler):
    """CreateSession over HTTPS; calls are recorded with the STS calls (action CreateSession)."""

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        now = datetime.datetime.now(datetime.timezone.utc)
        call = {"action": "CreateSession", "key_id": None, "role_arn": None, "session_name": None, "duration": None}
        try:  # refused calls are recorded with the role they asked for, so tests can count them
            call["role_arn"] = json.loads(body).get("roleArn")
        except (ValueError, AttributeError):
            pass
        try:
            serial, document = rolesanywhere_peer.create_session(
                "POST", self.path, self.headers, body, self.server.trust_anchors, now)
        except rolesanywhere_peer.Refusal as refusal:
            call["outcome"] = refusal.code + ": " + refusal.message
            self.record(call)
            return self.send_json(refusal.status, {"message": refusal.message}, {"x-amzn-ErrorType": refusal.code})
        role_arn, session_name = document["roleArn"], document.get("roleSessionName") or serial
        call.update(key_id=serial, role_arn=role_arn, session_name=document.get("roleSessionName"),
                    duration=str(document.get("durationSeconds", 3600)), outcome="ok")
        self.record(call)
        arn = f"arn:aws:sts::{ACCOUNT}:assumed-role/{role_arn.rsplit('/', 1)[-1]}/{session_name}"
        key_id, secret, token, expires = issue_keys(self.server.sts, int(call["duration"]), arn)
        self.send_json(201, rolesanywhere_peer.session_answer(key_id, secret, token, expires, role_arn, session_name))

    def record(self, call):
        with _lock:
            self.server.sts.calls.append(call)


def serve_roles_anywhere(sts, args):
    server = ThreadingHTTPServer(("127.0.0.1", args.roles_anywhere_port), RolesAnywhereHandler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.tls_cert, args.tls_key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.sts = sts
    server.trust_anchors = {}
    for pair in args.trust_anchor:
        arn, path = pair.split("=", 1)
        with open(path, "rb") as pem:
            server.trust_anchors[arn] = x509.load_pem_x509_certificate(pem.read())
    threading.Thread(target=server.serve_forever, daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", action="append", default=[], help="AKID:SECRET (repeatable)")
    parser.add_argument("--mfa", action="append", default=[], help="SERIAL=CODE (repeatable)")
    parser.add_argument("--roles-anywhere-port", type=int, help="serve CreateSession over HTTPS on this port")
    parser.add_argument("--tls-cert")
    parser.add_argument("--tls-key")
    parser.add_argument("--trust-anchor", action="append", default=[], help="ARN=CA_PEM_PATH (repeatable)")
    parser.add_argument("--saml-provider", action="append", default=[], help="PROVIDER_ARN=METADATA_URL (repeatable)")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.keys = {key_id: (secret, None, None, None) for key_id, secret in (pair.split(":", 1) for pair in args.key)}
    server.mfa = dict(pair.rsplit("=", 1) for pair in args.mfa)
    server.calls = []
    server.signin_tokens = {}
    server.signin = signin_peer.SignIn()
    server.saml_providers = dict(pair.split("=", 1) for pair in args.saml_provider)
    server.saml_used = set()
    from joserfc.jwk import ECKey, RSAKey
    server.token_keys = {"RS256": RSAKey.generate_key(2048, parameters={"alg": "RS256", "use": "sig"}, auto_kid=True),
                         "ES384": ECKey.generate_key("P-384", parameters={"alg": "ES384", "use": "sig"}, auto_kid=True)}
    server.token_issuer = f"http://127.0.0.1:{server.server_address[1]}"
    if args.roles_anywhere_port:
        serve_roles_anywhere(server, args)
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
