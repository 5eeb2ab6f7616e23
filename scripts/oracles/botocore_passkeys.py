"""botocore's own `cognito-idp` client against the Cognito stand-in's passkey operations: its
serializer must write each request the stand-in accepts, and its parser must read each answer
(documents, timestamps, challenge parameters, typed errors).

Arguments: ENDPOINT CLIENT_ID USERNAME ACCESS_TOKEN, for a user with one passkey. Prints one
JSON object of strings: what each operation gave, or {"error": ...}. It ends by deleting the
passkey, so the user has none after."""
import json
import sys

import botocore.session
from botocore.exceptions import ClientError


def code(call):
    try:
        call()
        return "no error"
    except ClientError as error:
        return error.response["Error"]["Code"]


try:
    endpoint, client_id, username, token = sys.argv[1:5]
    client = botocore.session.Session().create_client(
        "cognito-idp", region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="x", aws_secret_access_key="x")
    out = {}
    options = client.start_web_authn_registration(AccessToken=token)["CredentialCreationOptions"]
    out["creation_rp"] = options["rp"]["id"]
    out["creation_challenge"] = str(len(options["challenge"]) > 20)
    out["bogus_credential"] = code(lambda: client.complete_web_authn_registration(AccessToken=token, Credential={"id": "AA", "type": "public-key"}))
    listed = client.list_web_authn_credentials(AccessToken=token)["Credentials"]
    out["listed"] = str(len(listed))
    out["created_at_parsed"] = type(listed[0]["CreatedAt"]).__name__
    started = client.initiate_auth(AuthFlow="USER_AUTH", ClientId=client_id, AuthParameters={"USERNAME": username, "PREFERRED_CHALLENGE": "WEB_AUTHN"})
    out["challenge"] = started["ChallengeName"]
    out["request_rp"] = json.loads(started["ChallengeParameters"]["CREDENTIAL_REQUEST_OPTIONS"])["rpId"]
    out["bad_assertion"] = code(lambda: client.respond_to_auth_challenge(
        ClientId=client_id, ChallengeName="WEB_AUTHN", Session=started["Session"], ChallengeResponses={"USERNAME": username, "CREDENTIAL": "{}"}))
    client.delete_web_authn_credential(AccessToken=token, CredentialId=listed[0]["CredentialId"])
    out["after_delete"] = str(len(client.list_web_authn_credentials(AccessToken=token)["Credentials"]))
    print(json.dumps(out))
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
