"""The AWS sign-in service's CreateOAuth2Token refresh (what `aws login` sessions refresh
through), for the STS stand-in (sts_server.py), which serves it at POST /v1/token and issues
its keys, so STS accepts them. No emulator of the service exists; this one checks:
- a DPoP proof (RFC 9449) in the DPoP header: a JWT with typ dpop+jwt, alg ES256 and an EC
  P-256 jwk, whose signature verifies under that jwk (`cryptography`), htm POST, htu this
  request's URL, iat within 5 minutes, and a jti never seen before;
- the jwk is the one the session was bound to (its RFC 7638 thumbprint);
- the refresh token is the session's current one: every refresh rotates it, and a spent or
  revoked one is refused with 401 AccessDeniedException, error TOKEN_EXPIRED, as the service does.
GET /v1/authorize is the sign-in page of `aws login`'s authorization code flow with PKCE: it
checks the request (response_type code, a known client, state, S256 challenge, scope openid,
a loopback redirect for the same-device client or the service's confirmation page for the
cross-device one), signs in a fixed user at once, and redirects with a one-use code (or, for
the cross-device client, shows the base64 of state=…&code=… to paste). Redeeming a code
checks the PKCE verifier, the redirect and a DPoP proof, and binds the new session to its key.
Answers carry the body shapes of botocore's signin model (rest-json, payload tokenInput/tokenOutput).
"""
import base64
import hashlib
import json
import secrets
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


class Refusal(Exception):
    def __init__(self, status, code, error, message):
        super().__init__(message)
        self.status, self.code, self.error, self.message = status, code, error, message


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def thumbprint(jwk):
    canonical = json.dumps({k: jwk[k] for k in ("crv", "kty", "x", "y")}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()


class SignIn:
    """Sessions by refresh token; every answer rotates it."""

    def __init__(self):
        self.sessions = {}   # refresh token -> {"client_id", "jkt", "account_id", "session"}
        self.seen_jti = set()
        self.codes = {}      # authorization code -> {"client_id", "redirect", "challenge"}
        self.revoked = {}    # refresh token -> session id, for recording refusals
        self.spent = {}      # spent refresh token -> session id

    def add_session(self, jwk, account_id, revoked=False):
        refresh = "rt-" + secrets.token_urlsafe(24)
        client_id = "arn:aws:signin:::devtools/same-device"
        session_id = "ls-" + secrets.token_hex(6)
        if not revoked:
            self.sessions[refresh] = {"client_id": client_id, "jkt": thumbprint(jwk), "account_id": account_id, "session": session_id}
        else:
            self.revoked[refresh] = session_id
        return {"refreshToken": refresh, "clientId": client_id, "sessionId": session_id}

    def check_proof(self, proof, url, now):
        try:
            header_b64, payload_b64, signature_b64 = proof.split(".")
            header, payload = json.loads(b64url_decode(header_b64)), json.loads(b64url_decode(payload_b64))
            jwk = header["jwk"]
            if header.get("typ") != "dpop+jwt" or header.get("alg") != "ES256" or jwk.get("kty") != "EC" or jwk.get("crv") != "P-256":
                raise ValueError("header")
            x, y = (int.from_bytes(b64url_decode(jwk[k]), "big") for k in ("x", "y"))
            key = ec.EllipticCurvePublicNumbers(x, y, ec.SECP256R1()).public_key()
            raw = b64url_decode(signature_b64)
            signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
            key.verify(signature, f"{header_b64}.{payload_b64}".encode(), ec.ECDSA(hashes.SHA256()))
        except Exception:
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "Invalid DPoP proof")
        if payload.get("htm") != "POST" or payload.get("htu") != url:
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "DPoP proof is for another request")
        if not isinstance(payload.get("iat"), int) or abs(now - payload["iat"]) > 300:
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "DPoP proof is not current")
        if payload.get("jti") in self.seen_jti or not payload.get("jti"):
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "DPoP proof replayed")
        self.seen_jti.add(payload["jti"])
        return thumbprint(jwk)

    USER = "arn:aws:iam::123456789012:user/console-tester"
    CLIENTS = ("arn:aws:signin:::devtools/same-device", "arn:aws:signin:::devtools/cross-device")

    def authorize(self, query, base):
        """Returns (status, headers, body) for GET /v1/authorize?query."""
        q = dict(urllib.parse.parse_qsl(query))
        redirect = q.get("redirect_uri", "")
        same_device = q.get("client_id") == self.CLIENTS[0]
        loopback = redirect.startswith("http://127.0.0.1:") and redirect.endswith("/oauth/callback")
        if (q.get("response_type") != "code" or q.get("client_id") not in self.CLIENTS or not q.get("state")
                or q.get("code_challenge_method") != "SHA-256" or q.get("scope") != "openid" or len(q.get("code_challenge", "")) != 43
                or not (loopback if same_device else redirect == base + "/v1/sessions/confirmation")):
            return 400, {}, b"invalid authorization request"
        code = "ac-" + secrets.token_urlsafe(18)
        self.codes[code] = {"client_id": q["client_id"], "redirect": redirect, "challenge": q["code_challenge"]}
        if same_device:
            return 302, {"Location": redirect + "?" + urllib.parse.urlencode({"code": code, "state": q["state"]})}, b""
        return 200, {"Content-Type": "text/plain"}, base64.b64encode(urllib.parse.urlencode({"state": q["state"], "code": code}).encode())

    def redeem(self, document, jkt, issue):
        pending = self.codes.pop(document.get("code"), None)
        verifier = document.get("codeVerifier", "")
        challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
        if pending is None:
            raise Refusal(401, "AccessDeniedException", "AUTHCODE_EXPIRED", "The authorization code has expired or was already used")
        if (pending["client_id"] != document.get("clientId") or pending["redirect"] != document.get("redirectUri")
                or pending["challenge"] != challenge):
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "The code does not match this client, redirect or verifier")
        session_id = "ls-" + secrets.token_hex(6)
        key_id, secret, token = issue(900, "123456789012")
        refresh = "rt-" + secrets.token_urlsafe(24)
        self.sessions[refresh] = {"client_id": pending["client_id"], "jkt": jkt, "account_id": "123456789012", "session": session_id}
        claims = base64.urlsafe_b64encode(json.dumps({"sub": self.USER, "sid": session_id}).encode()).rstrip(b"=").decode()
        return {"accessToken": {"accessKeyId": key_id, "secretAccessKey": secret, "sessionToken": token}, "tokenType": "aws_sigv4",
                "expiresIn": 900, "refreshToken": refresh, "idToken": f"eyJhbGciOiJub25lIn0.{claims}.unsigned"}

    def session_of(self, body):
        """The session id a request's refresh token belongs to (current, spent or revoked), if any."""
        try:
            refresh = json.loads(body).get("refreshToken")
        except (ValueError, AttributeError):
            return None
        known = self.sessions.get(refresh)
        return known["session"] if known else self.spent.get(refresh) or self.revoked.get(refresh)

    def refresh(self, headers, url, body, issue):
        """Checks one refresh; returns the tokenOutput body. `issue(seconds, account)` makes keys."""
        jkt = self.check_proof(headers.get("DPoP", ""), url, int(time.time()))
        try:
            document = json.loads(body)
            client_id, grant, refresh = document["clientId"], document["grantType"], document.get("refreshToken")
        except (ValueError, KeyError, TypeError):
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "Malformed token request")
        if grant == "authorization_code":
            return self.redeem(document, jkt, issue)
        if grant != "refresh_token":
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "Unsupported grant type")
        session = self.sessions.pop(refresh, None)
        if session is not None:
            self.spent[refresh] = session["session"]
        if session is None:
            raise Refusal(401, "AccessDeniedException", "TOKEN_EXPIRED", "The refresh token has expired or was already used")
        if session["client_id"] != client_id or session["jkt"] != jkt:
            self.sessions[refresh] = session
            raise Refusal(400, "ValidationException", "INVALID_REQUEST", "Token is not bound to this client or key")
        key_id, secret, token = issue(900, session["account_id"])
        rotated = "rt-" + secrets.token_urlsafe(24)
        self.sessions[rotated] = session
        return {"accessToken": {"accessKeyId": key_id, "secretAccessKey": secret, "sessionToken": token},
                "tokenType": "aws_sigv4", "expiresIn": 900, "refreshToken": rotated}
