"""Makes an `aws login` session for a test, with code independent of MultiAuth: a DPoP key
(`cryptography`, SEC1 PEM, as the AWS CLI keeps it), a session bound to it at the sign-in
stand-in (POST /_peer/login-session), and the cache file written with botocore's own
JSONFileCache under botocore's own key (utils.generate_login_cache_key), holding keys that
expire at --expires-in seconds from now (negative: already expired).

Usage: login_session.py STS_URL CACHE_DIR SESSION_NAME [--expires-in N] [--revoked]
Prints {"path": the cache file, "sessionId": the stand-in's name for the session} as JSON.
"""
import argparse
import base64
import datetime
import json
import urllib.request

from botocore.utils import JSONFileCache, generate_login_cache_key
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(number):
    return base64.urlsafe_b64encode(number.to_bytes(32, "big")).rstrip(b"=").decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("sts")
    parser.add_argument("cache_dir")
    parser.add_argument("session")
    parser.add_argument("--expires-in", type=int, default=-60)
    parser.add_argument("--revoked", action="store_true")
    args = parser.parse_args()
    key = ec.generate_private_key(ec.SECP256R1())
    numbers = key.public_key().public_numbers()
    jwk = {"kty": "EC", "crv": "P-256", "x": b64url(numbers.x), "y": b64url(numbers.y)}
    request = urllib.request.Request(args.sts + "/_peer/login-session", data=json.dumps({"jwk": jwk, "revoked": args.revoked}).encode(), method="POST")
    created = json.load(urllib.request.urlopen(request))
    expires = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=args.expires_in)
    token = {
        "accessToken": {"accessKeyId": "ASIASEEDEDNOTISSUED0", "secretAccessKey": "seeded-secret-not-issued", "sessionToken": "seeded-token",
                        "accountId": "123456789012", "expiresAt": expires.strftime("%Y-%m-%dT%H:%M:%SZ")},
        "tokenType": "aws_sigv4", "refreshToken": created["refreshToken"], "clientId": created["clientId"],
        "idToken": "not-a-real-id-token",
        "dpopKey": key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                     serialization.NoEncryption()).decode(),
    }
    cache = JSONFileCache(args.cache_dir)
    cache[generate_login_cache_key(args.session)] = token
    print(json.dumps({"path": cache._convert_cache_key(generate_login_cache_key(args.session)), "sessionId": created["sessionId"]}))


if __name__ == "__main__":
    main()
