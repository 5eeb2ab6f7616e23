"""pycognito (user SRP and device SRP) and boto3 against the Cognito stand-in, as an
independent client: sign in with SRP and a TOTP code, confirm and remember the device with a
verifier from pycognito's generate_hash_device, sign in again through DEVICE_SRP_AUTH (no
code), then refresh with and without DEVICE_KEY and try a wrong device password.
Usage: PEER_URL POOL_ID CLIENT_ID USERNAME PASSWORD TOTP_SECRET. Prints what each step gave as
JSON, or {"error": ...} at the first unexpected failure."""
import base64
import json
import sys
import time

import boto3
from cryptography.hazmat.primitives.hashes import SHA1
from cryptography.hazmat.primitives.twofactor.totp import TOTP
from pycognito.aws_srp import AWSSRP, SoftwareTokenMFAChallengeException, generate_hash_device

url, pool, client_id, username, password, secret = sys.argv[1:7]
idp = boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="y", region_name="us-east-1").client(
    "cognito-idp", endpoint_url=url)


def code():
    padded = secret + "=" * (-len(secret) % 8)
    return TOTP(base64.b32decode(padded), 6, SHA1(), 30, enforce_key_length=False).generate(int(time.time())).decode()


result = {}
try:
    try:
        AWSSRP(username, password, pool, client_id, client=idp).authenticate_user()
        raise RuntimeError("no MFA challenge")
    except SoftwareTokenMFAChallengeException as challenge:
        tokens = idp.respond_to_auth_challenge(
            ClientId=client_id, ChallengeName="SOFTWARE_TOKEN_MFA", Session=challenge.get_tokens()["Session"],
            ChallengeResponses={"USERNAME": username, "SOFTWARE_TOKEN_MFA_CODE": code()})
    device = tokens["AuthenticationResult"]["NewDeviceMetadata"]
    device_password, config = generate_hash_device(device["DeviceGroupKey"], device["DeviceKey"])
    access = tokens["AuthenticationResult"]["AccessToken"]
    confirmed = idp.confirm_device(AccessToken=access, DeviceKey=device["DeviceKey"], DeviceSecretVerifierConfig=config,
                                   DeviceName="pycognito")
    result["userConfirmationNecessary"] = str(confirmed["UserConfirmationNecessary"])
    idp.update_device_status(AccessToken=access, DeviceKey=device["DeviceKey"], DeviceRememberedStatus="remembered")
    remembered = AWSSRP(username, password, pool, client_id, client=idp, device_key=device["DeviceKey"],
                        device_group_key=device["DeviceGroupKey"], device_password=device_password).authenticate_user()
    result["deviceSignIn"] = "tokens" if "AuthenticationResult" in remembered else json.dumps(remembered)
    refresh = remembered["AuthenticationResult"]["RefreshToken"]
    refreshed = idp.initiate_auth(ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH",
                                  AuthParameters={"REFRESH_TOKEN": refresh, "DEVICE_KEY": device["DeviceKey"]})
    result["refreshWithDeviceKey"] = "tokens" if "AccessToken" in refreshed["AuthenticationResult"] else "none"
    try:
        idp.initiate_auth(ClientId=client_id, AuthFlow="REFRESH_TOKEN_AUTH", AuthParameters={"REFRESH_TOKEN": refresh})
        result["refreshWithoutDeviceKey"] = "accepted"
    except idp.exceptions.NotAuthorizedException:
        result["refreshWithoutDeviceKey"] = "NotAuthorizedException"
    try:
        AWSSRP(username, password, pool, client_id, client=idp, device_key=device["DeviceKey"],
               device_group_key=device["DeviceGroupKey"], device_password="wrong" + device_password).authenticate_user()
        result["wrongDevicePassword"] = "accepted"
    except idp.exceptions.NotAuthorizedException:
        result["wrongDevicePassword"] = "NotAuthorizedException"
except Exception as error:
    result = {"error": f"{type(error).__name__}: {error}"}
print(json.dumps(result))
