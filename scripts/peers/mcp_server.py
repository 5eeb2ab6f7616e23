#!/usr/bin/env python3
"""An MCP server on the `mcp` Python SDK's streamable HTTP transport (MCPServer, at /mcp), for
`multiauth mcp-proxy` and the gateway in front of MCP servers:
  echo(text)            read-only: answers the text
  delete_item(name)     not read-only (readOnlyHint false, destructive)
  count_slowly(n)       read-only: reports progress n times, 0.2 s apart, then answers, so its
                        answer comes as an event stream in pieces
GET /_peer/health answers 200 once the server is up. Usage: mcp_server.py --port N
"""
import argparse

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from starlette.responses import PlainTextResponse

server = MCPServer("multiauth-test-mcp")


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def echo(text: str) -> str:
    """Answers the text."""
    return text


@server.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def delete_item(name: str) -> str:
    """Pretends to delete an item."""
    return f"deleted {name}"


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
async def count_slowly(n: int, ctx: Context) -> str:
    """Reports progress n times, then answers."""
    for step in range(1, n + 1):
        await ctx.report_progress(step, n, f"step {step}")
        await anyio.sleep(0.2)
    return f"counted to {n}"


@server.custom_route("/_peer/health", methods=["GET"])
async def health(_request):
    return PlainTextResponse("ok")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    server.run("streamable-http", host="127.0.0.1", port=args.port)


if __name__ == "__main__":
    main()
