"""botocore's own ContainerProvider, run with this process's environment (the
AWS_CONTAINER_* variables the test sets). Prints the credentials it obtained as JSON, or
{"error": ...} when it refused or failed."""
import json

from botocore.credentials import ContainerProvider

try:
    credentials = ContainerProvider().load()
    frozen = credentials.get_frozen_credentials()
    print(json.dumps({"access_key": frozen.access_key, "secret_key": frozen.secret_key, "token": frozen.token}))
except Exception as error:  # botocore raises ValueError or CredentialRetrievalError
    print(json.dumps({"error": type(error).__name__}))
