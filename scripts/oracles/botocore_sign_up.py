"""botocore's own `cognito-idp` client through the Cognito stand-in's passwordless sign-up:
SignUp with an email attribute and no password, the code read from the stand-in's outbox (as a
user reads an email), ConfirmSignUp, then InitiateAuth USER_AUTH with ConfirmSignUp's Session.
Its serializer must write each request the stand-in accepts and its parser read each answer.

Arguments: ENDPOINT CLIENT_ID USERNAME. Prints one JSON object of strings, or {"error": ...}."""
import json
import sys
import urllib.request

import botocore.session

try:
    endpoint, client_id, username = sys.argv[1:4]
    client = botocore.session.Session().create_client(
        "cognito-idp", region_name="us-east-1", endpoint_url=endpoint, aws_access_key_id="x", aws_secret_access_key="x")
    signed_up = client.sign_up(ClientId=client_id, Username=username, UserAttributes=[{"Name": "email", "Value": username + "@example.com"}])
    request = urllib.request.Request(endpoint.rstrip("/") + "/_peer/outbox", data=json.dumps({"username": username}).encode(), method="POST")
    code = json.load(urllib.request.urlopen(request, timeout=10))["code"]
    confirmed = client.confirm_sign_up(ClientId=client_id, Username=username, ConfirmationCode=code)
    started = client.initiate_auth(AuthFlow="USER_AUTH", ClientId=client_id, AuthParameters={"USERNAME": username}, Session=confirmed["Session"])
    print(json.dumps({
        "confirmed": str(signed_up["UserConfirmed"]), "medium": signed_up["CodeDeliveryDetails"]["DeliveryMedium"],
        "tokens": str("AccessToken" in started.get("AuthenticationResult", {}))}))
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
