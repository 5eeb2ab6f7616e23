#!/usr/bin/env python3
"""AWS's own Python client for IAM Roles Anywhere (PyPI's iam-rolesanywhere-session, which signs
CreateSession with its own code on botocore's SigV4 canonical request): the independent client
the Roles Anywhere stand-in is proven with.

Prints one JSON line: {"ok": true, "accessKeyId": ..., "expiration": ...} or
{"ok": false, "status": N, "message": ...}. With --tamper signature|serial the request is
altered after signing (a flipped signature digit, the serial plus one), which the stand-in
must refuse. With --call-sts URL the session is then used for STS GetCallerIdentity there.
"""
import argparse
import json
import re
import sys

import boto3
from iam_rolesanywhere_session import CredentialsRetrievalError, IAMRolesAnywhereSession, IAMRolesAnywhereSigner


def tamper(mode):
    original = IAMRolesAnywhereSigner.add_auth

    def add_auth(self, request):
        original(self, request)
        value = request.headers["Authorization"]
        if mode == "signature":
            value = value[:-1] + ("0" if value[-1] != "0" else "1")
        else:
            value = re.sub(r"Credential=(\d+)/", lambda m: f"Credential={int(m.group(1)) + 1}/", value)
        del request.headers["Authorization"]
        request.headers["Authorization"] = value

    IAMRolesAnywhereSigner.add_auth = add_auth


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("endpoint", "ca-bundle", "certificate", "private-key", "trust-anchor-arn", "profile-arn", "role-arn"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--intermediates")
    parser.add_argument("--tamper", choices=["signature", "serial"])
    parser.add_argument("--call-sts")
    args = parser.parse_args()
    if args.tamper:
        tamper(args.tamper)
    session = IAMRolesAnywhereSession(
        profile_arn=args.profile_arn, role_arn=args.role_arn, trust_anchor_arn=args.trust_anchor_arn,
        certificate=args.certificate, private_key=args.private_key, certificate_chain=args.intermediates,
        region="us-east-1", endpoint=args.endpoint, verify=args.ca_bundle)
    try:
        frozen = session.get_refreshable_credentials().get_frozen_credentials()
    except CredentialsRetrievalError as error:
        print(json.dumps({"ok": False, "status": error.status_code, "message": error.message}))
        return 0
    result = {"ok": True, "accessKeyId": frozen.access_key}
    if args.call_sts:
        sts = boto3.client("sts", region_name="us-east-1", endpoint_url=args.call_sts, aws_access_key_id=frozen.access_key,
                           aws_secret_access_key=frozen.secret_key, aws_session_token=frozen.token)
        result["arn"] = sts.get_caller_identity()["Arn"]
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
