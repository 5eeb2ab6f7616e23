#!/usr/bin/env python3
"""Generate random SigV4 requests and sign them with botocore, an independent implementation.

Prints a JSON list; each entry holds the request as it goes on the wire and botocore's
canonical request, string to sign and signature. The Swift test suite signs the same
requests with MultiAuth and compares every stage. The clock is frozen, the generator seeded.

Usage: botocore_sigv4.py [--count N] [--seed S]
"""
import argparse
import datetime
import json
import random
from urllib.parse import quote

from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from botocore_stages import Recorder, freeze_clock

FROZEN = datetime.datetime(2026, 11, 22, 5, 38, 7, tzinfo=datetime.timezone.utc)
freeze_clock(FROZEN)

SERVICES = ["execute-api", "appsync", "s3"]
SEGMENT_CHARS = "abcXYZ019-_.~!$&'()*+,;=:@ ሴé%"
VALUE_CHARS = "abcXYZ019-_.~ /+=&?:@,ሴé%*'"
HEADER_VALUE_CHARS = "abc XYZ019-_.~/+=:;,\"()\t"
EXTRA_HEADERS = ["X-Custom-Header", "x-amz-meta-tag", "Content-Type", "X-Api-Key", "Accept", "x-AMZ-target",
                 "User-Agent", "X-Amzn-Trace-Id", "Expect"]


def random_text(rng, alphabet, low, high):
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def wire_segment(rng):
    """A path segment as a client would put it on the wire: percent-encoded UTF-8."""
    choice = rng.random()
    if choice < 0.08:
        return rng.choice([".", "..", ""])
    return quote(random_text(rng, SEGMENT_CHARS, 1, 8), safe="-_.~!$&'()*+,;=:@")


def wire_query(rng, allow_repeats):
    pairs = []
    for _ in range(rng.randint(0, 4)):
        if allow_repeats and pairs and rng.random() < 0.25:
            key = pairs[-1][0]
        else:
            key = quote(random_text(rng, VALUE_CHARS, 1, 6), safe="-_.~")
        value = None if rng.random() < 0.1 else quote(random_text(rng, VALUE_CHARS, 0, 8), safe="-_.~")
        pairs.append((key, value))
    return "&".join(k if v is None else f"{k}={v}" for k, v in pairs)


def host_for(rng, service):
    label = random_text(rng, "abcdefghijklmnopqrstuvwxyz0123456789", 4, 10)
    host = {
        "execute-api": f"{label}.execute-api.us-east-1.amazonaws.com",
        "appsync": f"{label}.appsync-api.eu-west-1.amazonaws.com",
        "s3": f"{label}.s3.amazonaws.com",
    }[service]
    if rng.random() < 0.2:
        host = host.upper()
    port = rng.choice(["", "", "", ":443", ":8443"])
    return host, port


def make_case(rng, index):
    service = SERVICES[index % len(SERVICES)]
    mode = "query" if index % 4 == 3 else "header"
    method = "GET" if mode == "query" else rng.choice(["GET", "POST", "PUT", "DELETE"])
    host, port = host_for(rng, service)
    path = "/" + "/".join(wire_segment(rng) for _ in range(rng.randint(0, 4)))
    if rng.random() < 0.2:
        path += "/"
    query = wire_query(rng, allow_repeats=(mode == "header"))
    url = f"https://{host}{port}{path}" + (f"?{query}" if query else "")
    headers = []
    if rng.random() < 0.5:
        headers.append(["Host", (host + port).lower() if port != ":443" else host.lower()])
    for _ in range(rng.randint(0, 3)):
        name = rng.choice(EXTRA_HEADERS)
        value = random_text(rng, HEADER_VALUE_CHARS, 0, 12)
        headers.append([name, "  " + value + " " if rng.random() < 0.3 else value])
    body = random_text(rng, "abc =&{}\":,xyz0123", 1, 64) if method in ("POST", "PUT") else ""
    token = random_text(rng, "ABCxyz0123456789+/=", 16, 48) if rng.random() < 0.3 else None
    return {"id": index, "service": service, "region": "eu-west-1" if service == "appsync" else "us-east-1",
            "mode": mode, "method": method, "url": url, "headers": headers, "body": body,
            "token": token, "expires": rng.choice([1, 60, 3600, 604800])}


def sign(case):
    credentials = Credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", case["token"])
    request = AWSRequest(method=case["method"], url=case["url"], data=case["body"].encode() or None)
    for name, value in case["headers"]:
        request.headers[name] = value  # HTTPHeaders appends: repeated names are kept in order
    s3 = case["service"] == "s3"
    if case["mode"] == "header":
        cls = S3SigV4Auth if s3 else SigV4Auth
        recording = Recorder(cls, credentials, case["service"], case["region"])
    else:
        cls = S3SigV4QueryAuth if s3 else SigV4QueryAuth
        recording = Recorder(cls, credentials, case["service"], case["region"], case["expires"])
    recording.signer.add_auth(request)
    case.update(recording.stages)
    case["date"] = FROZEN.strftime("%Y%m%dT%H%M%SZ")
    return case


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--seed", type=int, default=20261122)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(json.dumps([sign(make_case(rng, index)) for index in range(args.count)], ensure_ascii=False))


if __name__ == "__main__":
    main()
