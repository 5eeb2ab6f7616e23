#!/usr/bin/env python3
"""SRP oracle: pycognito's AWSSRP computes Cognito's SRP values for given inputs.

Reads JSON lines on stdin, one case each:
  {"a": hex, "pool_id": str, "user_id": str, "password": str, "b": hex, "salt": hex,
   "secret_block": base64, "unix_time": int, "client_id": str, "client_secret": str}
and prints one JSON line per case with pycognito's A, u, x, S (hex), the derived key (hex),
the timestamp, PASSWORD_CLAIM_SIGNATURE and SECRET_HASH. x and S are captured from pycognito's own
pow() calls, u and S from its compute_hkdf() call, and the signature from
process_challenge() with its clock fixed to unix_time; nothing is recomputed here.
"""
import builtins
import datetime
import json
import sys
import types

from pycognito import aws_srp

captured = {}


def recording_pow(base, exponent, modulus=None):
    result = builtins.pow(base, exponent, modulus)
    if modulus is not None and base == 2 and "x" not in captured:
        captured["x"] = exponent
    elif modulus is not None and base != 2:
        captured["S"] = result
    return result


original_hkdf = aws_srp.compute_hkdf


def recording_hkdf(ikm, salt):
    captured["ikm"] = bytes(ikm).hex()
    captured["u_padded"] = bytes(salt).hex()
    key = original_hkdf(ikm, salt)
    captured["key"] = bytes(key).hex()
    return key


aws_srp.pow = recording_pow
aws_srp.compute_hkdf = recording_hkdf

for line in sys.stdin:
    case = json.loads(line)
    captured.clear()
    moment = datetime.datetime.fromtimestamp(case["unix_time"], datetime.timezone.utc).replace(tzinfo=None)
    aws_srp.datetime = types.SimpleNamespace(datetime=types.SimpleNamespace(utcnow=lambda: moment))
    srp = aws_srp.AWSSRP(username=case["user_id"], password=case["password"], pool_id=case["pool_id"],
                         client_id="client", client=object())
    srp.small_a_value = int(case["a"], 16) % srp.big_n
    captured.clear()
    srp.large_a_value = srp.calculate_a()
    captured.clear()
    b = int(case["b"], 16)
    response = srp.process_challenge(
        {"USERNAME": case["user_id"], "USER_ID_FOR_SRP": case["user_id"], "SALT": case["salt"],
         "SRP_B": case["b"], "SECRET_BLOCK": case["secret_block"]},
        {"USERNAME": case["user_id"]})
    print(json.dumps({
        "A": f"{srp.large_a_value:x}",
        "u": f"{aws_srp.calculate_u(srp.large_a_value, b):x}",
        "x": f"{captured['x']:x}",
        "S": f"{captured['S']:x}",
        "key": captured["key"],
        "timestamp": response["TIMESTAMP"],
        "signature": response["PASSWORD_CLAIM_SIGNATURE"],
        "secret_hash": aws_srp.AWSSRP.get_secret_hash(case["user_id"], case["client_id"], case["client_secret"]),
    }), flush=True)
