"""botocore's own credential chain (a Session, as boto3 makes it) with this process's
environment: prints the frozen credentials it resolved and the method that answered, as JSON,
or {"error": ...} when it found none or failed."""
import json

import botocore.session

try:
    credentials = botocore.session.Session().get_credentials()
    if credentials is None:
        raise LookupError("no credentials")
    frozen = credentials.get_frozen_credentials()
    print(json.dumps({"access_key": frozen.access_key, "secret_key": frozen.secret_key, "token": frozen.token, "method": credentials.method}))
except Exception as error:  # botocore raises many kinds; the test only needs to know it refused
    print(json.dumps({"error": type(error).__name__}))
