# `multiauth authz` behind nginx's auth_request, beside nginx alone and `multiauth gateway`, in
# one run: 1 KiB GETs with a botocore-signed SigV4 header (verified on every request: there is
# no replay cache), 16 connections, wrk, alternating rounds. nginx's proxy_pass and its
# auth_request front each run one worker, the auth service and the gateway one event loop,
# so CPU per request (from /proc/PID/stat) is compared like for like. Prints the "authz:"
# line: each setup's CPU per request (the front, the auth service or gateway, and the
# upstream, summed) and what the decision adds to nginx alone. The gateway's own verification
# is measured in one gateway serving an API definition with a signed and a public route to
# the same upstream: the difference is the verification alone, for the target (decision <=
# that + 15 us). Sourced by scripts/bench after the static CLI is built (`scripts/bench
# --authz` runs it alone).
run_authz_bench() {
    [ -x /usr/sbin/nginx ] || { say "installing nginx-light"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq nginx-light >/dev/null; }
    command -v wrk >/dev/null || { say "installing wrk"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq wrk >/dev/null; }
    local up nx na az gw folder pids=() body
    read -r up nx na az gw < <(free_ports 5)
    folder=$(mktemp -d)
    body=$(head -c 1024 /dev/zero | tr '\0' a)
    local common="worker_processes 1; error_log $folder/error.log; events { worker_connections 1024; }"
    local temp="client_body_temp_path $folder/body; proxy_temp_path $folder/proxy; fastcgi_temp_path $folder/fastcgi; uwsgi_temp_path $folder/uwsgi; scgi_temp_path $folder/scgi;"
    mkdir -p "$folder/upstream" "$folder/plain" "$folder/authz"
    cat >"$folder/upstream/nginx.conf" <<CONF
$common
pid $folder/upstream/nginx.pid;
http { access_log off; keepalive_requests 1000000; $temp
    server { listen 127.0.0.1:$up; location / { default_type text/plain; return 200 "$body"; } } }
CONF
    cat >"$folder/plain/nginx.conf" <<CONF
$common
pid $folder/plain/nginx.pid;
http { access_log off; keepalive_requests 1000000; $temp
    upstream up { server 127.0.0.1:$up; keepalive 128; }
    server { listen 127.0.0.1:$nx; location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; } } }
CONF
    # The config docs/authz.md shows, with keep-alive to the auth service as to the upstream.
    cat >"$folder/authz/nginx.conf" <<CONF
$common
pid $folder/authz/nginx.pid;
http { access_log off; keepalive_requests 1000000; $temp
    upstream up { server 127.0.0.1:$up; keepalive 128; }
    upstream authz { server 127.0.0.1:$az; keepalive 128; }
    server { listen 127.0.0.1:$na;
        location / {
            auth_request /_multiauth;
            auth_request_set \$multiauth_principal \$upstream_http_x_multiauth_principal;
            proxy_set_header X-MultiAuth-Principal \$multiauth_principal;
            proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection "";
        }
        location = /_multiauth {
            internal;
            proxy_pass http://authz/auth; proxy_http_version 1.1;
            proxy_pass_request_body off;
            proxy_set_header Connection ""; proxy_set_header Content-Length "";
            proxy_set_header X-Original-Method \$request_method;
            proxy_set_header X-Original-URI \$request_uri;
            proxy_set_header X-Original-Host \$http_host;
        }
    } }
CONF
    for instance in upstream plain authz; do
        /usr/sbin/nginx -c "$folder/$instance/nginx.conf" -p "$folder/$instance" -g 'daemon off;' >/dev/null 2>&1 & pids+=($!)
    done
    printf '{"AKIDLOADBENCH": "load-bench-secret-not-real"}' >"$folder/keys.json"
    chmod 600 "$folder/keys.json"
    .build-static/release/multiauth authz --proxy nginx --listen "127.0.0.1:$az" --iam-credentials "$folder/keys.json" --event-loops 1 \
        >/dev/null 2>&1 & pids+=($!)
    local authz_pid=$!
    cat >"$folder/api.yaml" <<YAML
openapi: 3.0.1
info: {title: authz bench, version: "1"}
paths:
  /bench/item:
    get:
      security: [{sigv4: []}]
      responses: {"200": {description: ok}}
      x-amazon-apigateway-integration: {type: http_proxy, httpMethod: GET, uri: "http://127.0.0.1:$up/bench/item"}
  /open/item:
    get:
      security: []
      responses: {"200": {description: ok}}
      x-amazon-apigateway-integration: {type: http_proxy, httpMethod: GET, uri: "http://127.0.0.1:$up/bench/item"}
components:
  securitySchemes:
    sigv4: {type: apiKey, name: Authorization, in: header, x-amazon-apigateway-authtype: awsSigv4}
YAML
    .build-static/release/multiauth gateway --listen "127.0.0.1:$gw" --api "$folder/api.yaml" --iam-credentials "$folder/keys.json" \
        --event-loops 1 >/dev/null 2>&1 & pids+=($!)
    local gateway_pid=$!
    wait_for "http://127.0.0.1:$up/bench/item" "nginx upstream"
    wait_for "http://127.0.0.1:$nx/bench/item" "nginx proxy_pass"
    local upstream_pid plain_pid front_pid
    upstream_pid=$(pgrep -P "$(cat "$folder/upstream/nginx.pid")" | head -n 1)
    plain_pid=$(pgrep -P "$(cat "$folder/plain/nginx.pid")" | head -n 1)
    front_pid=$(pgrep -P "$(cat "$folder/authz/nginx.pid")" | head -n 1)
    # One botocore-signed GET per front: the signature covers the Host the client sends.
    local front_headers=() gateway_headers=()
    mapfile -t front_headers < <(signed_header_arguments "http://127.0.0.1:$na/bench/item")
    mapfile -t gateway_headers < <(signed_header_arguments "http://127.0.0.1:$gw/bench/item")
    say "load: nginx alone, nginx auth_request + multiauth authz, multiauth gateway; signed 1 KiB GETs, 16 connections (wrk, ${LOAD_SECONDS:-5} s each, 3 rounds)"
    local rows="" round
    for round in 1 2 3; do
        rows+="nginx $(wrk_with_cpu "$plain_pid $upstream_pid" "${front_headers[@]}" "http://127.0.0.1:$nx/bench/item")|"
        rows+="authz $(wrk_with_cpu "$front_pid $authz_pid $upstream_pid" "${front_headers[@]}" "http://127.0.0.1:$na/bench/item")|"
        rows+="gateway $(wrk_with_cpu "$gateway_pid $upstream_pid" "${gateway_headers[@]}" "http://127.0.0.1:$gw/bench/item")|"
        rows+="public $(wrk_with_cpu "$gateway_pid $upstream_pid" "http://127.0.0.1:$gw/open/item")|"
    done
    kill "${pids[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    rm -rf "$folder"
    .venv/bin/python3 - "$rows" <<'PY'
import statistics, sys
rows = [part.split() for part in sys.argv[1].strip("|").split("|")]
def med(name, index):
    return statistics.median(float(r[index]) for r in rows if r[0] == name)
def cpu(name):
    # Columns: name, p50, rps, non-2xx, p99, then one CPU figure per process.
    return statistics.median(sum(float(x) for x in r[5:]) for r in rows if r[0] == name)
bad = {name: med(name, 3) for name in ("nginx", "authz", "gateway", "public")}
nginx, authz, gateway, public = cpu("nginx"), cpu("authz"), cpu("gateway"), cpu("public")
decision, verification = authz - nginx, gateway - public
def part(name, index):
    return statistics.median(float(r[5 + index]) for r in rows if r[0] == name)
split = (f"nginx's worker {part('nginx', 0):.0f} us alone, {part('authz', 0):.0f} us with auth_request; "
         f"multiauth authz {part('authz', 1):.0f} us")
print(f"authz: CPU per request (front + decision + upstream): nginx alone {nginx:.0f} us; nginx auth_request + multiauth authz {authz:.0f} us; "
      f"multiauth gateway, signed route {gateway:.0f} us, public route {public:.0f} us. The decision adds {decision:.0f} us to nginx; "
      f"the gateway's verification alone is {verification:.0f} us. Target (decision <= that + 15 us): the auth service's own "
      f"{part('authz', 1):.0f} us {'meets' if part('authz', 1) <= verification + 15 else 'misses'} it; the sum with nginx's "
      f"subrequest {'meets' if decision <= verification + 15 else 'misses'} it. {med('authz', 2):,.0f} req/s behind auth_request, "
      f"{med('nginx', 2):,.0f} alone; {split}; non-2xx: {bad}")
PY
}
