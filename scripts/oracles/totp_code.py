"""Prints the current RFC 6238 code (6 digits, 30 s, HMAC-SHA1) for the base32 secret on the
command line, made by the `cryptography` package's TOTP, an implementation independent of
ours. Within 2 s of a step's end it waits for the next step, so the code is still current
when the server checks it (a bounded wait of at most 2 s)."""
import base64
import sys
import time

from cryptography.hazmat.primitives.hashes import SHA1
from cryptography.hazmat.primitives.twofactor.totp import TOTP

secret = sys.argv[1].upper()
secret += "=" * (-len(secret) % 8)
totp = TOTP(base64.b32decode(secret), 6, SHA1(), 30, enforce_key_length=False)
left = 30 - time.time() % 30
if left < 2:
    time.sleep(left + 0.05)
print(totp.generate(int(time.time())).decode())
