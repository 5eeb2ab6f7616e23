"""Creates a user in the moto pool named on the command line (MOTO_URL POOL_ID USERNAME
[PASSWORD]), through boto3: confirmed with PASSWORD when one is given, else left with the
temporary password Temp-Passw0rd!, to be changed at the first sign-in. Prints {"username": ...}."""
import json
import sys

import boto3

url, pool, username = sys.argv[1:4]
password = sys.argv[4] if len(sys.argv) > 4 else None
idp = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1").client(
    "cognito-idp", endpoint_url=url)
idp.admin_create_user(UserPoolId=pool, Username=username, TemporaryPassword="Temp-Passw0rd!", MessageAction="SUPPRESS")
if password is not None:
    idp.admin_set_user_password(UserPoolId=pool, Username=username, Password=password, Permanent=True)
print(json.dumps({"username": username}))
