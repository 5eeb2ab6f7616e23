#!/usr/bin/env python3
"""Signs one request with an implementation we did not write and sends it, as a client of
the gateway would. botocore signs SigV4 in header form; awscrt (aws-c-auth) signs SigV4 and
SigV4a (ECDSA P-256) in header or query (presigned) form. `--tamper` changes one part of
the request after signing, as an attacker would. Prints one JSON object: status, headers,
body (text).
Usage: signed_call.py --signer botocore|awscrt --url URL --key AKID --secret SECRET
         [--form header|query] [--algorithm v4|v4a] [--region R] [--service S] [--method M]
         [--body TEXT | --body-file PATH] [--header NAME:VALUE]... [--date-offset SECONDS]
         [--tamper path|query|header|body|last-byte] [--print-only] [--via URL [--via-header NAME:VALUE]...]
         [--grpc-check HOST:PORT [--grpc-body none|whole|partial] [--grpc-raw-headers]]
(`body` appends a byte after signing; `last-byte` changes the body's last byte, so only its
hash tells.) `--via` sends the signed request, as an auth-checking proxy would, to another
server: to VIA's host and port, with VIA's path before the signed target (Envoy ext_authz's
`path_prefix`), the signed headers (Host included) and `--via-header` fields added.
`--grpc-check` asks an ext_authz gRPC service about the signed request as Envoy's filter
does (envoy.service.auth.v3.Authorization/Check, with the xds-protos classes generated from
Envoy's own protos): headers lower-cased in `headers` (or `header_map` with
`--grpc-raw-headers`), `:authority`, `:method` and `:path` among them; with `--grpc-body`
whole or partial, the body (or its first half) in `raw_body` and `x-envoy-auth-partial-body`,
as `with_request_body` with `pack_as_bytes` sends them. It prints status (200 for an OK
answer, else the denied_response's status), rpc_code, headers, headers_to_remove and body.
"""
import argparse
import datetime
import http.client
import io
import json
from urllib.parse import urlsplit


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--signer", choices=["botocore", "awscrt"], required=True)
    parser.add_argument("--url", required=True)
    parser.add_argument("--key", required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--form", choices=["header", "query"], default="header")
    parser.add_argument("--algorithm", choices=["v4", "v4a"], default="v4")
    parser.add_argument("--region", default="us-east-1")
    parser.add_argument("--service", default="execute-api")
    parser.add_argument("--method", default="GET")
    parser.add_argument("--body", default="")
    parser.add_argument("--body-file", help="send this file's bytes as the body")
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--date-offset", type=int, default=0)
    parser.add_argument("--tamper", choices=["path", "query", "header", "body", "last-byte"])
    parser.add_argument("--print-only", action="store_true", help="print the signed target and headers, send nothing")
    parser.add_argument("--via", help="send to this server instead, its path before the signed target")
    parser.add_argument("--via-header", action="append", default=[])
    parser.add_argument("--grpc-check", help="ask this ext_authz gRPC service instead")
    parser.add_argument("--grpc-body", choices=["none", "whole", "partial"], default="none")
    parser.add_argument("--grpc-raw-headers", action="store_true")
    return parser.parse_args()


def grpc_check(args, target, headers, body):
    import grpc
    from envoy.service.auth.v3 import external_auth_pb2, external_auth_pb2_grpc
    request = external_auth_pb2.CheckRequest()
    http = request.attributes.request.http
    http.method, http.path, http.scheme = args.method, target, urlsplit(args.url).scheme
    fields = {name.lower(): value for name, value in headers.items() if name.lower() != "host"}
    fields.update({":authority": headers.get("Host", ""), ":method": args.method, ":path": target})
    http.host = fields[":authority"]
    if args.grpc_body != "none" and body:
        sent = body if args.grpc_body == "whole" else body[: len(body) // 2]
        http.raw_body = sent
        fields["x-envoy-auth-partial-body"] = "false" if args.grpc_body == "whole" else "true"
    http.size = len(body)
    if body and "content-length" not in fields:
        fields["content-length"] = str(len(body))
    for name, value in fields.items():
        if args.grpc_raw_headers:
            http.header_map.headers.add(key=name, raw_value=value.encode())
        else:
            http.headers[name] = value
    request.attributes.source.address.socket_address.address = "127.0.0.1"
    with grpc.insecure_channel(args.grpc_check) as channel:
        answer = external_auth_pb2_grpc.AuthorizationStub(channel).Check(request, timeout=60)
    which = answer.WhichOneof("http_response")
    part = answer.ok_response if which == "ok_response" else answer.denied_response
    status = 200 if answer.status.code == 0 else part.status.code
    print(json.dumps({"status": status, "rpc_code": answer.status.code,
                      "headers": {option.header.key: option.header.value for option in part.headers},
                      "headers_to_remove": list(answer.ok_response.headers_to_remove),
                      "body": "" if which == "ok_response" else part.body}))


def sign_botocore(args, headers, body):
    from botocore.auth import SigV4Auth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    request = AWSRequest(method=args.method, url=args.url, data=body, headers=headers)
    SigV4Auth(Credentials(args.key, args.secret), args.service, args.region).add_auth(request)
    parts = urlsplit(args.url)
    return parts.path + ("?" + parts.query if parts.query else ""), dict(request.headers.items())


def sign_awscrt(args, headers, body):
    from awscrt import auth, http
    parts = urlsplit(args.url)
    target = parts.path + ("?" + parts.query if parts.query else "")
    request = http.HttpRequest(args.method, target, http.HttpHeaders(list(headers.items())), io.BytesIO(body))
    config = auth.AwsSigningConfig(
        algorithm=auth.AwsSigningAlgorithm.V4_ASYMMETRIC if args.algorithm == "v4a" else auth.AwsSigningAlgorithm.V4,
        signature_type=auth.AwsSignatureType.HTTP_REQUEST_QUERY_PARAMS if args.form == "query" else auth.AwsSignatureType.HTTP_REQUEST_HEADERS,
        credentials_provider=auth.AwsCredentialsProvider.new_static(args.key, args.secret),
        region=args.region, service=args.service,
        date=datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=args.date_offset),
        expiration_in_seconds=900 if args.form == "query" else None)
    signed = auth.aws_sign_request(request, config).result()
    return signed.path, {name: value for name, value in signed.headers}


def main():
    args = parse()
    parts = urlsplit(args.url)
    headers = {"Host": parts.netloc}
    for header in args.header:
        name, value = header.split(":", 1)
        headers[name.strip()] = value.strip()
    body = open(args.body_file, "rb").read() if args.body_file else args.body.encode()
    target, signed_headers = (sign_botocore if args.signer == "botocore" else sign_awscrt)(args, headers, body)
    if args.tamper == "path":
        target = target.replace(parts.path, parts.path + "x", 1)
    elif args.tamper == "query":
        target += ("&" if "?" in target else "?") + "extra=1"
    elif args.tamper == "header":
        name = next(n for n in signed_headers if n.lower().startswith("x-test"))
        signed_headers[name] += "-changed"
    elif args.tamper == "body":
        body += b"!"
    elif args.tamper == "last-byte":
        body = body[:-1] + bytes([body[-1] ^ 1])
    if args.print_only:
        print(json.dumps({"target": target, "headers": signed_headers}))
        return
    if args.grpc_check:
        for header in args.via_header:
            name, value = header.split(":", 1)
            signed_headers[name.strip()] = value.strip()
        grpc_check(args, target, signed_headers, body)
        return
    if args.via:
        via = urlsplit(args.via)
        parts, target = via, via.path.rstrip("/") + target
        for header in args.via_header:
            name, value = header.split(":", 1)
            signed_headers[name.strip()] = value.strip()
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    connection.request(args.method, target, body=body or None, headers=signed_headers)
    response = connection.getresponse()
    print(json.dumps({"status": response.status, "headers": {k.lower(): v for k, v in response.getheaders()},
                      "body": response.read().decode("utf-8", "replace")}))


if __name__ == "__main__":
    main()
