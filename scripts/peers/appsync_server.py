#!/usr/bin/env python3
"""A local AppSync-like server for the multi-auth tests: GraphQL over HTTP, GraphQL subscriptions
over AppSync's real-time WebSocket protocol, and AppSync Events (HTTP publish, WebSocket
subscribe), all on one port (aiohttp, graphql-core).

HTTP: POST <api>/graphql serves the Post schema below with per-field multi-auth, as AppSync does:
the caller's mode comes from the request (SigV4 Authorization: AWS_IAM, verified with botocore
through api_server's check; x-api-key: API_KEY; a JWT: AMAZON_COGNITO_USER_POOLS when its issuer
is a Cognito pool, else OPENID_CONNECT, verified against every --jwks-url). A field whose
directives leave the caller's mode out resolves to null with AppSync's error (`Not Authorized to
access url on type Post`, errorType Unauthorized). Posts live in memory. POST /html/graphql
answers an HTML page (for the "server sent non-JSON" check). <api> is empty or `/t/<tag>`.

Real-time (GET <api>/graphql/realtime, subprotocol graphql-ws): the `header` query parameter
(base64 JSON) authorizes the connection when `connection_init` arrives (IAM: the SigV4 signature
of POST <api>/graphql/connect with body `{}`, checked with botocore), then `connection_ack` with
`connectionTimeoutMs`, `ka` every few seconds, `start` (authorized by
`payload.extensions.authorization`; IAM signs POST <api>/graphql with body = payload.data) ->
`start_ack`, `data` after each addPost whose arguments match the subscription's, executed with
the subscriber's mode (so an API-key subscriber gets url, ups and downs as null with errors),
`stop` -> `complete`.

Events: POST <api>/event publishes `{"channel", "events"}`; GET <api>/event/realtime takes the
subprotocols `aws-appsync-event-ws` and `header-<base64url JSON>`; `subscribe` (with its own
`authorization`; IAM signs POST <api>/event with body `{"channel": C}`) -> `subscribe_success`,
`data` with `event` (the published JSON string), `unsubscribe` -> `unsubscribe_success`.

Test hooks (per tag, so parallel tests do not meet): POST /_peer/tag/<tag> with JSON
`{"timeoutMs": N, "kaMs": N}` sets that tag's keep-alive; POST /_peer/drop/<tag> closes its
sockets; POST /_peer/silence/<tag> (`{"silent": true|false}`) stops its ka and data;
GET /_peer/tag/<tag> gives its open sockets and the connections and starts it has seen;
GET /_peer/stats gives counters and the last fan-out's duration; GET /_peer/subscribers?author=A
counts the live subscriptions filtering on that author.
Usage: appsync_server.py --port P --key AKID:SECRET --api-key K --jwks-url URL [--jwks-url URL]
"""
import argparse
import asyncio
import base64
import hashlib
import json
import re
import sys
import time
import urllib.request
import uuid

from aiohttp import WSMsgType, web
from graphql import GraphQLError, OperationType, build_schema, default_field_resolver, graphql_sync, parse

import api_server

SCHEMA = build_schema("""
directive @aws_api_key on OBJECT | FIELD_DEFINITION
directive @aws_iam on OBJECT | FIELD_DEFINITION
directive @aws_cognito_user_pools on OBJECT | FIELD_DEFINITION
directive @aws_oidc on OBJECT | FIELD_DEFINITION
directive @aws_subscribe(mutations: [String]) on FIELD_DEFINITION

type Post @aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc {
  id: ID!
  author: String!
  title: String
  content: String
  url: String @aws_iam
  ups: Int @aws_iam
  downs: Int @aws_iam
  version: Int!
}

type Query @aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc {
  getPost(id: ID!): Post
  listPosts: [Post]
}

type Mutation {
  addPost(id: ID!, author: String!, title: String, content: String, url: String, ups: Int, downs: Int): Post @aws_iam @aws_cognito_user_pools
}

type Subscription @aws_api_key @aws_iam @aws_cognito_user_pools @aws_oidc {
  onCreatePost(author: String, id: ID): Post @aws_subscribe(mutations: ["addPost"])
}
""")
DIRECTIVE = {"AWS_IAM": "aws_iam", "API_KEY": "aws_api_key", "AMAZON_COGNITO_USER_POOLS": "aws_cognito_user_pools",
             "OPENID_CONNECT": "aws_oidc"}
IAM_HEADERS = ("accept", "content-encoding", "content-type")
POSTS = {}
STATE = {"keys": {}, "api_keys": set(), "jwks_urls": [], "key_sets": {}, "tags": {}, "sockets": {}, "silent": set(),
         "graphql_subscriptions": {}, "event_subscriptions": {},
         "stats": {"connections": 0, "starts": 0, "data_sent": 0, "events_sent": 0, "rejected": 0, "last_fanout_ms": 0.0}}


def allowed(info):
    """The caller's mode must be among the field's directives, else the type's."""
    field = info.parent_type.fields[info.field_name]
    names = [d.name.value for d in directives(field) if d.name.value != "aws_subscribe"]
    if not names:
        names = [d.name.value for d in directives(info.parent_type)]
    return DIRECTIVE[info.context["mode"]] in names


def directives(definition):
    return (definition.ast_node.directives if definition.ast_node else None) or ()


def resolve(parent, info, **arguments):
    if not allowed(info):
        raise GraphQLError(f"Not Authorized to access {info.field_name} on type {info.parent_type.name}")
    if info.parent_type.name == "Query":
        return POSTS.get(arguments["id"]) if info.field_name == "getPost" else list(POSTS.values())
    if info.parent_type.name == "Mutation":
        post = dict(arguments, version=POSTS.get(arguments["id"], {}).get("version", 0) + 1)
        POSTS[arguments["id"]] = post
        return post
    if info.parent_type.name == "Subscription":
        return parent["post"]
    return default_field_resolver(parent, info, **arguments)


def graphql_payload(result):
    payload = {"data": result.data}
    if result.errors:
        payload["errors"] = [{
            "path": error.path, "data": None, "errorType": "Unauthorized" if error.message.startswith("Not Authorized") else None,
            "errorInfo": None, "message": error.message,
            "locations": [{"line": l.line, "column": l.column, "sourceName": None} for l in (error.locations or [])],
        } for error in result.errors]
    return payload


# -- authorization ---------------------------------------------------------------------------

class SignedCall:
    """What api_server.Handler.check_iam reads of a request, for a call that never was one (a
    real-time handshake or start is authorized as the POST it signs)."""

    def __init__(self, path, headers):
        self.command, self.path = "POST", path
        self.headers = {name.lower(): value for name, value in headers.items()}
        self.headers["host"] = self.headers.get("host", "")
        self.server = type("Server", (), {"keys": STATE["keys"], "clock_offset": 0.0})

    def __getattr__(self, name):
        raise AttributeError(name)


class Caseless(dict):
    def get(self, key, default=None):
        return super().get(key.lower(), default)


def check_iam(path, headers, body):
    call = SignedCall(path, headers)
    call.headers = Caseless(call.headers)
    problem = api_server.Handler.check_iam(call, body, hashlib.sha256(body).hexdigest())
    return problem and problem[1]


def jwt_issuer(token):
    from joserfc import jwt
    from joserfc.jwk import KeySet
    token = token[len("Bearer "):] if token.startswith("Bearer ") else token
    for url in STATE["jwks_urls"]:
        try:
            if url not in STATE["key_sets"]:
                with urllib.request.urlopen(url, timeout=5) as response:
                    STATE["key_sets"][url] = KeySet.import_key_set(json.load(response))
            claims = jwt.decode(token, STATE["key_sets"][url]).claims
            if claims.get("exp", 0) >= time.time():
                return claims.get("iss", "")
        except Exception:
            continue
    return None


def authorize(headers, path, body):
    """(mode, problem) for request headers or a real-time `authorization` object."""
    headers = {name.lower(): value for name, value in headers.items()}
    authorization = headers.get("authorization", "")
    if authorization.startswith("AWS4-HMAC-SHA256 "):
        return "AWS_IAM", check_iam(path, headers, body)
    if "x-api-key" in headers:
        return "API_KEY", None if headers["x-api-key"] in STATE["api_keys"] else "You are not authorized to make this call."
    if authorization:
        issuer = jwt_issuer(authorization)
        if issuer is None:
            return None, "Unauthorized"
        return ("AMAZON_COGNITO_USER_POOLS" if "cognito-idp" in issuer else "OPENID_CONNECT"), None
    return None, "Missing authorization"


def api_prefix(path, suffix):
    """`/t/<tag>` (or '') for a path ending in suffix, and the tag."""
    prefix = path[:-len(suffix)] if path.endswith(suffix) else ""
    match = re.fullmatch(r"/t/([A-Za-z0-9_.-]+)", prefix)
    return prefix, (match.group(1) if match else "")


# -- HTTP --------------------------------------------------------------------------------------

def reply(status, payload):
    return web.json_response(payload, status=status, headers={"Server": "MultiAuthTestAppSync"})


async def graphql_http(request):
    body = await request.read()
    if request.path == "/html/graphql":
        return web.Response(status=502, body=b"<html><body>502 Bad Gateway</body></html>", content_type="text/html")
    mode, problem = authorize(request.headers, request.path_qs, body)
    if problem:
        return reply(401, {"errors": [{"errorType": "UnauthorizedException", "message": problem}]})
    document = json.loads(body or b"{}")
    result = graphql_sync(SCHEMA, document.get("query", ""), variable_values=document.get("variables"),
                          context_value={"mode": mode}, field_resolver=resolve)
    if result.data and result.data.get("addPost") and not result.errors:
        post_id = (document.get("variables") or {}).get("id") or result.data["addPost"].get("id")
        await fan_out(POSTS.get(post_id) if post_id in POSTS else None)
    return reply(200, graphql_payload(result))


async def fan_out(post):
    if post is None:
        return
    started = time.perf_counter()
    executed = {}
    for (socket, sub_id), subscription in list(STATE["graphql_subscriptions"].items()):
        if subscription["tag"] in STATE["silent"] or socket.closed:
            continue
        arguments = subscription["arguments"]
        if any(post.get(name) != value for name, value in arguments.items()):
            continue
        key = (subscription["data"], subscription["mode"])
        if key not in executed:  # one execution (and one JSON text) per distinct document and mode
            result = graphql_sync(SCHEMA, subscription["query"], root_value={"post": post},
                                  variable_values=subscription["variables"], context_value={"mode": subscription["mode"]},
                                  field_resolver=resolve)
            executed[key] = json.dumps(graphql_payload(result))
        await send_text(socket, '{"type": "data", "id": %s, "payload": %s}' % (json.dumps(sub_id), executed[key]))
        STATE["stats"]["data_sent"] += 1
    STATE["stats"]["last_fanout_ms"] = (time.perf_counter() - started) * 1000


async def publish_http(request):
    body = await request.read()
    mode, problem = authorize(request.headers, request.path_qs, body)
    if problem:
        return reply(401, {"errors": [{"errorType": "UnauthorizedException", "message": problem}]})
    try:
        document = json.loads(body)
        channel, events = document["channel"], document["events"]
        assert isinstance(events, list) and all(isinstance(event, str) for event in events) and 1 <= len(events) <= 5
        assert re.fullmatch(r"(/[A-Za-z0-9-]{1,50}){2,5}", channel)
    except Exception:
        return reply(400, {"errors": [{"errorType": "BadRequestException", "message": "Invalid request body"}]})
    successful = []
    for index, event in enumerate(events):
        successful.append({"identifier": str(uuid.uuid4()), "index": index})
        for (socket, sub_id), subscription in list(STATE["event_subscriptions"].items()):
            if subscription["tag"] not in STATE["silent"] and channel_matches(subscription["channel"], channel):
                await send(socket, {"type": "data", "id": sub_id, "event": event})
                STATE["stats"]["events_sent"] += 1
    return reply(200, {"failed": [], "successful": successful})


def channel_matches(pattern, channel):
    if pattern.endswith("/*"):
        return channel.startswith(pattern[:-1])
    return pattern == channel


# -- WebSocket ---------------------------------------------------------------------------------

async def send(socket, message):
    await send_text(socket, json.dumps(message))


async def send_text(socket, text):
    if not socket.closed:
        try:
            await socket.send_str(text)
        except ConnectionResetError:
            pass


async def keep_alive(socket, tag, interval):
    while not socket.closed:
        await asyncio.sleep(interval)
        if tag not in STATE["silent"]:
            await send(socket, {"type": "ka"})


async def realtime(request, events):
    suffix = "/event/realtime" if events else "/graphql/realtime"
    prefix, tag = api_prefix(request.path, suffix)
    offered = [p.strip() for p in request.headers.get("Sec-WebSocket-Protocol", "").split(",") if p.strip()]
    wanted = "aws-appsync-event-ws" if events else "graphql-ws"
    if wanted not in offered:
        return reply(400, {"errors": [{"message": f"subprotocol {wanted} required"}]})
    socket = web.WebSocketResponse(protocols=(wanted,), max_msg_size=1 << 20)
    await socket.prepare(request)
    STATE["stats"]["connections"] += 1
    count(tag, "connections")
    STATE["sockets"].setdefault(tag, set()).add(socket)
    settings = STATE["tags"].get(tag, {})
    timeout_ms, ka_ms = settings.get("timeoutMs", 300000), settings.get("kaMs", 5000)
    header = connection_header(request, offered, events)
    pinger = None
    try:
        async for message in socket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                frame = json.loads(message.data)
                kind = frame["type"]
            except Exception:
                await send(socket, {"type": "error", "payload": {"errors": [{"errorType": "BadRequest", "message": "malformed message"}]}})
                continue
            if kind == "connection_init":
                problem = connection_problem(header, prefix + ("/event" if events else "/graphql/connect"))
                if problem:
                    STATE["stats"]["rejected"] += 1
                    await send(socket, {"type": "connection_error", "payload": {"errors": [
                        {"errorType": "UnauthorizedException", "message": problem, "errorCode": 401}]}})
                    await socket.close()
                    break
                ack = {"type": "connection_ack", "connectionTimeoutMs": timeout_ms} if events else \
                    {"type": "connection_ack", "payload": {"connectionTimeoutMs": timeout_ms}}
                await send(socket, ack)
                pinger = asyncio.ensure_future(keep_alive(socket, tag, ka_ms / 1000))
            elif events:
                await events_message(socket, frame, prefix, tag)
            else:
                await graphql_message(socket, frame, prefix, tag)
    finally:
        if pinger:
            pinger.cancel()
        STATE["sockets"].get(tag, set()).discard(socket)
        for table in ("graphql_subscriptions", "event_subscriptions"):
            for key in [key for key in STATE[table] if key[0] is socket]:
                del STATE[table][key]
    return socket


def connection_header(request, offered, events):
    try:
        if events:
            encoded = next(p for p in offered if p.startswith("header-"))[len("header-"):]
            return json.loads(base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)))
        return json.loads(base64.b64decode(request.query["header"]))
    except Exception:
        return None


def connection_problem(header, signed_path):
    if not isinstance(header, dict):
        return "Missing or malformed header"
    mode, problem = authorize(header, signed_path, b"{}")
    return problem


async def graphql_message(socket, frame, prefix, tag):
    kind, sub_id = frame.get("type"), frame.get("id")
    if kind == "start":
        payload = frame.get("payload") or {}
        data = payload.get("data", "")
        authorization = (payload.get("extensions") or {}).get("authorization")
        mode, problem = authorize(authorization or {}, prefix + "/graphql", data.encode()) if authorization else (None, "Missing authorization")
        if problem:
            STATE["stats"]["rejected"] += 1
            return await send(socket, {"type": "error", "id": sub_id, "payload": {"errors": [
                {"errorType": "UnauthorizedException", "message": problem}]}})
        try:
            document = json.loads(data)
            query, variables = document["query"], document.get("variables") or {}
            operation = next(d for d in parse(query).definitions if hasattr(d, "operation"))
            if operation.operation != OperationType.SUBSCRIPTION:
                raise ValueError("Only subscription operations are supported on the realtime endpoint")
            field = operation.selection_set.selections[0]
            arguments = {a.name.value: (variables.get(a.value.name.value) if a.value.kind == "variable" else a.value.value)
                         for a in field.arguments}
        except Exception as error:
            return await send(socket, {"type": "error", "id": sub_id, "payload": {"errors": [
                {"errorType": "UnsupportedOperation" if isinstance(error, ValueError) else "BadRequest", "message": str(error)}]}})
        STATE["graphql_subscriptions"][(socket, sub_id)] = {
            "tag": tag, "mode": mode, "query": query, "variables": variables, "data": data,
            "arguments": {name: value for name, value in arguments.items() if value is not None}}
        STATE["stats"]["starts"] += 1
        count(tag, "starts")
        await send(socket, {"type": "start_ack", "id": sub_id})
    elif kind == "stop":
        STATE["graphql_subscriptions"].pop((socket, sub_id), None)
        await send(socket, {"type": "complete", "id": sub_id})
    else:
        await send(socket, {"type": "error", "id": sub_id, "payload": {"errors": [
            {"errorType": "UnknownOperationError", "message": f"Unknown message type: {kind}"}]}})


async def events_message(socket, frame, prefix, tag):
    kind, sub_id = frame.get("type"), frame.get("id")
    if kind == "subscribe":
        channel = frame.get("channel", "")
        body = json.dumps({"channel": channel}, separators=(",", ":")).encode()
        authorization = frame.get("authorization")
        mode, problem = authorize(authorization or {}, prefix + "/event", body) if authorization else (None, "Missing authorization")
        if problem:
            STATE["stats"]["rejected"] += 1
            return await send(socket, {"type": "subscribe_error", "id": sub_id, "errors": [
                {"errorType": "UnauthorizedException", "message": problem}]})
        if not re.fullmatch(r"(/[A-Za-z0-9-]{1,50}){1,5}(/\*)?", channel):
            return await send(socket, {"type": "subscribe_error", "id": sub_id, "errors": [
                {"errorType": "BadRequestException", "message": "Invalid channel"}]})
        STATE["event_subscriptions"][(socket, sub_id)] = {"tag": tag, "channel": channel}
        STATE["stats"]["starts"] += 1
        count(tag, "starts")
        await send(socket, {"type": "subscribe_success", "id": sub_id})
    elif kind == "unsubscribe":
        STATE["event_subscriptions"].pop((socket, sub_id), None)
        await send(socket, {"type": "unsubscribe_success", "id": sub_id})
    else:
        await send(socket, {"type": "error", "id": sub_id, "errors": [
            {"errorType": "UnsupportedOperation", "message": f"Unknown message type: {kind}"}]})


# -- hooks -------------------------------------------------------------------------------------

def count(tag, what):
    counters = STATE.setdefault("tag_counts", {}).setdefault(tag, {"connections": 0, "starts": 0})
    counters[what] += 1


async def tag_stats(request):
    """A tag's open sockets, and how many connections and subscription starts it has seen."""
    tag = request.match_info["tag"]
    counters = STATE.get("tag_counts", {}).get(tag, {"connections": 0, "starts": 0})
    return reply(200, dict(counters, sockets=len(STATE["sockets"].get(tag, set()))))


async def set_tag(request):
    STATE["tags"][request.match_info["tag"]] = await request.json()
    return reply(200, {"ok": True})


async def drop(request):
    sockets = list(STATE["sockets"].get(request.match_info["tag"], set()))
    for socket in sockets:
        await socket.close()
    return reply(200, {"dropped": len(sockets)})


async def silence(request):
    silent = (await request.json()).get("silent", True)
    (STATE["silent"].add if silent else STATE["silent"].discard)(request.match_info["tag"])
    return reply(200, {"silent": silent})


async def stats(request):
    return reply(200, dict(STATE["stats"], sockets=sum(len(s) for s in STATE["sockets"].values()),
                           subscriptions=len(STATE["graphql_subscriptions"]) + len(STATE["event_subscriptions"])))


async def subscribers(request):
    """How many live GraphQL subscriptions filter on ?author=A (tests wait for theirs before mutating)."""
    author = request.query.get("author")
    return reply(200, {"count": sum(1 for s in STATE["graphql_subscriptions"].values() if s["arguments"].get("author") == author)})


async def index(request):
    return reply(200, {"ok": True})


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", action="append", default=[])
    parser.add_argument("--api-key", action="append", default=[])
    parser.add_argument("--jwks-url", action="append", default=[])
    args = parser.parse_args()
    STATE["keys"].update(pair.split(":", 1) for pair in args.key)
    STATE["api_keys"].update(args.api_key)
    STATE["jwks_urls"] = args.jwks_url
    app = web.Application(client_max_size=1 << 20)
    app.router.add_get("/", index)
    app.router.add_post("/_peer/tag/{tag}", set_tag)
    app.router.add_post("/_peer/drop/{tag}", drop)
    app.router.add_post("/_peer/silence/{tag}", silence)
    app.router.add_get("/_peer/stats", stats)
    app.router.add_get("/_peer/subscribers", subscribers)
    app.router.add_get("/_peer/tag/{tag}", tag_stats)
    app.router.add_post(r"/{prefix:(t/[A-Za-z0-9_.-]+/)?}graphql", graphql_http)
    app.router.add_post("/html/graphql", graphql_http)
    app.router.add_get(r"/{prefix:(t/[A-Za-z0-9_.-]+/)?}graphql/realtime", lambda request: realtime(request, events=False))
    app.router.add_post(r"/{prefix:(t/[A-Za-z0-9_.-]+/)?}event", publish_http)
    app.router.add_get(r"/{prefix:(t/[A-Za-z0-9_.-]+/)?}event/realtime", lambda request: realtime(request, events=True))
    web.run_app(app, host="127.0.0.1", port=args.port, print=None, access_log=None,
                handle_signals=True, reuse_address=True)


if __name__ == "__main__":
    sys.exit(main())
