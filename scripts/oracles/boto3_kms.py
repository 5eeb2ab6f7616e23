#!/usr/bin/env python3
"""boto3 against the KMS that a test uses (moto), as an independent client. Prints JSON.
  boto3_kms.py URL create                 -> {"arn": ...} a new symmetric key
  boto3_kms.py URL decrypt WRAPPED_FILE   -> {"key_id": ..., "length": N}: what KMS says the
                                             base64 blob in the file is (made under which key)"""
import base64
import json
import sys

import boto3

kms = boto3.client("kms", endpoint_url=sys.argv[1], region_name="us-east-1", aws_access_key_id="AKIDKMSORACLE",
                   aws_secret_access_key="kms-oracle-secret")
action = sys.argv[2]
if action == "create":
    print(json.dumps({"arn": kms.create_key(Description="multiauth store test")["KeyMetadata"]["Arn"]}))
elif action == "decrypt":
    blob = base64.b64decode(open(sys.argv[3]).read().strip())
    answer = kms.decrypt(CiphertextBlob=blob)
    print(json.dumps({"key_id": answer["KeyId"], "length": str(len(answer["Plaintext"]))}))
