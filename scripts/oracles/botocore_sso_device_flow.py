"""botocore's own sso-oidc and sso clients (their service models parse every answer) run the
device authorization a login makes, against AWS_ENDPOINT_URL_SSO_OIDC / AWS_ENDPOINT_URL_SSO:
RegisterClient, StartDeviceAuthorization, CreateToken polled until it stops being pending,
then GetRoleCredentials for ACCOUNT/ROLE (argv 1 and 2, start URL argv 3). Prints what each
step gave as JSON, or {"error": code} at the first refusal."""
import json
import sys

import botocore.session
from botocore import UNSIGNED
from botocore.config import Config

account, role, start_url = sys.argv[1:4]
session = botocore.session.Session()
config = Config(signature_version=UNSIGNED, region_name="us-east-1")
oidc = session.create_client("sso-oidc", config=config)
portal = session.create_client("sso", config=config)
result = {}
try:
    client = oidc.register_client(clientName="botocore-oracle", clientType="public", scopes=["sso:account:access"])
    device = oidc.start_device_authorization(clientId=client["clientId"], clientSecret=client["clientSecret"], startUrl=start_url)
    result["userCode"] = device["userCode"]
    result["pending"] = []
    while True:
        try:
            token = oidc.create_token(clientId=client["clientId"], clientSecret=client["clientSecret"],
                                      grantType="urn:ietf:params:oauth:grant-type:device_code", deviceCode=device["deviceCode"])
            break
        except oidc.exceptions.AuthorizationPendingException:
            result["pending"].append("AuthorizationPendingException")
    result["pending"] = ",".join(result["pending"])
    refreshed = oidc.create_token(clientId=client["clientId"], clientSecret=client["clientSecret"],
                                  grantType="refresh_token", refreshToken=token["refreshToken"])
    result["rotated"] = str(refreshed["refreshToken"] != token["refreshToken"])
    try:
        oidc.create_token(clientId=client["clientId"], clientSecret=client["clientSecret"],
                          grantType="refresh_token", refreshToken=token["refreshToken"])
        result["reuse"] = "accepted"
    except oidc.exceptions.InvalidGrantException:
        result["reuse"] = "InvalidGrantException"
    credentials = portal.get_role_credentials(roleName=role, accountId=account, accessToken=refreshed["accessToken"])["roleCredentials"]
    result.update(accessKeyId=credentials["accessKeyId"], sessionToken=credentials["sessionToken"],
                  expirationMs=str(credentials["expiration"]))
    try:
        portal.get_role_credentials(roleName=role, accountId=account, accessToken="not-a-token")
        result["badToken"] = "accepted"
    except portal.exceptions.UnauthorizedException:
        result["badToken"] = "UnauthorizedException"
except Exception as error:
    result = {"error": type(error).__name__}
print(json.dumps(result))
