"""An RS256 key pair for a load-bench JWT gateway: writes the public half as FOLDER/jwks.json
(kid "bench") and prints a token for ISSUER and AUDIENCE valid for a day, signed with the
private half by the cryptography package (not by our code).
Usage: jwt_token.py FOLDER ISSUER AUDIENCE"""
import base64, json, os, sys, time

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

folder, issuer, audience = sys.argv[1:4]
key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
numbers = key.public_key().public_numbers()


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def integer(value):
    return b64(value.to_bytes((value.bit_length() + 7) // 8, "big"))


with open(os.path.join(folder, "jwks.json"), "w") as handle:
    json.dump({"keys": [{"kty": "RSA", "kid": "bench", "use": "sig", "alg": "RS256", "n": integer(numbers.n), "e": integer(numbers.e)}]}, handle)
header = b64(json.dumps({"alg": "RS256", "kid": "bench", "typ": "JWT"}).encode())
claims = b64(json.dumps({"sub": "bench", "iss": issuer, "aud": audience, "exp": int(time.time()) + 86400}).encode())
signature = key.sign(f"{header}.{claims}".encode(), padding.PKCS1v15(), hashes.SHA256())
print(f"{header}.{claims}.{b64(signature)}")
