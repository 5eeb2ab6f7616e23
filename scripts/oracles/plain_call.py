#!/usr/bin/env python3
"""Sends one unsigned request with Python's http.client, as a client that did not sign would.
Prints one JSON object: status, headers (lowercase names), body (text).
Usage: plain_call.py --url URL [--method M] [--header NAME:VALUE]...
"""
import argparse
import http.client
import json
from urllib.parse import urlsplit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--method", default="GET")
    parser.add_argument("--header", action="append", default=[])
    args = parser.parse_args()
    parts = urlsplit(args.url)
    headers = {}
    for header in args.header:
        name, value = header.split(":", 1)
        headers[name.strip()] = value.strip()
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request(args.method, parts.path + ("?" + parts.query if parts.query else ""), headers=headers)
    response = connection.getresponse()
    print(json.dumps({"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()},
                      "body": response.read().decode("utf-8", "replace")}))


if __name__ == "__main__":
    main()
