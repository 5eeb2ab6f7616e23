"""botocore's own credential chain (a Session, as boto3 makes it) with this process's
environment: prints the frozen credentials it resolved and the method that answered, as JSON."""
import json

import botocore.session

credentials = botocore.session.Session().get_credentials()
frozen = credentials.get_frozen_credentials()
print(json.dumps({"access_key": frozen.access_key, "secret_key": frozen.secret_key, "token": frozen.token, "method": credentials.method}))
