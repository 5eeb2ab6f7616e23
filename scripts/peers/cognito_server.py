"""A stand-in for Cognito user pools on 127.0.0.1, for what moto lacks: remembered devices
(ConfirmDevice, UpdateDeviceStatus, ForgetDevice, DEVICE_SRP_AUTH, DEVICE_PASSWORD_VERIFIER,
DEVICE_KEY on refresh), and a server that checks every proof. pycognito (user and device SRP)
and boto3 are run against it in the tests to show it is faithful.

It speaks Cognito's JSON protocol (`X-Amz-Target: AWSCognitoIdentityProviderService.*`) for
one pool (--pool-id) and one app client without a secret (--client-id):
- USER_SRP_AUTH: PASSWORD_VERIFIER with B = k·v + gᵇ from a verifier made at user creation;
  the claim signature is recomputed from S = (A·vᵘ)ᵇ, the HKDF key and the secret block;
- then, in this order: DEVICE_SRP_AUTH when DEVICE_KEY names a remembered device of the user
  (MFA is skipped), else SOFTWARE_TOKEN_MFA for users with TOTP (codes checked with the
  `cryptography` package; a code is accepted once), else tokens;
- tokens (RS256 JWTs, JWKS at /POOL/.well-known/jwks.json) carry NewDeviceMetadata when the
  sign-in did not use a remembered device; ConfirmDevice stores the device's verifier and
  answers UserConfirmationNecessary = true (the pool's "user opt-in" setting), so a device is
  remembered only after UpdateDeviceStatus; ForgetDevice removes it;
- REFRESH_TOKEN_AUTH refuses a refresh token issued to a device unless DEVICE_KEY names it;
- users may have SMS and email MFA too (SELECT_MFA_TYPE when they have several; codes go to
  an outbox that `POST /_peer/outbox` {username} reads), secret words for CUSTOM_AUTH (one
  CUSTOM_CHALLENGE round per word), and USER_AUTH's choice of first factor (PASSWORD,
  PASSWORD_SRP, EMAIL_OTP, SMS_OTP; SELECT_CHALLENGE with AvailableChallenges);
- passwordless sign-up: SignUp (an email attribute; the code goes to the outbox), ConfirmSignUp
  answering a Session, and USER_AUTH with that Session signing the user in at once;
- passkeys (cognito_passkeys.py): StartWebAuthnRegistration, CompleteWebAuthnRegistration,
  ListWebAuthnCredentials, DeleteWebAuthnCredential, and USER_AUTH's WEB_AUTHN first factor,
  each checked by the `fido2` package's relying-party verification;
- sessions last 180 s; `POST /_peer/expire-sessions` {username} ends that user's sessions at once
  (for the tests; one user's only, so tests running side by side do not end each other's).
Control: `POST /_peer/users` {username, password, totp, sms, email, custom, unknown_challenge} creates a user
and answers its TOTP secret; `GET /_peer/devices?username=U` lists the user's devices and their status.
"""
import argparse
import base64
import datetime
import hashlib
import hmac
import json
import secrets
import threading
import time
from http.server import ThreadingHTTPServer

from cryptography.hazmat.primitives.hashes import SHA1
from cryptography.hazmat.primitives.twofactor import InvalidToken
from cryptography.hazmat.primitives.twofactor.totp import TOTP
from joserfc import jwt
from joserfc.jwk import RSAKey
from cognito_passkeys import PasskeyError, Passkeys
from peer_http import QuietHandler
from pycognito.aws_srp import N_HEX  # the RFC 3526 3072-bit prime: a constant, not an algorithm

N = int(N_HEX, 16)
G = 2
SESSION_SECONDS = 180


def pad(number):
    """Cognito's padding: minimal big-endian hex, a leading 00 when the top bit is set."""
    text = format(number, "x")
    if len(text) % 2:
        text = "0" + text
    elif text[0] in "89abcdef":
        text = "00" + text
    return text


def pad_hex(text):
    if len(text) % 2:
        text = "0" + text
    elif text[0].lower() in "89abcdef":
        text = "00" + text
    return text


def h(hex_text):
    return hashlib.sha256(bytes.fromhex(hex_text)).hexdigest()


K = int(h(pad(N) + pad(G)), 16)


def verifier(salt_hex, identity):
    """v = g^x with x = H(pad(salt) ‖ H(identity)), identity = name ‖ ":" ‖ password."""
    x = int(h(pad_hex(salt_hex) + hashlib.sha256(identity.encode()).hexdigest()), 16)
    return pow(G, x, N)


def claim_key(a_hex, b_secret, big_b, v):
    big_a = int(a_hex, 16)
    if big_a % N == 0:
        raise ValueError("A = 0")
    u = int(h(pad(big_a) + pad(big_b)), 16)
    s = pow(big_a * pow(v, u, N), b_secret, N)
    prk = hmac.new(bytes.fromhex(pad(u)), bytes.fromhex(pad(s)), hashlib.sha256).digest()
    return hmac.new(prk, b"Caldera Derived Key\x01", hashlib.sha256).digest()[:16]


class CognitoError(Exception):
    def __init__(self, kind, message, status=400):
        super().__init__(message)
        self.kind, self.message, self.status = kind, message, status


class Pool:
    def __init__(self, pool_id, client_id, issuer, rp_id):
        self.pool_id, self.client_id, self.issuer = pool_id, client_id, issuer
        self.passkeys = Passkeys(rp_id)
        self.pool_name = pool_id.split("_", 1)[1]
        self.key = RSAKey.generate_key(2048, parameters={"kid": "peer-key", "alg": "RS256", "use": "sig"})
        self.users, self.sessions, self.refresh_tokens, self.access_tokens, self.outbox = {}, {}, {}, {}, {}
        self.lock = threading.Lock()

    # --- users and devices ---

    def create_user(self, username, password, totp, sms=False, email=False, custom=None, unknown_challenge=False):
        salt = secrets.token_hex(16)
        user = {"salt": salt, "v": verifier(salt, self.pool_name + username + ":" + password), "sub": secrets.token_hex(16),
                "password": password, "totp": base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=") if totp else None,
                "sms": sms, "email": email, "custom": custom or [], "last_totp_step": None, "devices": {},
                # The user is asked a challenge no client knows (FUTURE_CHALLENGE).
                "unknown_challenge": unknown_challenge}
        self.users[username] = user
        return {"username": username, "totp_secret": user["totp"]}

    def user(self, username):
        if username not in self.users:
            raise CognitoError("UserNotFoundException", "User does not exist.")
        return self.users[username]

    # --- sessions ---

    def new_session(self, **state):
        session = secrets.token_urlsafe(48)
        self.sessions[session] = dict(state, expires=time.time() + SESSION_SECONDS)
        return session

    def take_session(self, session, stage):
        state = self.sessions.pop(session or "", None)
        if state is None or state["expires"] < time.time():
            raise CognitoError("NotAuthorizedException", "Invalid session for the user, session is expired.")
        if state["stage"] != stage:
            raise CognitoError("NotAuthorizedException", "Invalid session for the user.")
        return state

    # --- tokens ---

    def tokens(self, username, device_key, new_device):
        user = self.users[username]
        now = int(time.time())
        claims = {"sub": user["sub"], "iss": self.issuer, "iat": now, "exp": now + 3600, "auth_time": now}
        access = dict(claims, token_use="access", client_id=self.client_id, username=username, scope="aws.cognito.signin.user.admin")
        if device_key:
            access["device_key"] = device_key
        identity = dict(claims, token_use="id", aud=self.client_id, **{"cognito:username": username})
        header = {"alg": "RS256", "kid": "peer-key"}
        access_token = jwt.encode(header, access, self.key)
        refresh = secrets.token_urlsafe(64)
        self.refresh_tokens[refresh] = (username, device_key)
        self.access_tokens[access_token] = username
        result = {"AccessToken": access_token, "IdToken": jwt.encode(header, identity, self.key), "RefreshToken": refresh,
                  "ExpiresIn": 3600, "TokenType": "Bearer"}
        if new_device:
            key = f"{self.pool_id.split('_')[0]}_{secrets.token_hex(16)}"
            group = "-" + secrets.token_hex(8)
            user["devices"][key] = {"group": group, "status": "new", "v": None, "salt": None}
            result["NewDeviceMetadata"] = {"DeviceKey": key, "DeviceGroupKey": group}
        return {"AuthenticationResult": result, "ChallengeParameters": {}}

    def username_for(self, access_token):
        username = self.access_tokens.get(access_token)
        if username is None:
            raise CognitoError("NotAuthorizedException", "Invalid Access Token")
        return username

    # --- the auth flows ---

    def initiate_auth(self, body):
        parameters = body.get("AuthParameters", {})
        flow = body.get("AuthFlow")
        if flow == "USER_SRP_AUTH":
            return self.password_verifier(parameters.get("USERNAME", ""), parameters)
        if flow == "CUSTOM_AUTH":
            username = parameters.get("USERNAME", "")
            if not self.user(username)["custom"]:
                raise CognitoError("NotAuthorizedException", "Custom authentication is not set up for this user.")
            return self.custom_round(username, 0)
        if flow == "USER_AUTH":
            username = parameters.get("USERNAME", "")
            user = self.user(username)
            if body.get("Session"):
                # Sign-in after sign-up: ConfirmSignUp's session stands for the first factor.
                if self.take_session(body["Session"], "SIGN_UP_CONFIRMED")["username"] != username:
                    raise CognitoError("NotAuthorizedException", "Invalid session for the user.")
                return self.tokens(username, None, new_device=True)
            if parameters.get("PREFERRED_CHALLENGE"):
                return self.first_factor(username, parameters["PREFERRED_CHALLENGE"], parameters)
            available = ["PASSWORD", "PASSWORD_SRP"] + (["EMAIL_OTP"] if user["email"] else []) + (["SMS_OTP"] if user["sms"] else []) \
                + (["WEB_AUTHN"] if self.passkeys.has(username) else [])
            session = self.new_session(stage="SELECT_CHALLENGE", username=username, available=available)
            return {"ChallengeName": "SELECT_CHALLENGE", "Session": session, "ChallengeParameters": {}, "AvailableChallenges": available}
        if flow in ("REFRESH_TOKEN_AUTH", "REFRESH_TOKEN"):
            owner = self.refresh_tokens.get(parameters.get("REFRESH_TOKEN"))
            if owner is None:
                raise CognitoError("NotAuthorizedException", "Invalid Refresh Token")
            username, device_key = owner
            if device_key and parameters.get("DEVICE_KEY") != device_key:
                raise CognitoError("NotAuthorizedException", "Invalid Refresh Token")
            result = self.tokens(username, device_key, new_device=False)
            del result["AuthenticationResult"]["RefreshToken"]
            return result
        raise CognitoError("InvalidParameterException", f"AuthFlow {flow} is not supported by this peer")

    def respond(self, body):
        name, answers = body.get("ChallengeName"), body.get("ChallengeResponses", {})
        if name == "PASSWORD_VERIFIER":
            state = self.take_session(body.get("Session") or self.session_by_block(answers, name), name)
            user = self.user(state["username"])
            key = claim_key(state["a"], state["b"], state["B"], user["v"])
            message = (self.pool_name + state["username"]).encode() + base64.b64decode(state["block"]) + answers.get("TIMESTAMP", "").encode()
            self.check_claim(key, message, answers)
            return self.after_password(state["username"], state.get("device_key") or answers.get("DEVICE_KEY"))
        if name == "DEVICE_SRP_AUTH":
            # pycognito sends no Session here; the JS SDK does: both are accepted.
            username, device_key = answers.get("USERNAME", ""), answers.get("DEVICE_KEY", "")
            if body.get("Session"):
                state = self.take_session(body["Session"], name)
                username = state["username"]
            device = self.remembered_device(username, device_key)
            b = secrets.randbits(1024)
            big_b = (K * device["v"] + pow(G, b, N)) % N
            block = base64.b64encode(secrets.token_bytes(64)).decode()
            session = self.new_session(stage="DEVICE_PASSWORD_VERIFIER", username=username, a=answers.get("SRP_A", "0"), b=b, B=big_b,
                                       block=block, device_key=device_key)
            return {"ChallengeName": "DEVICE_PASSWORD_VERIFIER", "Session": session, "ChallengeParameters": {
                "SALT": device["salt"], "SRP_B": format(big_b, "x"), "SECRET_BLOCK": block, "USERNAME": username,
                "DEVICE_KEY": device_key}}
        if name == "DEVICE_PASSWORD_VERIFIER":
            state = self.take_session(body.get("Session") or self.session_by_block(answers, name), name)
            device = self.remembered_device(state["username"], state["device_key"])
            key = claim_key(state["a"], state["b"], state["B"], device["v"])
            message = (device["group"] + state["device_key"]).encode() + base64.b64decode(state["block"]) + answers.get("TIMESTAMP", "").encode()
            self.check_claim(key, message, answers)
            return self.tokens(state["username"], state["device_key"], new_device=False)
        if name == "SOFTWARE_TOKEN_MFA":
            state = self.take_session(body.get("Session"), name)
            self.check_totp(state["username"], answers.get("SOFTWARE_TOKEN_MFA_CODE", ""))
            return self.tokens(state["username"], None, new_device=True)
        if name in ("SMS_MFA", "EMAIL_OTP"):
            state = self.take_session(body.get("Session"), name)
            self.check_outbox(state["username"], answers.get(name + "_CODE" if name == "SMS_MFA" else "EMAIL_OTP_CODE", ""))
            return self.tokens(state["username"], None, new_device=True)
        if name == "SMS_OTP":
            state = self.take_session(body.get("Session"), name)
            self.check_outbox(state["username"], answers.get("SMS_OTP_CODE", ""))
            return self.tokens(state["username"], None, new_device=True)
        if name == "WEB_AUTHN":
            state = self.take_session(body.get("Session"), name)
            self.passkeys.check_assertion(state["username"], state["webauthn"], answers.get("CREDENTIAL"))
            return self.tokens(state["username"], None, new_device=True)
        if name == "SELECT_CHALLENGE":
            state = self.take_session(body.get("Session"), name)
            if answers.get("ANSWER") not in state["available"]:
                raise CognitoError("InvalidParameterException", "ANSWER must be one of AvailableChallenges")
            return self.first_factor(state["username"], answers["ANSWER"], answers)
        if name == "CUSTOM_CHALLENGE":
            state = self.take_session(body.get("Session"), name)
            words = self.users[state["username"]]["custom"]
            if not hmac.compare_digest(answers.get("ANSWER", ""), words[state["index"]]):
                raise CognitoError("NotAuthorizedException", "Incorrect answer.")
            if state["index"] + 1 < len(words):
                return self.custom_round(state["username"], state["index"] + 1)
            return self.tokens(state["username"], None, new_device=True)
        if name == "SELECT_MFA_TYPE":
            state = self.take_session(body.get("Session"), name)
            if answers.get("ANSWER") not in state["kinds"]:
                raise CognitoError("InvalidParameterException", "ANSWER must be one of MFAS_CAN_CHOOSE")
            return self.mfa_challenge(state["username"], answers["ANSWER"])
        raise CognitoError("InvalidParameterException", f"ChallengeName {name} is not supported by this peer")

    def password_verifier(self, username, values):
        user = self.user(username)
        b = secrets.randbits(1024)
        big_b = (K * user["v"] + pow(G, b, N)) % N
        block = base64.b64encode(secrets.token_bytes(64)).decode()
        session = self.new_session(stage="PASSWORD_VERIFIER", username=username, a=values.get("SRP_A", "0"), b=b, B=big_b,
                                   block=block, device_key=values.get("DEVICE_KEY"))
        return {"ChallengeName": "PASSWORD_VERIFIER", "Session": session, "ChallengeParameters": {
            "SALT": user["salt"], "SRP_B": format(big_b, "x"), "SECRET_BLOCK": block, "USER_ID_FOR_SRP": username,
            "USERNAME": username}}

    def first_factor(self, username, choice, values):
        """USER_AUTH's first factor: a password (plain or SRP), or a one-time code."""
        user = self.user(username)
        if choice == "PASSWORD":
            if not hmac.compare_digest(values.get("PASSWORD", ""), user["password"]):
                raise CognitoError("NotAuthorizedException", "Incorrect username or password.")
            return self.after_password(username, values.get("DEVICE_KEY"))
        if choice == "PASSWORD_SRP":
            return self.password_verifier(username, values)
        if choice == "WEB_AUTHN":
            options, state = self.passkeys.challenge(username)
            session = self.new_session(stage="WEB_AUTHN", username=username, webauthn=state)
            return {"ChallengeName": "WEB_AUTHN", "Session": session,
                    "ChallengeParameters": {"USERNAME": username, "CREDENTIAL_REQUEST_OPTIONS": options}}
        if (choice == "EMAIL_OTP" and user["email"]) or (choice == "SMS_OTP" and user["sms"]):
            return self.mfa_challenge(username, choice)
        raise CognitoError("InvalidParameterException", f"{choice} is not available for this user")

    def custom_round(self, username, index):
        questions = len(self.users[username]["custom"])
        session = self.new_session(stage="CUSTOM_CHALLENGE", username=username, index=index)
        return {"ChallengeName": "CUSTOM_CHALLENGE", "Session": session, "ChallengeParameters": {
            "USERNAME": username, "round": str(index + 1), "question": f"secret word {index + 1} of {questions}"}}

    def session_by_block(self, answers, stage):
        """Cognito's SECRET_BLOCK carries the SRP state, so a verifier answer without the Session
        (pycognito sends none) is matched by the block it returns."""
        for session, state in self.sessions.items():
            if state["stage"] == stage and state["block"] == answers.get("PASSWORD_CLAIM_SECRET_BLOCK"):
                return session
        return None

    def after_password(self, username, device_key):
        user = self.users[username]
        if user.get("unknown_challenge"):
            session = self.new_session(stage="FUTURE_CHALLENGE", username=username)
            return {"ChallengeName": "FUTURE_CHALLENGE", "Session": session, "ChallengeParameters": {"USERNAME": username}}
        if device_key and user["devices"].get(device_key, {}).get("status") == "remembered":
            session = self.new_session(stage="DEVICE_SRP_AUTH", username=username)
            return {"ChallengeName": "DEVICE_SRP_AUTH", "Session": session, "ChallengeParameters": {"USERNAME": username}}
        kinds = [kind for kind, on in (("SOFTWARE_TOKEN_MFA", user["totp"]), ("SMS_MFA", user["sms"]), ("EMAIL_OTP", user["email"])) if on]
        if len(kinds) > 1:
            session = self.new_session(stage="SELECT_MFA_TYPE", username=username, kinds=kinds)
            return {"ChallengeName": "SELECT_MFA_TYPE", "Session": session,
                    "ChallengeParameters": {"USERNAME": username, "MFAS_CAN_CHOOSE": json.dumps(kinds)}}
        if kinds:
            return self.mfa_challenge(username, kinds[0])
        return self.tokens(username, None, new_device=True)

    def mfa_challenge(self, username, kind):
        """The challenge for one factor; SMS and email codes go to the outbox (GET-able by tests)."""
        session = self.new_session(stage=kind, username=username)
        parameters = {"USERNAME": username}
        if kind in ("SMS_MFA", "EMAIL_OTP", "SMS_OTP"):
            self.outbox[username] = format(secrets.randbelow(10**6), "06d")
            parameters["CODE_DELIVERY_DELIVERY_MEDIUM"] = "SMS" if kind.startswith("SMS") else "EMAIL"
            parameters["CODE_DELIVERY_DESTINATION"] = "+*******0100" if kind.startswith("SMS") else "u***@e***"
        return {"ChallengeName": kind, "Session": session, "ChallengeParameters": parameters}

    def check_outbox(self, username, code):
        expected = self.outbox.pop(username, None)
        if expected is None or not hmac.compare_digest(expected, code):
            raise CognitoError("CodeMismatchException", "Invalid code or auth state for the user.")

    def remembered_device(self, username, device_key):
        device = self.user(username)["devices"].get(device_key)
        if device is None or device["status"] != "remembered":
            raise CognitoError("ResourceNotFoundException", "Device does not exist.")
        return device

    @staticmethod
    def check_claim(key, message, answers):
        expected = base64.b64encode(hmac.new(key, message, hashlib.sha256).digest()).decode()
        if not hmac.compare_digest(expected, answers.get("PASSWORD_CLAIM_SIGNATURE", "")):
            raise CognitoError("NotAuthorizedException", "Incorrect username or password.")

    def check_totp(self, username, code):
        user = self.users[username]
        secret = user["totp"] + "=" * (-len(user["totp"]) % 8)
        totp = TOTP(base64.b32decode(secret), 6, SHA1(), 30, enforce_key_length=False)
        now = int(time.time())
        for step_time in (now, now - 30):
            try:
                totp.verify(code.encode(), step_time)
            except InvalidToken:
                continue
            step = step_time // 30
            if user["last_totp_step"] == step:
                raise CognitoError("ExpiredCodeException", "Your software token has already been used once.")
            user["last_totp_step"] = step
            return
        raise CognitoError("CodeMismatchException", "Invalid code received for user")

    # --- devices ---

    def confirm_device(self, body):
        username = self.username_for(body.get("AccessToken"))
        device = self.users[username]["devices"].get(body.get("DeviceKey"))
        config = body.get("DeviceSecretVerifierConfig") or {}
        if device is None:
            raise CognitoError("ResourceNotFoundException", "Device does not exist.")
        device["v"] = int(base64.b64decode(config.get("PasswordVerifier", "")).hex() or "0", 16)
        device["salt"] = base64.b64decode(config.get("Salt", "")).hex()
        device["name"] = body.get("DeviceName")
        device["status"] = "not_remembered"
        return {"UserConfirmationNecessary": True}

    def update_device_status(self, body):
        username = self.username_for(body.get("AccessToken"))
        device = self.users[username]["devices"].get(body.get("DeviceKey"))
        if device is None or device["v"] is None:
            raise CognitoError("ResourceNotFoundException", "Device does not exist.")
        status = body.get("DeviceRememberedStatus")
        if status not in ("remembered", "not_remembered"):
            raise CognitoError("InvalidParameterException", "DeviceRememberedStatus must be remembered or not_remembered")
        device["status"] = status
        return {}

    # --- sign-up ---

    def sign_up(self, body):
        username = body.get("Username", "")
        if not username or username in self.users:
            raise CognitoError("UsernameExistsException", "User already exists")
        attributes = {a.get("Name"): a.get("Value") for a in body.get("UserAttributes") or []}
        if not attributes.get("email"):
            raise CognitoError("InvalidParameterException", "Attributes did not conform to the schema: email: The attribute is required")
        self.create_user(username, body.get("Password") or secrets.token_urlsafe(24), False, email=True)
        self.users[username]["confirmed"] = False
        self.outbox[username] = format(secrets.randbelow(10**6), "06d")
        return {"UserConfirmed": False, "UserSub": self.users[username]["sub"], "Session": self.new_session(stage="SIGN_UP", username=username),
                "CodeDeliveryDetails": {"Destination": "u***@e***", "DeliveryMedium": "EMAIL", "AttributeName": "email"}}

    def confirm_sign_up(self, body):
        username = body.get("Username", "")
        user = self.user(username)
        if user.get("confirmed", True):
            raise CognitoError("NotAuthorizedException", "User cannot be confirmed. Current status is CONFIRMED")
        self.check_outbox(username, body.get("ConfirmationCode", ""))
        user["confirmed"] = True
        return {"Session": self.new_session(stage="SIGN_UP_CONFIRMED", username=username)}

    # --- passkeys ---

    def start_webauthn_registration(self, body):
        username = self.username_for(body.get("AccessToken"))
        return self.passkeys.start_registration(username, self.users[username]["sub"])

    def complete_webauthn_registration(self, body):
        return self.passkeys.complete_registration(self.username_for(body.get("AccessToken")), body.get("Credential"))

    def list_webauthn_credentials(self, body):
        return self.passkeys.list(self.username_for(body.get("AccessToken")))

    def delete_webauthn_credential(self, body):
        return self.passkeys.delete(self.username_for(body.get("AccessToken")), body.get("CredentialId"))

    def forget_device(self, body):
        username = self.username_for(body.get("AccessToken"))
        if self.users[username]["devices"].pop(body.get("DeviceKey"), None) is None:
            raise CognitoError("ResourceNotFoundException", "Device does not exist.")
        return {}


class Handler(QuietHandler):
    def do_GET(self):
        pool = self.server.pool
        if self.path == f"/{pool.pool_id}/.well-known/jwks.json":
            return self.reply(200, {"keys": [pool.key.as_dict(private=False)]})
        if self.path.startswith("/_peer/devices?username="):
            with pool.lock:
                user = pool.users.get(self.path.split("=", 1)[1], {"devices": {}})
                return self.reply(200, {key: device["status"] for key, device in user["devices"].items()})
        self.reply(404, {"message": "not found"})

    def do_POST(self):
        pool = self.server.pool
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        if self.path == "/_peer/users":
            with pool.lock:
                return self.reply(200, pool.create_user(
                    body["username"], body["password"], body.get("totp", False), body.get("sms", False), body.get("email", False),
                    body.get("custom"), body.get("unknown_challenge", False)))
        if self.path == "/_peer/outbox":
            with pool.lock:
                return self.reply(200, {"code": pool.outbox.get(body.get("username"), "")})
        if self.path == "/_peer/expire-sessions":
            if not body.get("username"):
                return self.reply(400, {"message": "expire-sessions needs a username"})
            with pool.lock:
                for state in pool.sessions.values():
                    if state["username"] == body["username"]:
                        state["expires"] = 0
            return self.reply(200, {})
        operation = (self.headers.get("X-Amz-Target") or "").rsplit(".", 1)[-1]
        routes = {"InitiateAuth": pool.initiate_auth, "RespondToAuthChallenge": pool.respond, "ConfirmDevice": pool.confirm_device,
                  "UpdateDeviceStatus": pool.update_device_status, "ForgetDevice": pool.forget_device,
                  "SignUp": pool.sign_up, "ConfirmSignUp": pool.confirm_sign_up,
                  "StartWebAuthnRegistration": pool.start_webauthn_registration,
                  "CompleteWebAuthnRegistration": pool.complete_webauthn_registration,
                  "ListWebAuthnCredentials": pool.list_webauthn_credentials, "DeleteWebAuthnCredential": pool.delete_webauthn_credential}
        try:
            if operation not in routes:
                raise CognitoError("InvalidAction", f"{operation} is not supported by this peer")
            if operation in ("InitiateAuth", "RespondToAuthChallenge", "SignUp", "ConfirmSignUp") and body.get("ClientId") != pool.client_id:
                raise CognitoError("ResourceNotFoundException", "User pool client does not exist.")
            with pool.lock:
                answer = routes[operation](body)
            self.reply(200, answer, {"Content-Type": "application/x-amz-json-1.1"})
        except (CognitoError, PasskeyError) as error:
            self.reply(getattr(error, "status", 400), {"__type": error.kind, "message": error.message},
                       {"Content-Type": "application/x-amz-json-1.1", "x-amzn-ErrorType": error.kind})

    def reply(self, status, document, headers=None):
        self.send_json(status, document, headers)

def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--pool-id", default="us-east-1_MultiAuthPeer")
    parser.add_argument("--client-id", default="peerclient")
    parser.add_argument("--webauthn-rp-id", default="auth.multiauth.test")
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.daemon_threads = True
    server.pool = Pool(args.pool_id, args.client_id, f"http://127.0.0.1:{args.port}/{args.pool_id}", args.webauthn_rp_id)
    server.serve_forever()


if __name__ == "__main__":
    main()
