#!/usr/bin/env python3
"""Prepares the moto peer for the integration tests and prints a JSON description of it.

Creates a Cognito user pool, an app client, a confirmed user and an identity pool, and
signs the user in with USER_PASSWORD_AUTH to get a real (RS256) IdToken.
Usage: moto_setup.py MOTO_URL
"""
import json
import sys

import boto3

url = sys.argv[1]
session = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1")
idp = session.client("cognito-idp", endpoint_url=url)
identity = session.client("cognito-identity", endpoint_url=url)
pool = idp.create_user_pool(PoolName="multiauth-test")["UserPool"]["Id"]
flows = ["ALLOW_USER_PASSWORD_AUTH", "ALLOW_USER_SRP_AUTH", "ALLOW_REFRESH_TOKEN_AUTH"]
client = idp.create_user_pool_client(UserPoolId=pool, ClientName="cli", ExplicitAuthFlows=flows)["UserPoolClient"]["ClientId"]
secret_client = idp.create_user_pool_client(UserPoolId=pool, ClientName="cli-secret", ExplicitAuthFlows=flows,
                                            GenerateSecret=True)["UserPoolClient"]
# A user who has not confirmed. Users who must choose a new password at their first sign-in
# are made per test (scripts/oracles/cognito_user.py): a second run against the same peers
# finds none already changed.
idp.sign_up(ClientId=client, Username="unconfirmed", Password="Str0ng-Passw0rd!")
idp.admin_create_user(UserPoolId=pool, Username="alice", TemporaryPassword="Temp-Passw0rd!", MessageAction="SUPPRESS")
idp.admin_set_user_password(UserPoolId=pool, Username="alice", Password="Str0ng-Passw0rd!", Permanent=True)
tokens = idp.initiate_auth(ClientId=client, AuthFlow="USER_PASSWORD_AUTH",
                           AuthParameters={"USERNAME": "alice", "PASSWORD": "Str0ng-Passw0rd!"})["AuthenticationResult"]
# A pool that requires TOTP MFA: users are created per test (each first sign-in sets MFA up).
mfa_pool = idp.create_user_pool(PoolName="multiauth-mfa", MfaConfiguration="ON")["UserPool"]["Id"]
idp.set_user_pool_mfa_config(UserPoolId=mfa_pool, SoftwareTokenMfaConfiguration={"Enabled": True}, MfaConfiguration="ON")
mfa_client = idp.create_user_pool_client(UserPoolId=mfa_pool, ClientName="cli-mfa", ExplicitAuthFlows=flows)["UserPoolClient"]["ClientId"]
identity_pool = identity.create_identity_pool(IdentityPoolName="multiauth_test", AllowUnauthenticatedIdentities=True)["IdentityPoolId"]
print(json.dumps({
    "user_pool_id": pool, "client_id": client, "id_token": tokens["IdToken"],
    "identity_pool_id": identity_pool,
    "mfa_user_pool_id": mfa_pool, "mfa_client_id": mfa_client,
    "secret_client_id": secret_client["ClientId"], "client_secret": secret_client["ClientSecret"], "jwks_url": f"{url}/{pool}/.well-known/jwks.json",
}))
