#!/usr/bin/env python3
"""Run inside `multiauth exec`: botocore's own chain (a Session, as boto3 makes it) resolves
credentials from whatever exec gave this process (its environment, the container endpoint
or the instance metadata emulator), then signs GetCallerIdentity with them to STS_URL (the
stand-in that checks signatures with botocore). Prints JSON: the provider method, the access
key id, the region botocore found, and the caller ARN STS answered (or the error code)."""
import json
import sys

import botocore.session
from botocore.exceptions import ClientError

session = botocore.session.Session()
credentials = session.get_credentials()
result = {"method": credentials.method if credentials else None, "region": session.get_config_variable("region")}
if credentials is not None:
    frozen = credentials.get_frozen_credentials()
    result["access_key"] = frozen.access_key
    client = session.create_client("sts", endpoint_url=sys.argv[1], region_name=result["region"] or "us-east-1")
    try:
        result["caller_arn"] = client.get_caller_identity()["Arn"]
    except ClientError as error:
        result["caller_arn"] = error.response["Error"]["Code"]
print(json.dumps(result))
