#!/usr/bin/env python3
"""botocore's standard retry mode against the fault server's scripted AWS stand-in.
  botocore_retries.py BASE OP KEY...  -> {"KEY": "ok" | "error:CODE", ...}
For each KEY, a botocore client of OP's service with endpoint_url BASE/svc/KEY/ makes the
operation MultiAuth makes for OP (the fault server counts the attempts). retry_mode comes from
the environment (the test sets AWS_RETRY_MODE=standard); credentials too."""
import json
import sys

import botocore.session
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

SERVICES = {"sts": "sts", "sso": "sso", "cognito-identity": "cognito-identity", "cognito-idp": "cognito-idp",
            "kms": "kms", "ssm": "ssm", "secretsmanager": "secretsmanager"}


def call(client, op):
    if op == "sts":
        client.assume_role(RoleArn="arn:aws:iam::123456789012:role/fault", RoleSessionName="fault")
    elif op == "sso":
        client.get_role_credentials(roleName="fault", accountId="123456789012", accessToken="fault-access-token")
    elif op == "cognito-identity":
        identity = client.get_id(IdentityPoolId="us-east-1:00000000-0000-0000-0000-000000000000")["IdentityId"]
        client.get_credentials_for_identity(IdentityId=identity)
    elif op == "cognito-idp":
        client.revoke_token(Token="fault-refresh-token", ClientId="faultclient")
    elif op == "kms":
        client.generate_data_key(KeyId="alias/fault", KeySpec="AES_256")
    elif op == "ssm":
        client.get_parameter(Name="/fault", WithDecryption=True)
    elif op == "secretsmanager":
        client.get_secret_value(SecretId="fault", VersionStage="AWSCURRENT")


def main():
    base, op, keys = sys.argv[1], sys.argv[2], sys.argv[3:]
    session = botocore.session.get_session()
    results = {}
    for key in keys:
        client = session.create_client(SERVICES[op], region_name="us-east-1", endpoint_url=f"{base}/svc/{key}/",
                                       config=Config(connect_timeout=5, read_timeout=10))
        try:
            call(client, op)
            results[key] = "ok"
        except ClientError as error:
            results[key] = "error:" + error.response.get("Error", {}).get("Code", "?")
        except BotoCoreError as error:
            results[key] = "error:" + type(error).__name__
        except Exception as error:  # a parser's error (ResponseParserError) or a missing field
            results[key] = "error:" + type(error).__name__
    print(json.dumps(results))


if __name__ == "__main__":
    main()
