# The store's backends side by side (issue 37), sourced by scripts/bench after the static CLI
# is built: get and set on the file store, a private PostgreSQL cluster, and Secrets Manager
# and SSM (moto) through our signer (Benchmarks/StoreBench); then the same gateway verifying
# SigV4 on every request with its key table fed from a store file and from PostgreSQL,
# alternating wrk rounds (verification reads the table in memory, never the database: the
# two should match within noise). Prints the "store backends" table and the "fleet:" line.

# Headers botocore signs for a GET of URL with the bench's key, as wrk -H arguments on stdout.
signed_headers() {
    local signed
    signed=$(.venv/bin/python3 scripts/oracles/signed_call.py --signer botocore --url "$1" \
        --key AKIDLOADBENCH --secret load-bench-secret-not-real --print-only)
    .venv/bin/python3 -c 'import json, sys
for name, value in json.loads(sys.argv[1])["headers"].items(): print(f"{name}: {value}")' "$signed"
}

run_fleet_bench() {
    MULTIAUTH_BENCHMARKS=1 swift build -c release --product StoreBench >/dev/null
    MULTIAUTH_BENCHMARKS=1 swift build -c release --product UpstreamBench >/dev/null
    local moto_port up gf gp folder pids=() upstream_pid file_gateway_pid pg_gateway_pid
    read -r moto_port up gf gp < <(free_ports 4)
    folder=$(mktemp -d)
    start_postgres
    .venv/bin/moto_server -H 127.0.0.1 -p "$moto_port" >"$folder/moto.log" 2>&1 & pids+=($!)
    wait_for "http://127.0.0.1:$moto_port/moto-api/" moto
    export PGPASSWORD=$MULTIAUTH_TEST_POSTGRES_PASSWORD
    say "measuring the store on a file, PostgreSQL, Secrets Manager and SSM (the last two on moto)"
    local backends
    backends=$(env MULTIAUTH_BENCH_POSTGRES_URL="$MULTIAUTH_TEST_POSTGRES_URL" MULTIAUTH_BENCH_MOTO_URL="http://127.0.0.1:$moto_port" \
        AWS_ENDPOINT_URL="http://127.0.0.1:$moto_port" AWS_ACCESS_KEY_ID=AKIDSTOREBENCH AWS_SECRET_ACCESS_KEY=store-bench-secret \
        AWS_REGION=us-east-1 AWS_CONFIG_FILE=/nonexistent AWS_SHARED_CREDENTIALS_FILE=/nonexistent .build/release/StoreBench)

    local file_store=(--store "$folder/gateway.store" --key-file "$folder/key")
    local pg_store=(--store "$MULTIAUTH_TEST_POSTGRES_URL&store=fleetbench" --key-file "$folder/key")
    for store in file pg; do
        local arguments=("${file_store[@]}")
        [ "$store" = pg ] && arguments=("${pg_store[@]}")
        .build-static/release/multiauth store init "${arguments[@]}" >/dev/null
        printf 'load-bench-secret-not-real' | .build-static/release/multiauth store set bench-keys AKIDLOADBENCH "${arguments[@]}" >/dev/null
    done
    .build/release/UpstreamBench "$up" >/dev/null 2>&1 & pids+=($!)
    upstream_pid=$!
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gf" --upstream "http://127.0.0.1:$up" --iam-store bench-keys \
        "${file_store[@]}" >/dev/null 2>&1 & pids+=($!)
    file_gateway_pid=$!
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gp" --upstream "http://127.0.0.1:$up" --iam-store bench-keys \
        "${pg_store[@]}" >/dev/null 2>&1 & pids+=($!)
    pg_gateway_pid=$!
    wait_for "http://127.0.0.1:$gf/" "file-fed gateway"
    wait_for "http://127.0.0.1:$gp/" "PostgreSQL-fed gateway"
    local file_headers=() pg_headers=()
    while IFS= read -r line; do file_headers+=(-H "$line"); done < <(signed_headers "http://127.0.0.1:$gf/bench/item")
    while IFS= read -r line; do pg_headers+=(-H "$line"); done < <(signed_headers "http://127.0.0.1:$gp/bench/item")
    say "load: the gateway fed from a store file and from PostgreSQL, alternating (wrk, ${LOAD_SECONDS:-5} s each, 3 rounds)"
    local from_file from_pg
    for round in 1 2 3; do
        from_file+="$(wrk_with_cpu "$file_gateway_pid $upstream_pid" "${file_headers[@]}" "http://127.0.0.1:$gf/bench/item")|"
        from_pg+="$(wrk_with_cpu "$pg_gateway_pid $upstream_pid" "${pg_headers[@]}" "http://127.0.0.1:$gp/bench/item")|"
    done
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    stop_postgres
    rm -rf "$folder"
    .venv/bin/python3 - "$backends" "$from_file" "$from_pg" <<'PY'
import json, statistics, sys
ours = json.loads(sys.argv[1])
print(f"{'store backends (20 items)':44} {'get median':>11} {'get p99':>9} {'set median':>11} {'set p99':>9}")
rows = [("file (key file, 2 fsyncs a set)", ours["get_keyfile"], ours["set_keyfile"])]
for name, label in (("postgres", "PostgreSQL (loopback, one connection)"), ("secretsmanager", "Secrets Manager (moto, signed calls)"),
                    ("ssm", "SSM Parameter Store (moto, signed calls)")):
    if name in ours["shared"]:
        rows.append((label, ours["shared"][name]["get"], ours["shared"][name]["set"]))
for label, get, put in rows:
    print(f"{label:44} {get['median_ms']:9.3f}ms {get['p99_ms']:7.3f}ms {put['median_ms']:9.3f}ms {put['p99_ms']:7.3f}ms")
def rounds(text):
    return [tuple(float(x) for x in part.split()) for part in text.strip("|").split("|")]
from_file, from_pg = rounds(sys.argv[2]), rounds(sys.argv[3])
f, p = statistics.median(r[1] for r in from_file), statistics.median(r[1] for r in from_pg)
print(f"fleet: gateway verifying SigV4, keys from a store file {f:,.0f} req/s, from PostgreSQL {p:,.0f} req/s = {p / f:.2f}x "
      f"(per round: {', '.join(f'{b[1] / a[1]:.2f}' for a, b in zip(from_file, from_pg))}; "
      f"{sum(r[2] for r in from_file) + sum(r[2] for r in from_pg):.0f} not 2xx)")
print()
PY
}
