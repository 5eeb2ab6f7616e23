# Proxy and gateway under load, with wrk (Debian's) in the same run: 1 KiB GETs on loopback
# against a Hummingbird upstream (Benchmarks/UpstreamBench), called directly, through
# `multiauth proxy`, and through `multiauth gateway` with a botocore-signed SigV4 header on
# every request (the gateway verifies each one: there is no replay cache), and through a bare
# Hummingbird + AsyncHTTPClient pass-through with no authorization (Benchmarks/PassthroughBench):
# the stack the proxy and gateway forwarded through before their single path. Sourced by
# scripts/bench after the static CLI is built; prints the "proxy:" and "gateway:" lines (and the
# gateway checking a JWT on every request), and
# the CPU time each process spent per request (from /proc/PID/stat).

# wrk's median latency in ms, requests per second, non-2xx count and 99th percentile latency
# in ms: "P50_MS RPS NON2XX P99_MS".
wrk_figures() {
    wrk -t1 -c"${WRK_CONNECTIONS:-16}" -d"${LOAD_SECONDS:-5}"s --latency "$@" 2>&1 | awk '
        function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
        / 50% / { p50 = ms($2) }
        / 99% / { p99 = ms($2) }
        /Requests\/sec/ { rps = $2 }
        /Non-2xx/ { bad = $5 }
        END { printf "%s %s %s %s\n", p50, rps, (bad == "" ? 0 : bad), p99 }'
}

# CPU time a process has used, in clock ticks (utime + stime from /proc/PID/stat).
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat"
}

# wrk's -H arguments for a botocore-signed request to URL (extra signed_call.py arguments
# after it), one per line ("-H" then "NAME: VALUE"), without Host when NOHOST is set: read
# them with mapfile.
signed_header_arguments() {
    local url=$1 signed
    shift
    signed=$(.venv/bin/python3 scripts/oracles/signed_call.py --signer botocore --url "$url" \
        --key AKIDLOADBENCH --secret load-bench-secret-not-real --print-only "$@")
    .venv/bin/python3 -c 'import json, os, sys
for name, value in json.loads(sys.argv[1])["headers"].items():
    if not (os.environ.get("NOHOST") and name.lower() == "host"): print(f"-H\n{name}: {value}")' "$signed"
}

# wrk_figures with the CPU the two processes in $1 (a quoted list of pids) used during the run,
# in microseconds per request: "P50_MS RPS NON2XX P99_MS CPU_US_FIRST CPU_US_SECOND".
wrk_with_cpu() {
    local pids=($1) before=() after=() figures
    shift
    for pid in "${pids[@]}"; do before+=("$(cpu_ticks "$pid")"); done
    figures=$(wrk_figures "$@")
    for pid in "${pids[@]}"; do after+=("$(cpu_ticks "$pid")"); done
    local hz seconds=${LOAD_SECONDS:-5}
    hz=$(getconf CLK_TCK)
    printf '%s' "$figures"
    for index in "${!pids[@]}"; do
        awk -v ticks=$(( after[index] - before[index] )) -v hz="$hz" -v rps="$(echo "$figures" | awk '{print $2}')" -v s="$seconds" \
            'BEGIN { printf " %.0f", (rps > 0 ? ticks / hz * 1e6 / (rps * s) : 0) }'
    done
    echo
}

# Latency at a constant offered rate, for the added-p99 target: h2load (Debian's
# nghttp2-client) over HTTP/1.1, 16 connections sharing RATE requests/s for LOAD_SECONDS,
# each request's time logged; prints "P50_MS P99_MS DONE_PER_SECOND". A connection waits for
# its answer before its next request, so a stall delays what follows it (coordinated
# omission) rather than hiding it.
h2load_latency() {
    local rate=$1 log
    shift
    log=$(mktemp)
    # Bounded: h2load can wait forever on a connection that never completes.
    timeout "$(( ${LOAD_SECONDS:-5} + 15 ))" h2load --h1 -c16 --rps="$(( (rate + 15) / 16 ))" -D "${LOAD_SECONDS:-5}" --log-file="$log" "$@" >/dev/null 2>&1 || true
    .venv/bin/python3 - "$log" "${LOAD_SECONDS:-5}" <<'PY'
import sys
times = sorted(int(line.split("\t")[2]) for line in open(sys.argv[1]) if line.count("\t") >= 2 and line.split("\t")[1].startswith("2"))
if not times: print("0 0 0"); sys.exit()
pick = lambda q: times[min(len(times) - 1, int(q * len(times)))] / 1000
print(f"{pick(0.5):.3f} {pick(0.99):.3f} {len(times) / float(sys.argv[2]):.0f}")
PY
    rm -f "$log"
}

# A 1,000-route API definition in FOLDER/api.yaml (routes to 127.0.0.1:UPSTREAM): SigV4 on 998
# parameterized routes, SigV4 and a usage-planned API key on /bench/item, and /bench/authz
# decided by the request authorizer at 127.0.0.1:AUTHORIZER; the plan in FOLDER/plans.yaml.
write_api_definition() {
    .venv/bin/python3 - "$1" "$2" "$3" <<'PY'
import sys
folder, up, az = sys.argv[1:4]
lines = ["openapi: 3.0.1", "info: {title: bench, version: '1'}", "paths:"]
proxy = lambda path: f"x-amazon-apigateway-integration: {{type: http_proxy, uri: 'http://127.0.0.1:{up}{path}'}}"
for index in range(998):
    lines += [f"  /r{index}/items/{{id}}:", f"    get: {{security: [{{sigv4: []}}], responses: {{'200': {{description: ok}}}}, {proxy('/bench/item')}}}"]
lines += ["  /bench/item:", f"    get: {{security: [{{sigv4: [], key: []}}], responses: {{'200': {{description: ok}}}}, {proxy('/bench/item')}}}"]
lines += ["  /bench/authz:", f"    get: {{security: [{{lambda: []}}], responses: {{'200': {{description: ok}}}}, {proxy('/bench/item')}}}"]
lines += ["components:", "  securitySchemes:", "    sigv4: {type: apiKey, name: Authorization, in: header, x-amazon-apigateway-authtype: awsSigv4}",
          "    key: {type: apiKey, name: x-api-key, in: header}",
          "    lambda: {type: apiKey, name: x-token, in: header, x-amazon-apigateway-authtype: custom, x-amazon-apigateway-authorizer: "
          f"{{type: request, identitySource: method.request.header.x-token, authorizerUri: 'http://127.0.0.1:{az}/', authorizerResultTtlInSeconds: 3600}}}}"]
open(f"{folder}/api.yaml", "w").write("\n".join(lines) + "\n")
open(f"{folder}/plans.yaml", "w").write("usagePlans:\n  - {name: bench, throttle: {rateLimit: 1000000, burstLimit: 1000000}, "
                                       "quota: {limit: 1000000000, period: MONTH}, apiKeys: [bench]}\n")
PY
}

run_load_bench() {
    command -v wrk >/dev/null || { say "installing wrk"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq wrk >/dev/null; }
    MULTIAUTH_BENCHMARKS=1 swift build -c release --product UpstreamBench >/dev/null
    MULTIAUTH_BENCHMARKS=1 swift build -c release --product PassthroughBench >/dev/null
    local up gw px pt js gj ga az pids=() secrets keys upstream_pid proxy_pid gateway_pid passthrough_pid jwt_gateway_pid api_gateway_pid
    read -r up px gw pt js gj ga az < <(free_ports 8)
    .build/release/UpstreamBench "$up" >/dev/null 2>&1 & pids+=($!)
    upstream_pid=$!
    .build/release/PassthroughBench "$pt" "http://127.0.0.1:$up" >/dev/null 2>&1 & pids+=($!)
    passthrough_pid=$!
    secrets=$(mktemp)
    printf '{"AKIDLOADBENCH": "load-bench-secret-not-real"}' >"$secrets"
    chmod 600 "$secrets"
    .build-static/release/multiauth proxy --listen "127.0.0.1:$px" --upstream "http://127.0.0.1:$up" --auth api-key --api-key bench-key >/dev/null 2>&1 & pids+=($!)
    proxy_pid=$!
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gw" --upstream "http://127.0.0.1:$up" --iam-credentials "$secrets" >/dev/null 2>&1 & pids+=($!)
    gateway_pid=$!
    # The same gateway checking an RS256 JWT instead, its key set served on loopback.
    keys=$(mktemp -d)
    local token
    token=$(.venv/bin/python3 scripts/oracles/jwt_token.py "$keys" https://issuer.bench bench-client)
    .venv/bin/python3 -m http.server "$js" --bind 127.0.0.1 --directory "$keys" >/dev/null 2>&1 & pids+=($!)
    wait_for "http://127.0.0.1:$js/jwks.json" "key set"
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gj" --upstream "http://127.0.0.1:$up" \
        --jwks-url "http://127.0.0.1:$js/jwks.json" --issuer https://issuer.bench --audience bench-client >/dev/null 2>&1 & pids+=($!)
    jwt_gateway_pid=$!
    # The same SigV4 check on a route of a 1,000-route API definition, with an API key in a usage
    # plan besides it, and a route decided by a request authorizer's cached policy.
    .venv/bin/python3 scripts/peers/authorizer_server.py --port "$az" >/dev/null 2>&1 & pids+=($!)
    write_api_definition "$keys" "$up" "$az"
    .build-static/release/multiauth gateway --listen "127.0.0.1:$ga" --api "$keys/api.yaml" --iam-credentials "$secrets" --api-key bench=bench-key \
        --usage-plans "$keys/plans.yaml" --stage local >/dev/null 2>&1 & pids+=($!)
    api_gateway_pid=$!
    wait_for "http://127.0.0.1:$up/bench/item" "bench upstream"
    wait_for "http://127.0.0.1:$px/bench/item" "proxy"
    wait_for "http://127.0.0.1:$pt/bench/item" "pass-through"
    wait_for "http://127.0.0.1:$gj/bench/item" "JWT gateway"
    wait_for "http://127.0.0.1:$ga/bench/item" "API definition gateway"
    sleep 1
    # A server that could not start (its port taken) must not let another answer in its place.
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null || { say "a load-bench server (pid $pid) exited at start"; exit 1; }; done
    local signed
    signed=$(.venv/bin/python3 scripts/oracles/signed_call.py --signer botocore --url "http://127.0.0.1:$gw/bench/item" \
        --key AKIDLOADBENCH --secret load-bench-secret-not-real --print-only)
    local headers=() api_headers=()
    while IFS= read -r line; do headers+=(-H "$line"); done < <(.venv/bin/python3 -c 'import json, sys
for name, value in json.loads(sys.argv[1])["headers"].items(): print(f"{name}: {value}")' "$signed")
    signed=$(.venv/bin/python3 scripts/oracles/signed_call.py --signer botocore --url "http://127.0.0.1:$ga/bench/item" \
        --key AKIDLOADBENCH --secret load-bench-secret-not-real --print-only)
    while IFS= read -r line; do api_headers+=(-H "$line"); done < <(.venv/bin/python3 -c 'import json, sys
for name, value in json.loads(sys.argv[1])["headers"].items(): print(f"{name}: {value}")' "$signed")
    say "load: direct, through the bare pass-through, the proxy and the gateway (wrk, ${LOAD_SECONDS:-5} s each, twice)"
    local direct passed proxied gated jwted defined authorized
    for round in 1 2; do
        direct+="$(wrk_with_cpu "$upstream_pid $upstream_pid" "http://127.0.0.1:$up/bench/item")|"
        passed+="$(wrk_with_cpu "$passthrough_pid $upstream_pid" "http://127.0.0.1:$pt/bench/item")|"
        proxied+="$(wrk_with_cpu "$proxy_pid $upstream_pid" "http://127.0.0.1:$px/bench/item")|"
        gated+="$(wrk_with_cpu "$gateway_pid $upstream_pid" "${headers[@]}" "http://127.0.0.1:$gw/bench/item")|"
        jwted+="$(wrk_with_cpu "$jwt_gateway_pid $upstream_pid" -H "Authorization: Bearer $token" "http://127.0.0.1:$gj/bench/item")|"
        defined+="$(wrk_with_cpu "$api_gateway_pid $upstream_pid" "${api_headers[@]}" -H "x-api-key: bench-key" "http://127.0.0.1:$ga/bench/item")|"
        authorized+="$(wrk_with_cpu "$api_gateway_pid $upstream_pid" -H "x-token: open-bench" "http://127.0.0.1:$ga/bench/authz")|"
    done
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    rm -rf "$secrets" "$keys"
    .venv/bin/python3 - "$direct" "$proxied" "$gated" "$passed" "$jwted" "$defined" "$authorized" <<'PY'
import statistics, sys
def rounds(text):
    return [tuple(float(x) for x in part.split()) for part in text.strip("|").split("|")]
direct, proxied, gated, passed, jwted, defined, authorized = (rounds(a) for a in sys.argv[1:8])
d50, drps = statistics.median(r[0] for r in direct), statistics.median(r[1] for r in direct)
p50, prps = statistics.median(r[0] for r in proxied), statistics.median(r[1] for r in proxied)
g50, grps = statistics.median(r[0] for r in gated), statistics.median(r[1] for r in gated)
refused = sum(r[2] for r in gated)
print(f"1 KiB GETs on loopback, wrk 1 thread 16 connections, medians of 2 rounds: direct {drps:,.0f} req/s p50 {d50:.2f} ms; "
      f"proxy {prps:,.0f} req/s p50 {p50:.2f} ms; gateway {grps:,.0f} req/s p50 {g50:.2f} ms ({refused:.0f} not 2xx)")
print(f"proxy: p50 added {p50 - d50:.2f} ms, throughput {100 * prps / drps:.0f}% of direct")
print(f"gateway: {grps:.0f} verified req/s (SigV4 header on every request), p50 {g50:.2f} ms")
j50, jrps = statistics.median(r[0] for r in jwted), statistics.median(r[1] for r in jwted)
print(f"gateway with a JWT (RS256, the same token on every request, as a client sends it): {jrps:,.0f} req/s, p50 {j50:.2f} ms, "
      f"{statistics.median(r[4] for r in jwted):.0f} us gateway CPU per request ({sum(r[2] for r in jwted):.0f} not 2xx)")
cpu = lambda rounds, i: statistics.median(r[i] for r in rounds)
print(f"CPU per request: direct, the upstream {cpu(direct, 4):.0f} us; through the proxy, the proxy {cpu(proxied, 4):.0f} us "
      f"and the upstream {cpu(proxied, 5):.0f} us; through the gateway, the gateway {cpu(gated, 4):.0f} us and the upstream {cpu(gated, 5):.0f} us")
single, api, lam = cpu(gated, 4), cpu(defined, 4), cpu(authorized, 4)
print(f"gateway --api (1,000 routes): SigV4 and a usage-planned API key on /bench/item {api:.0f} us CPU per request "
      f"({100 * (api - single) / single:+.0f}% beside the single-policy gateway's {single:.0f} us; target within 10%), "
      f"{statistics.median(r[1] for r in defined):,.0f} req/s; a request authorizer's cached policy {lam:.0f} us, "
      f"{statistics.median(r[1] for r in authorized):,.0f} req/s ({sum(r[2] for r in defined) + sum(r[2] for r in authorized):.0f} not 2xx)")
t50, trps = statistics.median(r[0] for r in passed), statistics.median(r[1] for r in passed)
print(f"a bare Hummingbird + AsyncHTTPClient pass-through (no authorization) {trps:,.0f} req/s "
      f"({100 * trps / drps:.0f}% of direct), p50 {t50:.2f} ms, {cpu(passed, 4):.0f} us CPU per request; "
      f"the proxy gives {prps / trps:.2f}x its throughput, the gateway {grps / trps:.2f}x")
PY
}

# nginx (Debian's nginx-light) as a proxy_pass reverse proxy with upstream keep-alive, beside
# `multiauth proxy --auth iam` (a SigV4 signature made for every request) and `multiauth
# gateway` (a SigV4 signature verified on every request), all three in front of the same
# Hummingbird upstream, in alternating wrk rounds. Prints the "nginx:" lines: each one's
# requests/s as a ratio of nginx's (issue targets: proxy >= 0.9, gateway >= 0.8), the p99s,
# and the proxy's RSS growth while a 1 GiB PUT streams through it (target <= 64 MiB).
run_nginx_bench() {
    [ -x /usr/sbin/nginx ] || { say "installing nginx-light"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq nginx-light >/dev/null; }
    command -v h2load >/dev/null || { say "installing nghttp2-client (h2load)"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq nghttp2-client >/dev/null; }
    command -v wrk >/dev/null || { say "installing wrk"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq wrk >/dev/null; }
    local up nx pi gw ns pu pl gl sp folder pids=() upstream_pid nginx_worker proxy_pid gateway_pid upload_pid proxy_default_pid gateway_default_pid
    local go_proxy_pid="" api_gateway_pid ga
    read -r up nx pi gw ns pu pl gl sp ga < <(free_ports 10)
    folder=$(mktemp -d)
    # Two nginx instances of one worker each, so each process's CPU is its own: the upstream
    # (1 KiB answers, and a sink for the 1 GiB upload) and nginx's proxy_pass in front of it,
    # with upstream keepalive above the 64 connections the bench opens.
    local body common
    body=$(head -c 1024 /dev/zero | tr '\0' a)
    common="worker_processes 1; error_log $folder/error.log; events { worker_connections 1024; }"
    local temp="client_body_temp_path $folder/body; proxy_temp_path $folder/proxy; fastcgi_temp_path $folder/fastcgi; uwsgi_temp_path $folder/uwsgi; scgi_temp_path $folder/scgi;"
    mkdir -p "$folder/upstream" "$folder/front"
    cat >"$folder/upstream/nginx.conf" <<CONF
$common
pid $folder/upstream/nginx.pid;
http {
    access_log off; keepalive_requests 1000000; $temp
    server { listen 127.0.0.1:$up; client_max_body_size 0; location / { default_type text/plain; return 200 "$body"; } }
    # A sink for the 1 GiB upload: nginx reads the body and discards it.
    server { listen 127.0.0.1:$ns; client_max_body_size 0; location / { return 200 "ok"; } }
}
CONF
    cat >"$folder/front/nginx.conf" <<CONF
$common
pid $folder/front/nginx.pid;
http {
    # h2load does not reconnect a client whose connection nginx closes after its default 1,000 requests.
    access_log off; keepalive_requests 1000000; $temp
    upstream up { server 127.0.0.1:$up; keepalive 128; }
    server {
        listen 127.0.0.1:$nx; client_max_body_size 0;
        location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }
    }
}
CONF
    /usr/sbin/nginx -c "$folder/upstream/nginx.conf" -p "$folder/upstream" -g 'daemon off;' >/dev/null 2>&1 & pids+=($!)
    /usr/sbin/nginx -c "$folder/front/nginx.conf" -p "$folder/front" -g 'daemon off;' >/dev/null 2>&1 & pids+=($!)
    printf '{"AKIDLOADBENCH": "load-bench-secret-not-real"}' >"$folder/keys.json"
    printf 'bench-key' >"$folder/bench.key"
    chmod 600 "$folder/keys.json" "$folder/bench.key"
    local keys=(AWS_ACCESS_KEY_ID=AKIDLOADBENCH AWS_SECRET_ACCESS_KEY=load-bench-secret-not-real AWS_CONFIG_FILE=/nonexistent
        AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_EC2_METADATA_DISABLED=true)
    # One event loop each, as nginx runs one worker: CPU per request is compared like for like.
    env "${keys[@]}" .build-static/release/multiauth proxy --listen "127.0.0.1:$pi" --upstream "http://127.0.0.1:$up" --auth iam \
        --region us-east-1 --service execute-api --event-loops 1 >/dev/null 2>&1 & pids+=($!)
    proxy_pid=$!
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gw" --upstream "http://127.0.0.1:$up" --iam-credentials "$folder/keys.json" \
        --event-loops 1 >/dev/null 2>&1 & pids+=($!)
    gateway_pid=$!
    env "${keys[@]}" .build-static/release/multiauth proxy --listen "127.0.0.1:$pu" --upstream "http://127.0.0.1:$ns" --auth iam \
        --region us-east-1 --service execute-api >/dev/null 2>&1 & pids+=($!)
    upload_pid=$!
    # For latency at half of nginx's rate, a proxy and a gateway as deployed (one event loop
    # per core): on one loop, 3x nginx's CPU per request cannot serve half its rate.
    env "${keys[@]}" .build-static/release/multiauth proxy --listen "127.0.0.1:$pl" --upstream "http://127.0.0.1:$up" --auth iam \
        --region us-east-1 --service execute-api >/dev/null 2>&1 & pids+=($!)
    proxy_default_pid=$!
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gl" --upstream "http://127.0.0.1:$up" --iam-credentials "$folder/keys.json" \
        >/dev/null 2>&1 & pids+=($!)
    gateway_default_pid=$!
    # The same gateway serving a 1,000-route API definition (issue 66: within 10% of the
    # single-policy gateway), on one event loop; its authorizer route is not called here.
    write_api_definition "$folder" "$up" "$ns"
    .build-static/release/multiauth gateway --listen "127.0.0.1:$ga" --api "$folder/api.yaml" --iam-credentials "$folder/keys.json" \
        --api-key bench=@"$folder/bench.key" --usage-plans "$folder/plans.yaml" --stage local --event-loops 1 >/dev/null 2>&1 & pids+=($!)
    api_gateway_pid=$!
    # awslabs/aws-sigv4-proxy (Go), the proxy people run for this job, when its executable is given.
    if [ -n "${AWS_SIGV4_PROXY:-}" ]; then
        [ -x "$AWS_SIGV4_PROXY" ] || { say "AWS_SIGV4_PROXY=$AWS_SIGV4_PROXY is not an executable"; return 1; }
        env "${keys[@]}" "$AWS_SIGV4_PROXY" --port "127.0.0.1:$sp" --host "127.0.0.1:$up" --upstream-url-scheme http \
            --name execute-api --region us-east-1 >/dev/null 2>&1 & pids+=($!)
        go_proxy_pid=$!
        wait_for "http://127.0.0.1:$sp/bench/item" "aws-sigv4-proxy"
    fi
    wait_for "http://127.0.0.1:$up/bench/item" "nginx upstream"
    wait_for "http://127.0.0.1:$nx/bench/item" "nginx proxy_pass"
    wait_for "http://127.0.0.1:$pi/bench/item" "IAM proxy"
    wait_for "http://127.0.0.1:$pl/bench/item" "IAM proxy (default event loops)"
    wait_for "http://127.0.0.1:$gw/bench/item" "gateway"
    wait_for "http://127.0.0.1:$gl/bench/item" "gateway (default event loops)"
    wait_for "http://127.0.0.1:$ga/bench/item" "gateway --api"
    upstream_pid=$(pgrep -P "$(cat "$folder/upstream/nginx.pid")" | head -n 1)
    nginx_worker=$(pgrep -P "$(cat "$folder/front/nginx.pid")" | head -n 1)
    # The gateways' requests, signed by botocore: a GET, and a POST of the 1 KiB body wrk sends.
    # Signed afresh each round: a signature older than the gateway's 5-minute window is refused.
    local headers=() post_headers=() latency_headers=() default_headers=() default_post_headers=() api_headers=()
    sign_round() {
        mapfile -t api_headers < <(signed_header_arguments "http://127.0.0.1:$ga/bench/item")
        mapfile -t headers < <(signed_header_arguments "http://127.0.0.1:$gw/bench/item")
        mapfile -t post_headers < <(signed_header_arguments "http://127.0.0.1:$gw/bench/item" --method POST --body "$body")
        mapfile -t default_headers < <(signed_header_arguments "http://127.0.0.1:$gl/bench/item")
        mapfile -t default_post_headers < <(signed_header_arguments "http://127.0.0.1:$gl/bench/item" --method POST --body "$body")
    }
    # POSTs of a 1 KiB body (the proxy hashes and signs it; the gateway verifies its hash).
    printf 'wrk.method = "POST"\nwrk.body = string.rep("a", 1024)\n' >"$folder/post.lua"
    say "load: nginx proxy_pass, multiauth proxy --auth iam and multiauth gateway (--event-loops 1 and the default), GET and 1 KiB POST, 16 and 64 connections, alternating (wrk, ${LOAD_SECONDS:-5} s each, 3 rounds)"
    local forwarding="" connections round
    for connections in 16 64; do
        for round in 1 2 3; do
            sign_round
            for method in GET POST; do
                local extra=() gateway_headers=("${headers[@]}") gateway_default_headers=("${default_headers[@]}")
                [ "$method" = POST ] && extra=(-s "$folder/post.lua") && gateway_headers=("${post_headers[@]}") \
                    && gateway_default_headers=("${default_post_headers[@]}")
                forwarding+="$connections $method nginx $(WRK_CONNECTIONS=$connections wrk_with_cpu "$nginx_worker $upstream_pid" "${extra[@]}" "http://127.0.0.1:$nx/bench/item")|"
                forwarding+="$connections $method proxy $(WRK_CONNECTIONS=$connections wrk_with_cpu "$proxy_pid $upstream_pid" "${extra[@]}" "http://127.0.0.1:$pi/bench/item")|"
                forwarding+="$connections $method gateway $(WRK_CONNECTIONS=$connections wrk_with_cpu "$gateway_pid $upstream_pid" "${extra[@]}" "${gateway_headers[@]}" "http://127.0.0.1:$gw/bench/item")|"
                if [ "$method" = GET ]; then
                    # Right after the single-policy gateway, so each round's ratio compares runs
                    # next to each other in time.
                    forwarding+="$connections $method gateway-api $(WRK_CONNECTIONS=$connections wrk_with_cpu "$api_gateway_pid $upstream_pid" "${api_headers[@]}" -H "x-api-key: bench-key" "http://127.0.0.1:$ga/bench/item")|"
                    # The single-policy gateway sent the same request, key field and all: what
                    # the definition costs, apart from what one more field costs anywhere.
                    forwarding+="$connections $method gateway-keyed $(WRK_CONNECTIONS=$connections wrk_with_cpu "$gateway_pid $upstream_pid" "${headers[@]}" -H "x-api-key: bench-key" "http://127.0.0.1:$gw/bench/item")|"
                fi
                forwarding+="$connections $method proxy-default $(WRK_CONNECTIONS=$connections wrk_with_cpu "$proxy_default_pid $upstream_pid" "${extra[@]}" "http://127.0.0.1:$pl/bench/item")|"
                forwarding+="$connections $method gateway-default $(WRK_CONNECTIONS=$connections wrk_with_cpu "$gateway_default_pid $upstream_pid" "${extra[@]}" "${gateway_default_headers[@]}" "http://127.0.0.1:$gl/bench/item")|"
                if [ -n "$go_proxy_pid" ]; then
                    forwarding+="$connections $method go-proxy $(WRK_CONNECTIONS=$connections wrk_with_cpu "$go_proxy_pid $upstream_pid" "${extra[@]}" "http://127.0.0.1:$sp/bench/item")|"
                fi
            done
        done
    done
    local rss=() server_pid
    for server_pid in "$proxy_pid" "$gateway_pid" "$proxy_default_pid" "$gateway_default_pid"; do
        rss+=("$(awk '/^VmHWM:/ {print $2}' "/proc/$server_pid/status")")
    done
    # Sizes stripped: multiauth-forward runs the proxy and the gateway above; multiauth-server
    # runs gateway --api (and everything else).
    local name sizes=()
    for name in multiauth-forward multiauth-server; do
        sizes+=("$(strip -o "$folder/$name.stripped" ".build-static/release/$name" && stat -c %s "$folder/$name.stripped")")
    done
    # The forwarding figures, printed as soon as they are measured.
    .venv/bin/python3 - "$forwarding" "${rss[@]}" "${sizes[@]}" <<'PY'
import statistics, sys
rows = [part.split() for part in sys.argv[1].strip("|").split("|")]
servers = (("nginx", "nginx proxy_pass"), ("proxy", "multiauth proxy --auth iam (1 loop)"), ("gateway", "multiauth gateway SigV4 (1 loop)"),
           ("proxy-default", "proxy (default loops)"), ("gateway-default", "gateway (default loops)"), ("go-proxy", "aws-sigv4-proxy"))
present = {r[2] for r in rows}
def runs(connections, method, server, index):
    return [float(r[3 + index]) for r in rows if r[0] == connections and r[1] == method and r[2] == server]
def med(connections, method, server, index):
    return statistics.median(runs(connections, method, server, index))
# Ratios are taken round by round, between runs made less than a minute apart, and their median
# printed: on a shared machine the load of others moves every figure of a round together.
def ratio(connections, method, server, base):
    return statistics.median(a / b for a, b in zip(runs(connections, method, server, 4), runs(connections, method, base, 4)))
for connections in ("16", "64"):
    for method in ("GET", "POST"):
        label = "GET" if method == "GET" else "1 KiB POST"
        parts = []
        for server, name in servers:
            if server not in present:
                continue
            cpu = med(connections, method, server, 4)
            target = " (target <= 2.5)" if server in ("proxy", "gateway", "proxy-default", "gateway-default") else ""
            parts.append(f"{name} {med(connections, method, server, 1):,.0f} req/s, p50 {med(connections, method, server, 0):.2f} / p99 "
                         f"{med(connections, method, server, 3):.2f} ms, {cpu:.0f} us CPU/request"
                         + ("" if server == "nginx" else f" = {ratio(connections, method, server, 'nginx'):.1f}x nginx's{target}"))
        print(f"nginx: {connections} connections, {label}: " + "; ".join(parts)
              + f"; upstream nginx {med(connections, method, 'nginx', 5):.0f} us CPU/request")
for connections in ("16", "64"):
    single, api = med(connections, "GET", "gateway", 4), med(connections, "GET", "gateway-api", 4)
    keyed = med(connections, "GET", "gateway-keyed", 4)
    print(f"nginx: {connections} connections, GET, gateway --api (1,000 routes, SigV4 and a usage-planned API key, 1 loop) "
          f"{med(connections, 'GET', 'gateway-api', 1):,.0f} req/s, {api:.0f} us CPU/request = "
          f"{100 * (ratio(connections, 'GET', 'gateway-api', 'gateway') - 1):+.0f}% beside the single-policy gateway's {single:.0f} us "
          f"(target within 10%); {100 * (ratio(connections, 'GET', 'gateway-api', 'gateway-keyed') - 1):+.0f}% beside "
          f"its {keyed:.0f} us on the same request (with the x-api-key field)")
bad = sum(float(r[5]) for r in rows if r[2].startswith("gateway"))
rss = [int(value) / 1024 for value in sys.argv[2:6]]
print(f"nginx: gateway answers not 2xx: {bad:.0f}; peak RSS under load (target <= 24 MiB): proxy {rss[0]:.1f} MiB, gateway {rss[1]:.1f} MiB "
      f"(1 loop), proxy {rss[2]:.1f} MiB, gateway {rss[3]:.1f} MiB (default loops); stripped: multiauth-forward (the proxy and "
      f"gateway above) {int(sys.argv[6]) / 1e6:.1f} MB (target <= 40), multiauth-server (gateway --api) {int(sys.argv[7]) / 1e6:.1f} MB")
PY
    local nginxed
    nginxed=$(echo "$forwarding" | tr '|' '\n' | awk '$1 == 16 && $2 == "GET" && $3 == "nginx" {printf "%s %s %s %s %s %s|", $4, $5, $6, $7, $8, $9}')
    # Latency at half of nginx's rate, the same offered load for each.
    local half latencies
    half=$(.venv/bin/python3 -c 'import statistics, sys
print(int(statistics.median(float(p.split()[1]) for p in sys.argv[1].strip("|").split("|")) / 2))' "$nginxed")
    say "latency at half of nginx's rate ($half req/s; h2load, ${LOAD_SECONDS:-5} s each)"
    # The GET to the latency gateway, without Host: h2load sends its own beside a given one,
    # and a request with two is refused.
    mapfile -t latency_headers < <(NOHOST=1 signed_header_arguments "http://127.0.0.1:$gl/bench/item")
    latencies="$half|$(h2load_latency "$half" "http://127.0.0.1:$up/bench/item")|$(h2load_latency "$half" "http://127.0.0.1:$nx/bench/item")"
    latencies+="|$(h2load_latency "$half" "http://127.0.0.1:$pl/bench/item")|$(h2load_latency "$half" "${latency_headers[@]}" "http://127.0.0.1:$gl/bench/item")"
    # 1 GiB streamed through the IAM proxy (spooled and hashed, then signed and sent).
    truncate -s 1G "$folder/upload.bin"
    local rss_before rss_peak upload_status
    rss_before=$(awk '/^VmRSS:/ {print $2}' "/proc/$upload_pid/status")
    upload_status=$(curl -s --max-time 300 -o /dev/null -w '%{http_code}' -T "$folder/upload.bin" "http://127.0.0.1:$pu/upload" || true)
    rss_peak=$(awk '/^VmHWM:/ {print $2}' "/proc/$upload_pid/status")
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    rm -rf "$folder"
    .venv/bin/python3 - "$upload_status" "$rss_before" "$rss_peak" "$latencies" <<'PY'
import sys
status, before, peak = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
print(f"nginx: a 1 GiB PUT through multiauth proxy --auth iam answered {status}; the proxy's RSS grew {(peak - before) / 1024:.1f} MiB (target <= 64)")
half, *runs = sys.argv[4].split("|")
(d50, d99, drate), (n50, n99, nrate), (p50, p99, prate), (g50, g99, grate) = ([float(x) for x in run.split()] for run in runs)
print(f"nginx: at half of nginx's rate ({half} req/s offered; proxy and gateway on one event loop per core; p50 / p99, served/s): upstream direct {d50:.2f} / {d99:.2f} ms, {drate:,.0f}; "
      f"nginx {n50:.2f} / {n99:.2f} ms, {nrate:,.0f}; multiauth proxy {p50:.2f} / {p99:.2f} ms, {prate:,.0f}, adds {p99 - d99:.2f} ms at p99 "
      f"({p99 - n99:+.2f} ms beside nginx; target <= 1); multiauth gateway {g50:.2f} / {g99:.2f} ms, {grate:,.0f}, adds {g99 - d99:.2f} ms "
      f"({g99 - n99:+.2f} ms beside nginx)")
PY
}
