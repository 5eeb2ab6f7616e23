#!/usr/bin/env python3
"""Derive S3 signing cases (aws-c-auth layout) from botocore's S3SigV4Auth / S3SigV4QueryAuth.

Neither official suite has an S3 case (no normalization, no double encoding,
x-amz-content-sha256 signed, UNSIGNED-PAYLOAD when presigned). This script writes them
under s3/, computed by botocore, an implementation independent of MultiAuth.
context.json carries one key of ours, "double_uri_encode": false.

Usage (from this folder): python3 derive_s3_cases.py
"""
import datetime
import json
import os
import sys

from botocore.auth import S3SigV4Auth, S3SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "oracles"))
from botocore_stages import Recorder, freeze_clock  # noqa: E402

STAGE_FILES = ("canonical-request", "string-to-sign", "signature")
freeze_clock(datetime.datetime(2013, 5, 24, 0, 0, 0, tzinfo=datetime.timezone.utc))
KEY_ID, SECRET = "AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
HOST = "examplebucket.s3.amazonaws.com"

# name: (method, target, extra headers, body, session token, presign too)
CASES = {
    "get-object-range": ("GET", "/test.txt", [("Range", "bytes=0-9")], b"", None, True),
    "get-bucket-lifecycle": ("GET", "/?lifecycle", [], b"", None, False),
    "list-objects": ("GET", "/?max-keys=2&prefix=J", [], b"", None, True),
    "put-object-encoded-key": ("PUT", "/my%20photos/a%2Bb%40c%28d%29%24e%3A/%E1%88%B4.txt",
                               [("Content-Type", "text/plain")], b"Welcome to Amazon S3.", None, False),
    "get-dot-segments-kept": ("GET", "/a/./b/../c//d", [], b"", None, True),
    "get-raw-reserved-characters": ("GET", "/file@name+(1)$=,;:.txt", [], b"", None, True),
    "get-with-session-token": ("GET", "/test.txt", [], b"", "AQoDYXdzEXAMPLE+token/==", True),
    "get-response-overrides": ("GET", "/test.txt?response-content-type=text%2Fplain&response-cache-control=no-cache",
                               [], b"", None, True),
}


def request_text(method, target, headers, body):
    lines = [f"{method} {target} HTTP/1.1"] + [f"{name}:{value}" for name, value in headers]
    return ("\n".join(lines) + "\n\n").encode() + body


def write(folder, name, data):
    with open(os.path.join(folder, name), "wb") as handle:
        handle.write(data if isinstance(data, bytes) else data.encode())


def derive(name, method, target, extra, body, token, presign):
    folder = os.path.join("s3", name)
    os.makedirs(folder, exist_ok=True)
    headers = [("Host", HOST)] + extra
    credentials = Credentials(KEY_ID, SECRET, token)
    context = {"credentials": {"access_key_id": KEY_ID, "secret_access_key": SECRET},
               "expiration_in_seconds": 86400, "normalize": False, "double_uri_encode": False,
               "region": "us-east-1", "service": "s3", "sign_body": True, "timestamp": "2013-05-24T00:00:00Z"}
    if token:
        context["credentials"]["token"] = token
    write(folder, "context.json", json.dumps(context, indent=4) + "\n")
    write(folder, "request.txt", request_text(method, target, headers, body))

    request = AWSRequest(method=method, url=f"https://{HOST}{target}", data=body or None)
    for header, value in headers:
        request.headers[header] = value
    recorder = Recorder(S3SigV4Auth, credentials, "s3", "us-east-1", names=STAGE_FILES)
    recorder.signer.add_auth(request)
    for stage, text in recorder.stages.items():
        write(folder, f"header-{stage}.txt", text)
    write(folder, "header-signed-request.txt", request_text(method, target, list(request.headers.items()), body))

    if not presign:
        return
    request = AWSRequest(method=method, url=f"https://{HOST}{target}")
    for header, value in headers:
        request.headers[header] = value
    recorder = Recorder(S3SigV4QueryAuth, credentials, "s3", "us-east-1", 86400, names=STAGE_FILES)
    recorder.signer.add_auth(request)
    for stage, text in recorder.stages.items():
        write(folder, f"query-{stage}.txt", text)
    presigned_target = request.url.split(HOST, 1)[1]
    write(folder, "query-signed-request.txt", request_text(method, presigned_target, headers, b""))


if __name__ == "__main__":
    os.chdir(os.path.dirname(os.path.abspath(__file__)))
    for case_name, spec in CASES.items():
        derive(case_name, *spec)
