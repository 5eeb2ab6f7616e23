#!/usr/bin/env python3
"""aws-c-auth (the C signer under the AWS SDKs, through PyPI's awscrt) on the same GET as
Benchmarks/SigV4Bench, in-process: SigV4 in header and query (presigned) mode, and SigV4a.

Each call builds the awscrt HttpRequest and signs it, waiting for the signing future, as a
Python caller must. The binding's own per-call cost is estimated by the same loop with the
signing call replaced by a completed future (request construction, one call into the C
extension and a future's result): subtracting it from the per-signature time gives an
estimate of aws-c-auth's own rate ("native"). Prints one JSON object; best of five rounds.
Usage: awscrt_bench.py [seconds-per-measurement]
"""
import datetime
import json
import sys
from concurrent.futures import Future

from awscrt import auth, http

from bench_rate import rate

HOST = "abc123.execute-api.us-east-1.amazonaws.com"
PATH = "/prod/items/42?b=2&a=1"
PROVIDER = auth.AwsCredentialsProvider.new_static("AKIDBENCHMARK", "benchmark-secret-key-not-a-real-one-000000")
DATE = datetime.datetime(2026, 11, 23, 12, 0, 0, tzinfo=datetime.timezone.utc)


def config(algorithm, signature_type):
    return auth.AwsSigningConfig(
        algorithm=algorithm, signature_type=signature_type, credentials_provider=PROVIDER, region="us-east-1",
        service="execute-api", date=DATE)


HEADER = config(auth.AwsSigningAlgorithm.V4, auth.AwsSignatureType.HTTP_REQUEST_HEADERS)
QUERY = config(auth.AwsSigningAlgorithm.V4, auth.AwsSignatureType.HTTP_REQUEST_QUERY_PARAMS)
V4A = config(auth.AwsSigningAlgorithm.V4_ASYMMETRIC, auth.AwsSignatureType.HTTP_REQUEST_HEADERS)


def request():
    return http.HttpRequest("GET", PATH, http.HttpHeaders([("Host", HOST)]))


def signer(signing_config):
    return lambda: auth.aws_sign_request(request(), signing_config).result()


def binding_only():
    done = Future()
    done.set_result(request())
    return done.result()


seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
results = {"header": rate(signer(HEADER), seconds), "query": rate(signer(QUERY), seconds), "v4a": rate(signer(V4A), seconds / 2),
           "binding": rate(binding_only, seconds)}
overhead = 1 / results["binding"]
results["header_native"] = 1 / max(1 / results["header"] - overhead, 1e-9)
print(json.dumps(results))
