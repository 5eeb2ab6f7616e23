#!/usr/bin/env python3
"""A local AppSync-like GraphQL server for the multi-auth tests (graphql-core).

POST /graphql serves the Post schema below with per-field multi-auth, as AppSync does:
the caller's mode comes from the request (SigV4 Authorization: AWS_IAM, verified with
botocore through api_server's check; x-api-key: API_KEY; a JWT: AMAZON_COGNITO_USER_POOLS
when its issuer is a Cognito pool, else OPENID_CONNECT, verified against every --jwks-url).
A field whose directives leave the caller's mode out resolves to null with AppSync's error
(`Not Authorized to access url on type Post`, errorType Unauthorized). Posts live in memory.
POST /html/graphql answers an HTML page (for the "server sent non-JSON" check).
Usage: appsync_server.py --port P --key AKID:SECRET --api-key K --jwks-url URL [--jwks-url URL]
"""
import argparse
import json
import sys
import threading
import urllib.request
from http.server import ThreadingHTTPServer

from graphql import GraphQLError, build_schema, default_field_resolver, graphql_sync

import api_server

SCHEMA = build_schema("""
directive @aws_api_key on OBJECT | FIELD_DEFINITION
directive @aws_iam on OBJECT | FIELD_DEFINITION
directive @aws_cognito_user_pools on OBJECT | FIELD_DEFINITION
directive @aws_oidc on OBJECT | FIELD_DEFINITION

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
""")
DIRECTIVE = {"AWS_IAM": "aws_iam", "API_KEY": "aws_api_key", "AMAZON_COGNITO_USER_POOLS": "aws_cognito_user_pools",
             "OPENID_CONNECT": "aws_oidc"}
POSTS = {}
LOCK = threading.Lock()


def allowed(info):
    """The caller's mode must be among the field's directives, else the type's."""
    field = info.parent_type.fields[info.field_name]
    names = [d.name.value for d in (field.ast_node.directives if field.ast_node else [])]
    if not names and info.parent_type.ast_node:
        names = [d.name.value for d in info.parent_type.ast_node.directives]
    return DIRECTIVE[info.context["mode"]] in names


def resolve(parent, info, **arguments):
    if not allowed(info):
        raise GraphQLError(f"Not Authorized to access {info.field_name} on type {info.parent_type.name}")
    if info.parent_type.name == "Query":
        with LOCK:
            return POSTS.get(arguments["id"]) if info.field_name == "getPost" else list(POSTS.values())
    if info.parent_type.name == "Mutation":
        with LOCK:
            post = dict(arguments, version=POSTS.get(arguments["id"], {}).get("version", 0) + 1)
            POSTS[arguments["id"]] = post
            return post
    return default_field_resolver(parent, info, **arguments)


class Handler(api_server.Handler):
    server_version = "MultiAuthTestAppSync"

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        if self.path == "/html/graphql":
            page = b"<html><body>502 Bad Gateway</body></html>"
            self.send_response_only(502)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
            return
        mode, problem = self.authenticate(body)
        if problem:
            return self.reply(401, {"errors": [{"errorType": "UnauthorizedException", "message": problem}]})
        request = json.loads(body or b"{}")
        result = graphql_sync(SCHEMA, request.get("query", ""), variable_values=request.get("variables"),
                              context_value={"mode": mode}, field_resolver=resolve)
        payload = {"data": result.data}
        if result.errors:
            payload["errors"] = [{
                "path": error.path, "data": None, "errorType": "Unauthorized" if error.message.startswith("Not Authorized") else None,
                "errorInfo": None, "message": error.message,
                "locations": [{"line": l.line, "column": l.column, "sourceName": None} for l in (error.locations or [])],
            } for error in result.errors]
        self.reply(200, payload)

    def authenticate(self, body):
        import hashlib
        authorization = self.headers.get("Authorization", "")
        if authorization.startswith("AWS4-HMAC-SHA256 "):
            problem = self.check_iam(body, hashlib.sha256(body).hexdigest())
            return "AWS_IAM", problem and problem[1]
        if self.headers.get("x-api-key") is not None:
            problem = self.check_api_key(body, None)
            return "API_KEY", problem and "You are not authorized to make this call."
        if authorization:
            issuer = self.jwt_issuer(authorization)
            if issuer is None:
                return None, "Unauthorized"
            return ("AMAZON_COGNITO_USER_POOLS" if "cognito-idp" in issuer else "OPENID_CONNECT"), None
        return None, "Missing authorization"

    def jwt_issuer(self, token):
        from joserfc import jwt
        from joserfc.jwk import KeySet
        for url in self.server.jwks_urls:
            try:
                with urllib.request.urlopen(url, timeout=5) as response:
                    claims = jwt.decode(token, KeySet.import_key_set(json.load(response))).claims
                if claims.get("exp", 0) >= api_server.now(0).timestamp():
                    return claims.get("iss", "")
            except Exception:
                continue
        return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--key", action="append", default=[])
    parser.add_argument("--api-key", action="append", default=[])
    parser.add_argument("--jwks-url", action="append", default=[])
    args = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    server.keys = dict(pair.split(":", 1) for pair in args.key)
    server.api_keys = set(args.api_key)
    server.jwks_urls = args.jwks_url
    server.clock_offset = 0.0
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
