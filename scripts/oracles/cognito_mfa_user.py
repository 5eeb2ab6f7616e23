"""Creates a confirmed user with a permanent password in the moto pool named on the command
line (MOTO_URL POOL_ID USERNAME PASSWORD), through boto3. Prints {"username": ...}."""
import json
import sys

import boto3

url, pool, username, password = sys.argv[1:5]
idp = boto3.session.Session(aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1").client(
    "cognito-idp", endpoint_url=url)
idp.admin_create_user(UserPoolId=pool, Username=username, TemporaryPassword="Temp-Passw0rd!", MessageAction="SUPPRESS")
idp.admin_set_user_password(UserPoolId=pool, Username=username, Password=password, Permanent=True)
print(json.dumps({"username": username}))
