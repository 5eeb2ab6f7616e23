#!/usr/bin/env python3
"""Proves the STS stand-in (scripts/peers/sts_server.py) with boto3, an independent client:
usage: boto3_sts.py URL KEY_ID SECRET MFA_SERIAL MFA_CODE ROLE_ARN. Makes these calls and
prints one JSON object naming each one's outcome (the STS error code, or "ok"):
  assume_role            signed with the right secret
  wrong_secret           the same, signed with a wrong secret
  wrong_mfa / right_mfa  AssumeRole with the device's serial and a wrong, then the right code
  session_token          GetSessionToken with the right code
  caller                 GetCallerIdentity signed with the assumed role's session
and "caller_arn": the ARN GetCallerIdentity gave."""
import json
import sys

import boto3
from botocore.exceptions import ClientError


def sts(url, key_id, secret, token=None):
    return boto3.client("sts", endpoint_url=url, region_name="us-east-1", aws_access_key_id=key_id,
                        aws_secret_access_key=secret, aws_session_token=token)


def outcome(call):
    try:
        return "ok", call()
    except ClientError as error:
        return error.response["Error"]["Code"], None


def main():
    url, key_id, secret, serial, code, role = sys.argv[1:7]
    good = sts(url, key_id, secret)
    results = {}
    results["assume_role"], assumed = outcome(lambda: good.assume_role(RoleArn=role, RoleSessionName="boto3"))
    results["wrong_secret"], _ = outcome(lambda: sts(url, key_id, secret + "x").assume_role(RoleArn=role, RoleSessionName="boto3"))
    wrong = str((int(code) + 1) % 1000000).zfill(6)
    results["wrong_mfa"], _ = outcome(lambda: good.assume_role(RoleArn=role, RoleSessionName="boto3", SerialNumber=serial, TokenCode=wrong))
    results["right_mfa"], _ = outcome(lambda: good.assume_role(RoleArn=role, RoleSessionName="boto3", SerialNumber=serial, TokenCode=code))
    results["session_token"], _ = outcome(lambda: good.get_session_token(SerialNumber=serial, TokenCode=code))
    session = assumed["Credentials"]
    results["caller"], identity = outcome(
        lambda: sts(url, session["AccessKeyId"], session["SecretAccessKey"], session["SessionToken"]).get_caller_identity())
    results["caller_arn"] = identity["Arn"] if identity else None
    print(json.dumps(results, sort_keys=True))


if __name__ == "__main__":
    main()
