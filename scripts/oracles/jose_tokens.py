#!/usr/bin/env python3
"""ID-token oracle: joserfc (an independent JOSE implementation) makes signing keys, a JWKS
and tokens, each labelled with whether an OpenID client must accept it.

Usage: jose_tokens.py ISSUER CLIENT_ID NONCE NOW [access]
Prints {"jwks": {...}, "cases": [{"name", "token", "valid"}]}. With `access`, the cases are
access tokens labelled as API Gateway's authorizers judge their audience: `valid` for an HTTP
API JWT authorizer whose audiences are CLIENT_ID and "second" (aud among them, or without aud
a client_id among them), `validForAny` for a Cognito user pool authorizer (any audience).
"""
import base64
import json
import sys

from joserfc import jwt
from joserfc.jwk import ECKey, OctKey, RSAKey

issuer, client, nonce, now = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rsa = RSAKey.generate_key(2048, parameters={"kid": "rs1", "use": "sig", "alg": "RS256"})
ec = ECKey.generate_key("P-256", parameters={"kid": "ec1", "use": "sig", "alg": "ES256"})
other_rsa = RSAKey.generate_key(2048, parameters={"kid": "rs1"})
other_ec = ECKey.generate_key("P-256", parameters={"kid": "ec1"})
jwks = {"keys": [rsa.as_dict(private=False), ec.as_dict(private=False)]}


def claims(**changes):
    base = {"iss": issuer, "aud": client, "sub": "alice", "exp": now + 600, "iat": now, "nonce": nonce}
    base.update(changes)
    return {key: value for key, value in base.items() if value is not None}


def sign(alg, kid, key, body):
    return jwt.encode({"alg": alg, "kid": kid}, body, key)


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


cases = [
    ("rs256 valid", sign("RS256", "rs1", rsa, claims()), True),
    ("es256 valid", sign("ES256", "ec1", ec, claims()), True),
    ("audience list with the client", sign("RS256", "rs1", rsa, claims(aud=["other", client])), True),
    ("expired 30 s ago, within the leeway", sign("ES256", "ec1", ec, claims(exp=now - 30)), True),
    ("rs256 signed by another key", sign("RS256", "rs1", other_rsa, claims()), False),
    ("es256 signed by another key", sign("ES256", "ec1", other_ec, claims()), False),
    ("wrong audience", sign("RS256", "rs1", rsa, claims(aud="someone-else")), False),
    ("wrong issuer", sign("RS256", "rs1", rsa, claims(iss=issuer + "/evil")), False),
    ("expired an hour ago", sign("RS256", "rs1", rsa, claims(exp=now - 3600)), False),
    ("no exp", sign("RS256", "rs1", rsa, claims(exp=None)), False),
    ("nonce of another login", sign("RS256", "rs1", rsa, claims(nonce="other-nonce")), False),
    ("kid not in the key set", sign("RS256", "rs9", rsa, claims()), False),
    ("rs256 token naming the EC key", sign("RS256", "ec1", rsa, claims()), False),
    ("HS256 (never accepted)", sign("HS256", "rs1", OctKey.import_key(b"k" * 32), claims()), False),
]
if sys.argv[5:] == ["access"]:
    def access(**changes):
        return claims(**{"nonce": None, "aud": None, **changes})
    rules = [
        ("aud is the second audience", access(aud="second"), True, True),
        ("aud list naming one audience", access(aud=["x", "second"]), True, True),
        ("no aud, client_id an audience", access(client_id=client), True, True),
        ("no aud, client_id another", access(client_id="other"), False, True),
        ("aud another, client_id an audience", access(aud="other", client_id=client), False, True),
        ("neither aud nor client_id", access(), False, True),
    ]
    print(json.dumps({"jwks": jwks, "cases": [
        {"name": n, "token": sign("ES256", "ec1", ec, body), "valid": v, "validForAny": a} for n, body, v, a in rules]}))
    sys.exit(0)
valid = cases[0][1].split(".")
cases.append(("payload swapped after signing", ".".join([valid[0], b64(json.dumps(claims(sub="mallory")).encode()), valid[2]]), False))
cases.append(("alg none", ".".join([b64(b'{"alg":"none","kid":"rs1"}'), valid[1], ""]), False))
print(json.dumps({"jwks": jwks, "cases": [{"name": n, "token": t, "valid": v} for n, t, v in cases]}))
