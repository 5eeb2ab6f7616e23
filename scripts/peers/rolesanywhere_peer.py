"""IAM Roles Anywhere's CreateSession, for the STS stand-in (sts_server.py), which serves it over
HTTPS and shares its issued sessions, so the STS stand-in then accepts calls signed with them.

No emulator of the service exists (moto has none): this one checks what the service checks,
with code of its own and `cryptography`'s X.509 verification:
- the Authorization header is `AWS4-X509-RSA-SHA256` or `AWS4-X509-ECDSA-SHA256`, matching the
  leaf certificate's key type;
- the credential scope's first part is the leaf certificate's serial number in decimal;
- `host`, `x-amz-date` and `x-amz-x509` (and `x-amz-x509-chain` when sent) are signed;
- the signature, over SigV4's string to sign with the X.509 algorithm name (canonical request
  from botocore's SigV4Auth), verifies under the leaf certificate's public key;
- the leaf and each intermediate chain to the trust anchor the body names, each within its
  validity, each issuer a CA;
- the signing time is within 5 minutes, and the duration within 900 to 43200 seconds.
Refusals are REST-JSON errors as the service sends them (`x-amzn-ErrorType`, `{"message"}`).
"""
import base64
import datetime
import hashlib
import json

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.x509.oid import ExtensionOID

ALGORITHMS = {"AWS4-X509-RSA-SHA256": rsa.RSAPublicKey, "AWS4-X509-ECDSA-SHA256": ec.EllipticCurvePublicKey}


class Refusal(Exception):
    def __init__(self, status, code, message):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def create_session(method, path, headers, body, trust_anchors, now):
    """Checks one CreateSession request. Returns (serial, request body as JSON); raises Refusal."""
    if method != "POST" or path != "/sessions":
        raise Refusal(404, "ResourceNotFoundException", f"no route {method} {path}")
    authorization = headers.get("Authorization", "")
    algorithm, _, rest = authorization.partition(" ")
    if algorithm not in ALGORITHMS:
        raise Refusal(403, "AccessDeniedException", "Unsupported or missing authorization algorithm")
    try:
        fields = dict(part.strip().split("=", 1) for part in rest.split(","))
        serial, scope = fields["Credential"].split("/", 1)
        signed = fields["SignedHeaders"].split(";")
        signature = bytes.fromhex(fields["Signature"])
        leaf = x509.load_der_x509_certificate(base64.b64decode(headers["X-Amz-X509"], validate=True))
        chain_header = headers.get("X-Amz-X509-Chain")
        chain = [x509.load_der_x509_certificate(base64.b64decode(p, validate=True)) for p in chain_header.split(",")] if chain_header else []
        document = json.loads(body)
    except (KeyError, ValueError, TypeError) as error:
        raise Refusal(400, "ValidationException", f"malformed request: {type(error).__name__}")
    if serial != str(leaf.serial_number):
        raise Refusal(403, "AccessDeniedException", "Credential serial number does not match the certificate")
    needed = {"host", "x-amz-date", "x-amz-x509"} | ({"x-amz-x509-chain"} if chain else set())
    if not needed <= set(signed):
        raise Refusal(403, "AccessDeniedException", f"Headers not signed: {sorted(needed - set(signed))}")
    amz_date = headers.get("X-Amz-Date", "")
    signed_at = datetime.datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    if abs((now - signed_at).total_seconds()) > 300:
        raise Refusal(403, "AccessDeniedException", "Signature expired")
    if not isinstance(leaf.public_key(), ALGORITHMS[algorithm]):
        raise Refusal(403, "AccessDeniedException", "Algorithm does not match the certificate's key")
    verify_signature(leaf, algorithm, signature, string_to_sign(algorithm, amz_date, scope, headers, signed, path, body))
    anchor = trust_anchors.get(document.get("trustAnchorArn"))
    if anchor is None:
        raise Refusal(403, "AccessDeniedException", "Unknown trust anchor")
    verify_chain([leaf] + chain, anchor, now)
    duration = document.get("durationSeconds", 3600)
    if not isinstance(duration, int) or not 900 <= duration <= 43200:
        raise Refusal(400, "ValidationException", "durationSeconds must be between 900 and 43200")
    for name in ("profileArn", "roleArn"):
        if not isinstance(document.get(name), str):
            raise Refusal(400, "ValidationException", f"{name} is required")
    return serial, document


def string_to_sign(algorithm, amz_date, scope, headers, signed, path, body):
    request = AWSRequest(method="POST", url=f"https://{headers.get('Host')}{path}", data=body)
    for name, value in headers.items():
        if name.lower() in signed:
            request.headers[name] = value
    request.context["timestamp"] = amz_date
    canonical = SigV4Auth(None, "rolesanywhere", "unused").canonical_request(request)
    return "\n".join([algorithm, amz_date, scope, hashlib.sha256(canonical.encode()).hexdigest()])


def verify_signature(leaf, algorithm, signature, text):
    key = leaf.public_key()
    try:
        if algorithm == "AWS4-X509-RSA-SHA256":
            key.verify(signature, text.encode(), padding.PKCS1v15(), hashes.SHA256())
        else:
            key.verify(signature, text.encode(), ec.ECDSA(hashes.SHA256()))
    except Exception:
        raise Refusal(403, "AccessDeniedException", "Signature does not match")


def verify_chain(path, anchor, now):
    for child, issuer in zip(path, path[1:] + [anchor]):
        if not child.not_valid_before_utc <= now <= child.not_valid_after_utc:
            raise Refusal(403, "AccessDeniedException", f"Certificate {child.serial_number} is outside its validity")
        try:
            is_ca = issuer.extensions.get_extension_for_oid(ExtensionOID.BASIC_CONSTRAINTS).value.ca
        except x509.ExtensionNotFound:
            is_ca = False
        try:
            if not is_ca:
                raise ValueError("issuer is not a CA")
            child.verify_directly_issued_by(issuer)
        except Exception:
            raise Refusal(403, "AccessDeniedException", "Untrusted certificate: it does not chain to the trust anchor")


def session_answer(key_id, secret, token, expires, role_arn, session_name):
    return {
        "credentialSet": [{
            "assumedRoleUser": {"arn": f"{role_arn}/{session_name}", "assumedRoleId": f"AROA:{session_name}"},
            "credentials": {"accessKeyId": key_id, "secretAccessKey": secret, "sessionToken": token,
                            "expiration": expires.strftime("%Y-%m-%dT%H:%M:%SZ")},
            "packedPolicySize": 0, "roleArn": role_arn, "sourceIdentity": session_name,
        }],
        "subjectArn": "arn:aws:rolesanywhere:us-east-1:123456789012:subject/peer",
    }
