# `multiauth mcp-proxy` beside AWS's mcp-proxy-for-aws (PyPI, in a virtualenv of its own,
# .venv-mcp-proxy-for-aws: its fastmcp needs mcp 1.x, the test peers mcp 2.x), in one run, on
# the same calls: each is started as an agent host starts it, in front of `multiauth gateway`
# verifying SigV4 on every call, before the mcp SDK's server (scripts/peers/mcp_server.py).
# scripts/oracles/mcp_bench.py times the start to the initialize answer and 200 sequential
# tools/calls, and reads each proxy's CPU per call and peak RSS. Prints the "mcp-proxy:" lines.
# Sourced by scripts/bench after the static CLI is built (`scripts/bench --mcp` runs it alone).
MCP_PROXY_FOR_AWS_VERSION=1.7.0

run_mcp_bench() {
    local mcp gw folder pids=()
    if [ "$(.venv-mcp-proxy-for-aws/bin/pip show mcp-proxy-for-aws 2>/dev/null | sed -n 's/^Version: //p')" != "$MCP_PROXY_FOR_AWS_VERSION" ]; then
        say "installing mcp-proxy-for-aws==$MCP_PROXY_FOR_AWS_VERSION into .venv-mcp-proxy-for-aws"
        python3 -m venv .venv-mcp-proxy-for-aws
        .venv-mcp-proxy-for-aws/bin/pip install -q --disable-pip-version-check "mcp-proxy-for-aws==$MCP_PROXY_FOR_AWS_VERSION"
    fi
    read -r mcp gw < <(free_ports 2)
    folder=$(mktemp -d)
    printf '{"AKIDMCPBENCH": "mcp-bench-secret-not-real-000000000"}' >"$folder/keys.json"
    chmod 600 "$folder/keys.json"
    .venv/bin/python3 scripts/peers/mcp_server.py --port "$mcp" >"$folder/mcp.log" 2>&1 &
    pids+=($!)
    .build-static/release/multiauth-server gateway --listen "127.0.0.1:$gw" --upstream "http://127.0.0.1:$mcp" \
        --iam-credentials "$folder/keys.json" 2>"$folder/gateway.log" &
    pids+=($!)
    wait_for "http://127.0.0.1:$mcp/_peer/health" "MCP server"
    local endpoint="http://127.0.0.1:$gw/mcp"
    local environment=(env AWS_ACCESS_KEY_ID=AKIDMCPBENCH AWS_SECRET_ACCESS_KEY=mcp-bench-secret-not-real-000000000
        AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_REGION=us-east-1)
    for round in 1 2 3; do
        "${environment[@]}" .venv/bin/python3 scripts/oracles/mcp_bench.py --label "mcp-proxy: round $round: multiauth mcp-proxy" -- \
            .build-static/release/multiauth mcp-proxy --endpoint "$endpoint" --service execute-api --region us-east-1
        "${environment[@]}" .venv/bin/python3 scripts/oracles/mcp_bench.py --label "mcp-proxy: round $round: mcp-proxy-for-aws" -- \
            .venv-mcp-proxy-for-aws/bin/mcp-proxy-for-aws "$endpoint" --service execute-api --region us-east-1
    done
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    rm -rf "$folder"
}
