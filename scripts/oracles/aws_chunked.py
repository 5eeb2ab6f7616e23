#!/usr/bin/env python3
"""aws-chunked oracle: the bodies of S3 streaming uploads, built independently of MultiAuth.

Reads JSON lines, one case each:
  {"mode": "unsigned-trailer"|"signed-trailer"|"signed", "checksum": "crc32"|"sha256"|null,
   "size": int, "chunk_size": int, "method": str, "url": str, "headers": [[name, value], ...],
   "amz_date": "YYYYMMDDTHHMMSSZ", "region": str, "secret": str}
The body is bytes(i % 251 for i in range(size)). For each case it prints
  {"seed": botocore's header signature over the given headers (the x-amz-content-sha256
   header is the payload hash, as botocore uses it), "length": len(body), "sha256": hex digest}.
unsigned-trailer bodies come from botocore's AwsChunkedWrapper. Signed bodies are framed
here from the S3 API reference's formulas (chunk and trailer strings to sign), since no
PyPI package signs aws-chunked chunks; the chain starts from botocore's seed signature.
"""
import base64
import datetime
import hashlib
import hmac
import io
import json
import sys
import zlib

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.httpchecksum import AwsChunkedWrapper, Crc32Checksum, Sha256Checksum

from botocore_stages import freeze_clock

EMPTY = hashlib.sha256(b"").hexdigest()


def signing_key(secret, date, region):
    key = ("AWS4" + secret).encode()
    for part in (date, region, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def seed_signature(case):
    when = datetime.datetime.strptime(case["amz_date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
    freeze_clock(when)
    request = AWSRequest(method=case["method"], url=case["url"], headers=dict(case["headers"]), data=b"")
    # SigV4Auth (not S3SigV4Auth, which replaces the header with the body's hash) signs the
    # streaming x-amz-content-sha256 value as the payload hash. Paths in the cases need no
    # escaping, so its path normalization equals S3's.
    SigV4Auth(Credentials("AKIDORACLE", case["secret"]), "s3", case["region"]).add_auth(request)
    return request.headers["Authorization"].rsplit("Signature=", 1)[1]


def signed_body(case, payload, seed):
    key = signing_key(case["secret"], case["amz_date"][:8], case["region"])
    scope = f"{case['amz_date'][:8]}/{case['region']}/s3/aws4_request"
    previous = seed
    out = bytearray()
    chunks = [payload[i:i + case["chunk_size"]] for i in range(0, len(payload), case["chunk_size"])] + [b""]
    for chunk in chunks:
        to_sign = "\n".join(["AWS4-HMAC-SHA256-PAYLOAD", case["amz_date"], scope, previous, EMPTY, hashlib.sha256(chunk).hexdigest()])
        previous = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        out += f"{len(chunk):x};chunk-signature={previous}\r\n".encode()
        if chunk or case["mode"] == "signed":
            out += chunk + b"\r\n"
    if case["mode"] == "signed-trailer":
        if case["checksum"] == "crc32":
            value = base64.b64encode((zlib.crc32(payload) & 0xFFFFFFFF).to_bytes(4, "big")).decode()
        else:
            value = base64.b64encode(hashlib.sha256(payload).digest()).decode()
        canonical = f"x-amz-checksum-{case['checksum']}:{value}\n"
        to_sign = "\n".join(["AWS4-HMAC-SHA256-TRAILER", case["amz_date"], scope, previous, hashlib.sha256(canonical.encode()).hexdigest()])
        trailer_signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
        out += canonical[:-1].encode() + b"\r\n" + f"x-amz-trailer-signature:{trailer_signature}\r\n\r\n".encode()
    return bytes(out)


for line in sys.stdin:
    case = json.loads(line)
    payload = bytes(i % 251 for i in range(case["size"]))
    seed = seed_signature(case)
    if case["mode"] == "unsigned-trailer":
        checksum = Crc32Checksum if case["checksum"] == "crc32" else Sha256Checksum
        body = AwsChunkedWrapper(io.BytesIO(payload), checksum_cls=checksum,
                                 checksum_name=f"x-amz-checksum-{case['checksum']}", chunk_size=case["chunk_size"]).read()
    else:
        body = signed_body(case, payload, seed)
    print(json.dumps({"seed": seed, "length": len(body), "sha256": hashlib.sha256(body).hexdigest()}), flush=True)
