#!/usr/bin/env python3
"""The `mcp` Python SDK's client (mcp.Client), as an agent host runs it: over stdio to a
command it starts (`--command PATH --arg A...`, e.g. `multiauth mcp-proxy`), or over streamable
HTTP to `--url` with `--header NAME:VALUE` fields (an API key for a gateway). It lists the tools,
calls echo, count_slowly with n = --count, 3 by default (recording when each progress notification arrived) and delete_item,
and prints one JSON object:
  {"tools": [...], "echo": text, "progress": [[seconds since the call, progress], ...],
   "counted": text, "delete": text or {"error": message}}
A call the client cannot make gives {"error": message} in its place; a failure to connect
prints {"connect_error": message}. `--mode legacy` forces the initialize handshake; `auto` (the
SDK's default) probes server/discover first. `--env NAME=VALUE` sets the command's environment.
"""
import argparse
import json
import os
import time

import anyio
import httpx2
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client


def leaves(error):
    """The errors inside an anyio task group's exception group, or the error itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def text_of(result):
    return "".join(part.text for part in result.content if getattr(part, "text", None) is not None)


async def call(client, name, arguments, **options):
    try:
        result = await client.call_tool(name, arguments, **options)
    except Exception as error:  # the SDK's MCPError, or a transport failure
        return {"error": str(error)}
    return {"error": text_of(result)} if result.is_error else text_of(result)


async def run(args):
    if args.command:
        env = dict(os.environ)
        env.update(dict(pair.split("=", 1) for pair in args.env))
        server = StdioServerParameters(command=args.command, args=args.arg, env=env)
    else:
        headers = dict((name.strip(), value.strip()) for name, value in (h.split(":", 1) for h in args.header))
        server = streamable_http_client(args.url, http_client=httpx2.AsyncClient(headers=headers, timeout=60))
    report = {}
    try:
        async with Client(server, mode=args.mode, read_timeout_seconds=60) as client:
            report["tools"] = sorted(tool.name for tool in (await client.list_tools()).tools)
            report["echo"] = await call(client, "echo", {"text": "hello from the mcp SDK"})
            started = time.monotonic()
            progress = []

            async def on_progress(value, total, message):
                progress.append([round(time.monotonic() - started, 3), value])

            report["counted"] = await call(client, "count_slowly", {"n": args.count}, progress_callback=on_progress)
            report["progress"] = progress
            report["delete"] = await call(client, "delete_item", {"name": "x"})
    except Exception as error:
        report["connect_error"] = "; ".join(f"{type(leaf).__name__}: {leaf}" for leaf in leaves(error))
    print(json.dumps(report))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--command")
    parser.add_argument("--arg", action="append", default=[])
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--url")
    parser.add_argument("--header", action="append", default=[])
    parser.add_argument("--mode", default="legacy")
    parser.add_argument("--count", type=int, default=3, help="count_slowly's n (0.2 s a step)")
    anyio.run(run, parser.parse_args())


if __name__ == "__main__":
    main()
