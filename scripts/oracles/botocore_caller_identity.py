"""botocore's own chain (a Session with this process's environment, AWS_PROFILE included)
signs STS GetCallerIdentity at AWS_ENDPOINT_URL_STS: prints {"arn", "access_key", "method"} as
JSON, or {"error": ...}."""
import json

import botocore.session

try:
    session = botocore.session.Session()
    credentials = session.get_credentials()
    client = session.create_client("sts", region_name="us-east-1")
    identity = client.get_caller_identity()
    print(json.dumps({"arn": identity["Arn"], "access_key": credentials.get_frozen_credentials().access_key, "method": credentials.method}))
except Exception as error:  # the test only needs to know it failed, and how
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
