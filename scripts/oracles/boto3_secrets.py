#!/usr/bin/env python3
"""boto3 against the Secrets Manager and SSM that a test uses (moto), as an independent client.
Prints JSON.
  boto3_secrets.py URL sm-get NAME        -> {"magic": "MAUTHSTR", "length": N, "contains": bool}
  boto3_secrets.py URL sm-list PREFIX     -> {"names": [...]} secrets whose name starts with PREFIX
  boto3_secrets.py URL sm-delete NAME     -> {} removed at once
  boto3_secrets.py URL sm-put-text NAME T -> {} a new text version (a hand edit)
  boto3_secrets.py URL sm-put-binary NAME T -> {} T's bytes as the binary value, the secret made if missing
  boto3_secrets.py URL ssm-get NAME       -> as sm-get, for the SecureString parameter NAME (base64, after "N:")
  boto3_secrets.py URL ssm-list PREFIX    -> {"names": [...], "types": [...]}
  boto3_secrets.py URL ssm-delete NAME    -> {}
`contains` says whether the decoded value holds the text given as the last argument of sm-get or
ssm-get (a secret that must not be there in the clear)."""
import base64
import json
import sys

import boto3

url, action, name = sys.argv[1], sys.argv[2], sys.argv[3]
keys = dict(region_name="us-east-1", aws_access_key_id="AKIDSECRETSORACLE", aws_secret_access_key="secrets-oracle-secret")
secrets = boto3.client("secretsmanager", endpoint_url=url, **keys)
ssm = boto3.client("ssm", endpoint_url=url, **keys)


def described(value, clear):
    return {"magic": value[:8].decode("latin-1"), "length": len(value), "contains": clear.encode() in value if clear else False}


clear = sys.argv[4] if len(sys.argv) > 4 else ""
if action == "sm-get":
    print(json.dumps(described(secrets.get_secret_value(SecretId=name)["SecretBinary"], clear)))
elif action == "sm-list":
    names = [s["Name"] for page in secrets.get_paginator("list_secrets").paginate() for s in page["SecretList"]]
    print(json.dumps({"names": sorted(n for n in names if n.startswith(name))}))
elif action == "sm-delete":
    secrets.delete_secret(SecretId=name, ForceDeleteWithoutRecovery=True)
    print("{}")
elif action in ("sm-put-text", "sm-put-binary"):
    value = dict(SecretString=sys.argv[4]) if action == "sm-put-text" else dict(SecretBinary=sys.argv[4].encode())
    try:
        current = next(v for v, stages in secrets.describe_secret(SecretId=name)["VersionIdsToStages"].items() if "AWSCURRENT" in stages)
    except secrets.exceptions.ResourceNotFoundException:
        secrets.create_secret(Name=name, **value)
    else:
        # A new version, then AWSCURRENT moved to it: what PutSecretValue does on AWS. moto
        # leaves AWSCURRENT where UpdateSecretVersionStage put it when PutSecretValue stages it.
        new = secrets.put_secret_value(SecretId=name, VersionStages=["AWSPENDING"], **value)["VersionId"]
        secrets.update_secret_version_stage(SecretId=name, VersionStage="AWSCURRENT", MoveToVersionId=new, RemoveFromVersionId=current)
    print("{}")
elif action == "ssm-get":
    value = ssm.get_parameter(Name=name, WithDecryption=True)["Parameter"]["Value"]
    # "N:BASE64" after the Nth conditional write, plain BASE64 before any (docs/credential-store.md)
    print(json.dumps(described(base64.b64decode(value.split(":", 1)[-1]), clear)))
elif action == "ssm-list":
    found = [p for page in ssm.get_paginator("describe_parameters").paginate() for p in page["Parameters"]
             if p["Name"].startswith(name)]
    print(json.dumps({"names": sorted(p["Name"] for p in found), "types": sorted({p["Type"] for p in found})}))
elif action == "ssm-delete":
    ssm.delete_parameter(Name=name)
    print("{}")
