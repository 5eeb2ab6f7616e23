"""botocore's own `sso` client (ListAccounts, ListAccountRoles, with its paginators) against the
portal named by AWS_ENDPOINT_URL_SSO, with the access token given as the first argument: prints
{"assignments": "ACCOUNT_ID/ACCOUNT_NAME/ROLE;..." sorted}, or {"error": ...}."""
import json
import sys

import botocore.session

try:
    client = botocore.session.Session().create_client("sso", region_name="us-east-1")
    token = sys.argv[1]
    found = []
    for page in client.get_paginator("list_accounts").paginate(accessToken=token, PaginationConfig={"PageSize": 2}):
        for account in page["accountList"]:
            roles = client.get_paginator("list_account_roles").paginate(accessToken=token, accountId=account["accountId"])
            for role_page in roles:
                found += [f"{account['accountId']}/{account.get('accountName', '')}/{role['roleName']}" for role in role_page["roleList"]]
    print(json.dumps({"assignments": ";".join(sorted(found))}))
except Exception as error:
    print(json.dumps({"error": f"{type(error).__name__}: {error}"}))
