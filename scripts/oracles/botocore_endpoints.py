"""The endpoint botocore's own clients resolve for each service named on the command line
(region us-east-1), with this process's environment (AWS_ENDPOINT_URL_*, AWS_ENDPOINT_URL,
AWS_IGNORE_CONFIGURED_ENDPOINT_URLS, AWS_CONFIG_FILE / AWS_PROFILE for endpoint_url). Prints
{service: endpoint URL} as JSON."""
import json
import sys

import botocore.session

session = botocore.session.Session()
print(json.dumps({
    service: session.create_client(service, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y").meta.endpoint_url
    for service in sys.argv[1:]
}))
