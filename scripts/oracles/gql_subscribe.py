#!/usr/bin/env python3
"""Subscribes with gql's AppSyncWebsocketsTransport (an AppSync real-time client we did not
write) and prints each data message as one JSON line {"data": ...}; exits after --count.

IAM signs with the given key pair (botocore, as gql does); API_KEY sends the key.
Usage: gql_subscribe.py --url http://HOST/graphql --mode iam|api-key [--key-id K --secret S]
       [--api-key K] --query Q [--variables JSON] --count N [--timeout S]
"""
import argparse
import asyncio
import json
import sys
from urllib.parse import urlparse

from botocore.credentials import Credentials
from gql import Client, gql
from gql.transport.appsync_auth import AppSyncApiKeyAuthentication, AppSyncIAMAuthentication
from gql.transport.appsync_websockets import AppSyncWebsocketsTransport


async def run(args):
    host = urlparse(args.url).netloc
    if args.mode == "iam":
        auth = AppSyncIAMAuthentication(host=host, region_name="us-east-1",
                                        credentials=Credentials(args.key_id, args.secret))
    else:
        auth = AppSyncApiKeyAuthentication(host=host, api_key=args.api_key)
    realtime = args.url.replace("http://", "ws://") + "/realtime"
    transport = AppSyncWebsocketsTransport(url=realtime, auth=auth)
    received = 0
    async with Client(transport=transport) as session:
        async for result in session.subscribe(gql(args.query), variable_values=json.loads(args.variables or "{}")):
            print(json.dumps({"data": result}, sort_keys=True), flush=True)
            received += 1
            if received >= args.count:
                return 0
    return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", choices=["iam", "api-key"], required=True)
    parser.add_argument("--key-id")
    parser.add_argument("--secret")
    parser.add_argument("--api-key")
    parser.add_argument("--query", required=True)
    parser.add_argument("--variables")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30)
    args = parser.parse_args()
    try:
        return asyncio.run(asyncio.wait_for(run(args), args.timeout))
    except Exception as error:
        print(json.dumps({"error": f"{type(error).__name__}: {error}"}), flush=True)
        return 1


if __name__ == "__main__":
    sys.exit(main())
