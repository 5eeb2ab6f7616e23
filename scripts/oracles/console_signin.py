#!/usr/bin/env python3
"""An independent console sign-in, written from AWS's documentation ("Enable custom identity
broker access to the AWS console"): the credentials in the environment (AWS_ACCESS_KEY_ID,
AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN); long-term keys first become a federated user's session
through boto3's STS GetFederationToken; the session goes as JSON to the federation endpoint's
getSigninToken (a GET, urllib-encoded); the login URL is built from the token.
Usage: console_signin.py STS_URL SIGNIN_URL [DESTINATION]
Prints {"key_id": the session's key id, "token": the sign-in token, "url": the login URL}, or
{"error": status, "message": ...} when the endpoint refuses.
"""
import json
import os
import sys
import urllib.error
import urllib.parse
import urllib.request

import boto3

sts_url, signin_url = sys.argv[1], sys.argv[2].rstrip("/")
destination = sys.argv[3] if len(sys.argv) > 3 else "https://console.aws.amazon.com/"
key_id, secret, token = os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"], os.environ.get("AWS_SESSION_TOKEN")
if not token:
    sts = boto3.client("sts", endpoint_url=sts_url, region_name="us-east-1", aws_access_key_id=key_id, aws_secret_access_key=secret)
    policy = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}
    credentials = sts.get_federation_token(Name="oracle", Policy=json.dumps(policy), DurationSeconds=900)["Credentials"]
    key_id, secret, token = credentials["AccessKeyId"], credentials["SecretAccessKey"], credentials["SessionToken"]
session = json.dumps({"sessionId": key_id, "sessionKey": secret, "sessionToken": token})
request_url = signin_url + "/federation?Action=getSigninToken&Session=" + urllib.parse.quote_plus(session)
try:
    with urllib.request.urlopen(request_url, timeout=10) as response:
        signin_token = json.loads(response.read())["SigninToken"]
except urllib.error.HTTPError as error:
    print(json.dumps({"error": str(error.code), "message": json.loads(error.read() or b"{}").get("message", "")}))
    sys.exit(0)
login = signin_url + "/federation?" + urllib.parse.urlencode(
    {"Action": "login", "Issuer": "oracle.example", "Destination": destination, "SigninToken": signin_token})
print(json.dumps({"key_id": key_id, "token": signin_token, "url": login}))
