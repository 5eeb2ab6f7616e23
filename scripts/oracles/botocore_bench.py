#!/usr/bin/env python3
"""botocore's SigV4Auth on the same workloads as Benchmarks/SigV4Bench, in-process.

Each iteration builds the request from the URL and signs it, as botocore does per call.
Prints one JSON object: signatures per second, best of five rounds after a warm-up.
Usage: botocore_bench.py [seconds-per-measurement]
"""
import json
import sys

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from bench_rate import rate

URL = "https://abc123.execute-api.us-east-1.amazonaws.com/prod/items/42?b=2&a=1"
HOST = "abc123.execute-api.us-east-1.amazonaws.com"
CREDENTIALS = Credentials("AKIDBENCHMARK", "benchmark-secret-key-not-a-real-one-000000")
MEGABYTE = b"a" * (1 << 20)


def sign(method, body):
    request = AWSRequest(method=method, url=URL, headers={"Host": HOST}, data=body)
    SigV4Auth(CREDENTIALS, "execute-api", "us-east-1").add_auth(request)
    return request.headers["Authorization"]


if __name__ == "__main__":
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
    print(json.dumps({
        "get": rate(lambda: sign("GET", None), seconds),
        "post_1mib": rate(lambda: sign("POST", MEGABYTE), seconds),
    }))
