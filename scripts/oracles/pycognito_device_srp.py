#!/usr/bin/env python3
"""Device SRP oracle: pycognito's generate_hash_device and process_device_challenge compute
Cognito's device values for given inputs. Reads JSON lines on stdin, one case each:
  {"group": str, "device": str, "device_password": hex bytes, "salt": hex bytes, "a": hex,
   "b": hex, "secret_block": base64, "unix_time": int}
and prints one JSON line per case with pycognito's PasswordVerifier and Salt (base64), and
the DEVICE_PASSWORD_VERIFIER answer: TIMESTAMP and PASSWORD_CLAIM_SIGNATURE. pycognito's
random sources are fixed to the case's bytes (os.urandom for the device password, get_random
for the salt) and its clock to unix_time; nothing is recomputed here."""
import base64
import datetime
import json
import sys
import types

from pycognito import aws_srp

for line in sys.stdin:
    case = json.loads(line)
    aws_srp.os = types.SimpleNamespace(urandom=lambda count, value=bytes.fromhex(case["device_password"]): value[:count])
    aws_srp.get_random = lambda count, value=int(case["salt"], 16): value
    password, config = aws_srp.generate_hash_device(case["group"], case["device"])
    moment = datetime.datetime.fromtimestamp(case["unix_time"], datetime.timezone.utc).replace(tzinfo=None)
    aws_srp.datetime = types.SimpleNamespace(datetime=types.SimpleNamespace(utcnow=lambda: moment))
    srp = aws_srp.AWSSRP(username="u", password="p", pool_id="us-east-1_x", client_id="c", client=object(),
                         device_key=case["device"], device_group_key=case["group"], device_password=password)
    srp.small_a_value = int(case["a"], 16) % srp.big_n
    srp.large_a_value = srp.calculate_a()
    salt_hex = base64.b64decode(config["Salt"]).hex()  # as a pool sends it back in DEVICE_PASSWORD_VERIFIER
    answer = srp.process_device_challenge({"USERNAME": "u", "SALT": salt_hex, "SRP_B": case["b"], "SECRET_BLOCK": case["secret_block"]})
    print(json.dumps({"device_password": password, "salt_hex": salt_hex, "verifier": config["PasswordVerifier"], "salt": config["Salt"],
                      "timestamp": answer["TIMESTAMP"], "signature": answer["PASSWORD_CLAIM_SIGNATURE"]}), flush=True)
