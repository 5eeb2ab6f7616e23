#!/usr/bin/env python3
"""Amazon Bedrock short-term API keys through AWS's own generator (aws-bedrock-token-generator,
on botocore's SigV4QueryAuth), as the oracle for `multiauth token bedrock`.

  bedrock_key.py generate --key AKID --secret S [--token T] --region R --expires SECONDS --date YYYYMMDDTHHMMSSZ
      prints the generator's key for these credentials, signed at that time
  bedrock_key.py check --secret S KEY
      decodes KEY, signs the same request again with botocore (its credential, date, expiry and
      token), and prints {"valid": bool, "region", "expires", "access_key_id", "fields": {...}}:
      the check a Bedrock endpoint makes, with the secret known
"""
import argparse
import base64
import datetime
import json
from unittest import mock
from urllib.parse import parse_qsl, urlsplit

import botocore.auth
from botocore.credentials import Credentials
from aws_bedrock_token_generator import token_generator

PREFIX = "bedrock-api-key-"


def at(date):
    """botocore's signing clock, fixed at `date`."""
    fixed = datetime.datetime.strptime(date, "%Y%m%dT%H%M%SZ")

    class Fixed(datetime.datetime):
        @classmethod
        def utcnow(cls):
            return cls(*fixed.timetuple()[:6])

        @classmethod
        def now(cls, tz=None):
            return cls(*fixed.timetuple()[:6], tzinfo=tz)

    return mock.patch.object(botocore.auth.datetime, "datetime", Fixed)


def generate(key, secret, token, region, expires, date):
    with at(date):
        return token_generator._generate_token(Credentials(key, secret, token), region, expires)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    make = sub.add_parser("generate")
    make.add_argument("--key", required=True)
    make.add_argument("--secret", required=True)
    make.add_argument("--token")
    make.add_argument("--region", required=True)
    make.add_argument("--expires", type=int, required=True)
    make.add_argument("--date", required=True)
    check = sub.add_parser("check")
    check.add_argument("--secret", required=True)
    check.add_argument("key")
    args = parser.parse_args()
    if args.command == "generate":
        print(generate(args.key, args.secret, args.token, args.region, args.expires, args.date))
        return
    assert args.key.startswith(PREFIX), "not a Bedrock API key"
    url = base64.b64decode(args.key[len(PREFIX):]).decode()
    fields = dict(parse_qsl(urlsplit("https://" + url).query))
    key_id, day, region, service, _ = fields["X-Amz-Credential"].split("/")
    again = generate(key_id, args.secret, fields.get("X-Amz-Security-Token"), region, int(fields["X-Amz-Expires"]), fields["X-Amz-Date"])
    print(json.dumps({"valid": again == args.key and service == "bedrock" and url.startswith("bedrock.amazonaws.com/?"),
                      "region": region, "expires": int(fields["X-Amz-Expires"]), "access_key_id": key_id, "fields": fields}))


if __name__ == "__main__":
    main()
