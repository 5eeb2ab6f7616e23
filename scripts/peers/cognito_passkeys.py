"""Cognito's passkey operations for the Cognito stand-in (cognito_server.py), which moto lacks:
StartWebAuthnRegistration, CompleteWebAuthnRegistration, ListWebAuthnCredentials and
DeleteWebAuthnCredential, and USER_AUTH's WEB_AUTHN challenge.

The relying party's side is the `fido2` package's Fido2Server: it makes the options, and it
verifies each registration (client data type, challenge, origin, rpIdHash, user presence,
"none" attestation, the COSE key) and each assertion (the same, and the ES256 signature over
authenticator data and the client data hash) as a relying party must. Its acceptance is the
proof that the client built the credential and assertion right. The relying party id is the
pool's (--webauthn-rp-id), and the only origin accepted is https:// followed by it.
"""
import base64
import datetime
import json

from fido2.server import Fido2Server
from fido2.webauthn import PublicKeyCredentialRpEntity, PublicKeyCredentialUserEntity


class PasskeyError(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Passkeys:
    def __init__(self, rp_id):
        self.rp_id = rp_id
        self.server = Fido2Server(PublicKeyCredentialRpEntity(id=rp_id, name="MultiAuth test pool"),
                                  verify_origin=lambda origin: origin == f"https://{rp_id}")
        self.pending = {}  # username -> registration state
        self.credentials = {}  # username -> [{"data": AttestedCredentialData, "created": epoch}]

    def start_registration(self, username, sub):
        existing = [c["data"] for c in self.credentials.get(username, [])]
        options, state = self.server.register_begin(
            PublicKeyCredentialUserEntity(id=sub.encode(), name=username, display_name=username), existing,
            resident_key_requirement="required", user_verification="preferred")
        self.pending[username] = state
        return {"CredentialCreationOptions": dict(options)["publicKey"]}

    def complete_registration(self, username, credential):
        state = self.pending.pop(username, None)
        if state is None:
            raise PasskeyError("WebAuthnChallengeNotFoundException", "No registration was started for this user.")
        if not isinstance(credential, dict):
            raise PasskeyError("InvalidParameterException", "Credential must be an object.")
        try:
            data = self.server.register_complete(state, credential)
        except Exception as error:  # fido2 raises ValueError and its own types; each is a refusal
            raise PasskeyError("WebAuthnClientMismatchException" if "origin" in str(error).lower() else "InvalidParameterException",
                               f"The credential was not accepted: {error}") from None
        self.credentials.setdefault(username, []).append(
            {"data": data.credential_data, "created": datetime.datetime.now(datetime.timezone.utc).timestamp()})
        return {}

    def list(self, username):
        return {"Credentials": [{
            "CredentialId": b64url(c["data"].credential_id), "FriendlyCredentialName": "passkey", "RelyingPartyId": self.rp_id,
            "AuthenticatorAttachment": "cross-platform", "AuthenticatorTransports": ["usb"], "CreatedAt": c["created"]}
            for c in self.credentials.get(username, [])]}

    def delete(self, username, credential_id):
        kept = [c for c in self.credentials.get(username, []) if b64url(c["data"].credential_id) != credential_id]
        if len(kept) == len(self.credentials.get(username, [])):
            raise PasskeyError("ResourceNotFoundException", "Credential does not exist.")
        self.credentials[username] = kept
        return {}

    def has(self, username):
        return bool(self.credentials.get(username))

    def challenge(self, username):
        """The WEB_AUTHN challenge's options (a JSON string, as Cognito sends it) and the state to keep."""
        if not self.has(username):
            raise PasskeyError("InvalidParameterException", "WEB_AUTHN is not available for this user")
        options, state = self.server.authenticate_begin([c["data"] for c in self.credentials[username]], user_verification="preferred")
        return json.dumps(dict(options)["publicKey"]), state

    def check_assertion(self, username, state, credential_text):
        try:
            response = json.loads(credential_text or "")
            self.server.authenticate_complete(state, [c["data"] for c in self.credentials.get(username, [])], response)
        except Exception as error:
            raise PasskeyError("NotAuthorizedException", f"The passkey was not accepted: {error}") from None


