"""A raw TCP server that misbehaves on purpose, standing in for the broken servers of the
adversarial run (issue 19). It reads one request head and then, by path:

  /hang/...        never answers and keeps the connection open (a dead backend behind a proxy)
  /stream/N        answers 200 with N bytes of 'x', written as fast as the client reads
  /cut/N           announces N bytes of 'x', sends half of them and closes the connection
  /always500/...   answers 500 with a small JSON error, every time
  /capture/...     answers 200 with the raw bytes of the request head as the body
  /discovery/...   an OpenID discovery document whose endpoints name gopher:// and file:// URLs
  /keepalive/...   answers 200 and keeps the connection open, then closes it without an
                   answer when the next request head arrives on it (a kept-alive connection the
                   server dropped just as a client reused it)
  /delay/MS        answers 200 after MS milliseconds
  /trickle/N       announces N bytes of JSON and sends them one a second (a slow-loris
                   answer that never stalls long enough for a stall limit)
  /_seen?target=T  {"seen": true} once a request for the path T has arrived (so a test knows a
                   request is under way without sleeping)
  /_script/KEY?op=OP&steps=S1,S2,...
                   scripts the AWS service stand-in at /svc/KEY/: each request there (body read
                   whole) takes the next step, then "ok" once the steps run out. A step is
                   throttle, 500 or skew (a signing-time refusal whose Date is an hour ahead),
                   each in the error form of OP's protocol, garbage (a 200 whose body is not
                   the protocol's), or ok (OP's success answer).
                   OP is sts, sso, cognito-identity, cognito-idp, kms, ssm or secretsmanager.
  /_attempts/KEY   {"attempts": N}: how many requests /svc/KEY/ has had

Any other path gets 404. Only /svc/ reads a body beyond the head."""
import argparse
import email.utils
import json
import socket
import threading
import time
from urllib.parse import parse_qs, urlsplit

SEEN = set()
SEEN_LOCK = threading.Lock()


def read_head(conn):
    data = b""
    while b"\r\n\r\n" not in data and len(data) < 1 << 16:
        chunk = conn.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def reply(conn, status, body, content_type="application/json", extra=""):
    head = f"HTTP/1.1 {status} X\r\nContent-Type: {content_type}\r\nContent-Length: {len(body)}\r\n{extra}Connection: close\r\n\r\n"
    conn.sendall(head.encode() + body)


SCRIPTS = {}
SCRIPTS_LOCK = threading.Lock()
QUERY_OPS = {"sts"}
REST_OPS = {"sso"}


def read_body(conn, head):
    """The rest of the request's body, by its Content-Length."""
    top, _, body = head.partition(b"\r\n\r\n")
    length = 0
    for line in top.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk
    return top, body


def success(op, top):
    """OP's success answer: what the real service's answer holds, with fixed values."""
    expiry = int(time.time()) + 3600
    if op == "sts":
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(expiry))
        return ("text/xml", f"<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>ASIAFAULT</AccessKeyId>"
                f"<SecretAccessKey>fault-secret</SecretAccessKey><SessionToken>fault-token</SessionToken>"
                f"<Expiration>{stamp}</Expiration></Credentials></AssumeRoleResult>"
                f"<ResponseMetadata><RequestId>r-ok</RequestId></ResponseMetadata></AssumeRoleResponse>")
    if op == "sso":
        return ("application/json", json.dumps({"roleCredentials": {
            "accessKeyId": "ASIAFAULT", "secretAccessKey": "fault-secret", "sessionToken": "fault-token", "expiration": expiry * 1000}}))
    target = ""
    for line in top.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"x-amz-target":
            target = value.strip().decode().split(".")[-1]
    answers = {
        "GetId": {"IdentityId": "us-east-1:00000000-0000-0000-0000-000000000001"},
        "GetCredentialsForIdentity": {"IdentityId": "us-east-1:00000000-0000-0000-0000-000000000001", "Credentials": {
            "AccessKeyId": "ASIAFAULT", "SecretKey": "fault-secret", "SessionToken": "fault-token", "Expiration": expiry}},
        "RevokeToken": {},
        "GenerateDataKey": {"KeyId": "arn:aws:kms:us-east-1:123456789012:key/fault", "Plaintext": "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
                            "CiphertextBlob": "AQIDBA=="},
        "GetParameter": {"Parameter": {"Name": "/fault", "Type": "SecureString", "Value": "v", "Version": 1}},
        "GetSecretValue": {"ARN": "arn:aws:secretsmanager:us-east-1:123456789012:secret:fault", "Name": "fault", "SecretString": "v",
                           "VersionId": "00000000-0000-0000-0000-000000000001", "VersionStages": ["AWSCURRENT"]},
    }
    return ("application/x-amz-json-1.1", json.dumps(answers.get(target, {})))


def failure(op, step):
    """STEP's error answer in OP's protocol: (status, content type, body, extra header lines)."""
    ahead = email.utils.formatdate(time.time() + 3600, usegmt=True)
    throttle_code = "TooManyRequestsException" if op.startswith("cognito") or op == "sso" else "Throttling" if op == "sts" else "ThrottlingException"
    status, code, message, extra = {
        "throttle": (400, throttle_code, "Rate exceeded", ""),
        "500": (500, "InternalFailure", "We encountered an internal error", ""),
        "skew": (403 if op == "sts" else 400, "SignatureDoesNotMatch" if op == "sts" else "InvalidSignatureException",
                 "Signature expired: 20261127T000000Z is now earlier than 20261127T010000Z (20261127T011500Z - 15 min.)",
                 f"Date: {ahead}\r\n"),
    }[step]
    if op in QUERY_OPS:
        body = (f"<ErrorResponse><Error><Type>Sender</Type><Code>{code}</Code><Message>{message}</Message></Error>"
                f"<RequestId>r-{step}</RequestId></ErrorResponse>")
        return status, "text/xml", body, extra
    if op in REST_OPS:
        return (429 if step == "throttle" else status), "application/json", json.dumps({"message": message}), extra + f"x-amzn-ErrorType: {code}\r\n"
    return status, "application/x-amz-json-1.1", json.dumps({"__type": code, "message": message}), extra + "x-amzn-RequestId: r-fault\r\n"


def scripted(conn, head, key):
    top, _ = read_body(conn, head)
    with SCRIPTS_LOCK:
        script = SCRIPTS.setdefault(key, {"op": "sts", "steps": [], "attempts": 0})
        script["attempts"] += 1
        step = script["steps"].pop(0) if script["steps"] else "ok"
        op = script["op"]
    if step == "ok":
        content_type, body = success(op, top)
        reply(conn, 200, body.encode(), content_type, "x-amzn-RequestId: r-ok\r\n")
    elif step == "garbage":
        reply(conn, 200, b"this is not the protocol's answer {", "application/json")
    else:
        status, content_type, body, extra = failure(op, step)
        reply(conn, status, body.encode(), content_type, extra)


def serve(conn, port):
    try:
        head = read_head(conn)
        parts = head.split(b" ", 2)
        path = parts[1].decode("latin-1") if len(parts) > 1 else "/"
        with SEEN_LOCK:
            SEEN.add(path)
        if path.startswith("/_script/"):
            key = urlsplit(path).path.split("/")[2]
            query = parse_qs(urlsplit(path).query)
            steps = [step for step in query.get("steps", [""])[0].split(",") if step]
            with SCRIPTS_LOCK:
                SCRIPTS[key] = {"op": query.get("op", ["sts"])[0], "steps": steps, "attempts": 0}
            reply(conn, 200, b'{"scripted": true}')
        elif path.startswith("/_attempts/"):
            with SCRIPTS_LOCK:
                attempts = SCRIPTS.get(path.split("/")[2], {}).get("attempts", 0)
            reply(conn, 200, json.dumps({"attempts": attempts}).encode())
        elif path.startswith("/svc/"):
            scripted(conn, head, path.split("/")[2])
        elif path.startswith("/_seen"):
            target = parse_qs(urlsplit(path).query).get("target", [""])[0]
            with SEEN_LOCK:
                seen = target in SEEN
            reply(conn, 200, json.dumps({"seen": seen}).encode())
        elif path.startswith("/hang"):
            threading.Event().wait(3600)
        elif path.startswith("/stream/"):
            size = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode())
            block = b"x" * (1 << 16)
            while size > 0:
                sent = conn.send(block[: min(size, len(block))])
                size -= sent
        elif path.startswith("/cut/"):
            size = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {size}\r\nConnection: close\r\n\r\n".encode())
            conn.sendall(b"x" * (size // 2))
        elif path.startswith("/keepalive"):
            body = json.dumps({"target": path}).encode()
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
            read_head(conn)
        elif path.startswith("/delay/"):
            threading.Event().wait(int(path.split("/")[2]) / 1000)
            reply(conn, 200, json.dumps({"target": path}).encode())
        elif path.startswith("/trickle/"):
            count = int(path.split("/")[2])
            conn.sendall(f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {count}\r\n\r\n".encode())
            for _ in range(count):
                conn.sendall(b" ")
                threading.Event().wait(1)
        elif path.startswith("/always500"):
            reply(conn, 500, b'{"message": "Internal Server Error"}')
        elif path.startswith("/capture"):
            reply(conn, 200, head, "application/octet-stream")
        elif path.startswith("/discovery"):
            issuer = f"http://127.0.0.1:{port}/discovery"
            document = {
                "issuer": issuer, "authorization_endpoint": f"{issuer}/authorize",
                "token_endpoint": f"gopher://127.0.0.1:{port}/_token", "jwks_uri": "file:///etc/passwd",
                "device_authorization_endpoint": f"gopher://127.0.0.1:{port}/_device",
            }
            reply(conn, 200, json.dumps(document).encode())
        else:
            reply(conn, 404, b'{"message": "no such fault"}')
    except OSError:
        pass
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    listener = socket.create_server(("127.0.0.1", args.port), backlog=128)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args.port), daemon=True).start()


if __name__ == "__main__":
    main()
