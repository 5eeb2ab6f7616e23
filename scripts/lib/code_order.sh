# The order in which the linker lays out the static executables' functions
# (scripts/lib/code-order.txt, read by build_static_cli): first every function the proxy and
# the gateway run for each request, hottest first; then what they run once, at start-up and
# shutdown, and for refusals.
#
# Why: the kernel maps an executable's pages up to 64 KiB at a time around each page fault
# (fault-around), and whole large folios of the page cache. Functions run once at start-up are
# scattered over 27 MB of code, so before this order most of the executable ended up resident
# (peak RSS 28 MiB, 18 MiB of it code); the functions actually run are about 1.7 MB.
# Requests first: ordered by total cost alone, start-up's heavy functions (the YAML parser that
# reads an API definition, the runtime's conformance scan) sat between the per-request ones and
# spread them over more pages, and `multiauth-server` spent 3% more CPU a request than
# `multiauth-forward` on the same instructions. A name missing from a later build is skipped,
# so a stale order costs memory and time, never correctness. Regenerate with `scripts/bench --code-order`
# after large changes. Sourced by scripts/bench after build_static_cli.

# The functions in callgrind's profiles by their own instructions, keeping only names the
# executables define: those in the request profiles (callgrind.*.requests) hottest first, then
# the rest hottest first. The first argument is a comma-separated list of the executables, the
# others the profiles.
order_by_cost() {
    .venv/bin/python3 - "$@" <<'PY'
import collections, subprocess, sys
executables, profiles = sys.argv[1].split(","), sys.argv[2:]
def own_costs(paths):
    cost = collections.Counter()
    for profile in paths:
        name, after_call = None, False
        for line in open(profile):
            if line.startswith("fn="):
                name = line[3:].strip()
            elif line.startswith("calls="):
                after_call = True  # the next cost line is the callee's, not this function's own
            elif name and line[:1].isdigit():
                if not after_call:
                    cost[name] += int(line.split()[1])
                after_call = False
    return cost
requests = own_costs([path for path in profiles if path.endswith(".requests")])
others = own_costs([path for path in profiles if not path.endswith(".requests")])
defined = set()
for executable in executables:
    listing = subprocess.run(["nm", "--defined-only", executable], capture_output=True, text=True, check=True).stdout
    defined.update(parts[2] for parts in (line.split() for line in listing.splitlines()) if len(parts) == 3 and parts[1] in "tTwW")
printed = set()
for cost in (requests, others):
    for name, _ in sorted(cost.items(), key=lambda item: (-item[1], item[0])):
        if name in defined and name not in printed:
            printed.add(name)
            print(name)
PY
}

# Runs EXECUTABLE ARGUMENTS... under callgrind (output in $folder/callgrind.PID) until
# profile_stop sends it SIGTERM; sets profiled_pid.
profile_start() {
    local executable=$1
    shift
    # valgrind 3.19 (Debian 12) cannot read DWARF 5: a copy without the debug information.
    [ -f "$executable.nodebug" ] || strip -g -o "$executable.nodebug" "$executable"
    env "${keys[@]}" valgrind --tool=callgrind --callgrind-out-file="$folder/callgrind.%p" --demangle=no --compress-strings=no \
        --compress-pos=no "$executable.nodebug" "$@" >"$folder/valgrind.log" 2>&1 &
    profiled_pid=$!
}

# wait_for with room for valgrind's slowdown (about 50-fold): up to 3 minutes, while the server lives.
wait_for_profiled() {
    local url=$1 name=$2
    for _ in $(seq 1 1800); do
        curl -s -o /dev/null "$url" && return 0
        kill -0 "$profiled_pid" 2>/dev/null || break
        sleep 0.1
    done
    say "$name did not start under callgrind (see $folder/valgrind.log)"
    return 1
}

# Dumps the profile so far (callgrind.PID.N); the dump before the load is start-up's, the one
# after it is renamed callgrind.PID.requests. Waits (up to a minute) until it is written.
profile_dump() {
    local number=$1 name=${2:-}
    callgrind_control -d "$profiled_pid" >/dev/null
    for _ in $(seq 1 600); do
        [ -s "$folder/callgrind.$profiled_pid.$number" ] && break
        sleep 0.1
    done
    sleep 1
    [ -z "$name" ] || mv "$folder/callgrind.$profiled_pid.$number" "$folder/callgrind.$profiled_pid.$name"
}

profile_stop() {
    kill -TERM "$profiled_pid"
    wait "$profiled_pid" || true
}

write_code_order() {
    command -v valgrind >/dev/null || { say "installing valgrind"; run_as_root apt-get install -y -q valgrind >/dev/null; }
    [ -x /usr/sbin/nginx ] || { say "installing nginx-light"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq nginx-light >/dev/null; }
    command -v wrk >/dev/null || { say "installing wrk"; DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq wrk >/dev/null; }
    local folder up port profiled_pid upstream_pid forward=.build-static/release/multiauth-forward server=.build-static/release/multiauth-server
    local keys=(AWS_ACCESS_KEY_ID=AKIDLOADBENCH AWS_SECRET_ACCESS_KEY=load-bench-secret-not-real AWS_CONFIG_FILE=/nonexistent
        AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_EC2_METADATA_DISABLED=true)
    folder=$(mktemp -d)
    read -r up port < <(free_ports 2)
    cp "$(readlink -f "$forward")" "$folder/multiauth-forward"
    cp "$(readlink -f "$server")" "$folder/multiauth-server"
    cat >"$folder/nginx.conf" <<CONF
worker_processes 1; error_log $folder/error.log; pid $folder/nginx.pid; events { worker_connections 256; }
http { access_log off; client_body_temp_path $folder/body; proxy_temp_path $folder/proxy; fastcgi_temp_path $folder/fastcgi;
       uwsgi_temp_path $folder/uwsgi; scgi_temp_path $folder/scgi;
       server { listen 127.0.0.1:$up; client_max_body_size 0; location / { default_type text/plain; return 200 "ok"; } } }
CONF
    /usr/sbin/nginx -c "$folder/nginx.conf" -p "$folder" -g 'daemon off;' >/dev/null 2>&1 &
    upstream_pid=$!
    printf '{"AKIDLOADBENCH": "load-bench-secret-not-real"}' >"$folder/keys.json"
    printf 'bench-key' >"$folder/bench.key"
    chmod 600 "$folder/keys.json" "$folder/bench.key"
    printf 'wrk.method = "POST"\nwrk.body = string.rep("a", 1024)\n' >"$folder/post.lua"
    wait_for "http://127.0.0.1:$up/" "nginx upstream"
    local url="http://127.0.0.1:$port/bench/item" get=() post=()
    # Each server: start-up, a few seconds of GETs and 1 KiB POSTs on 4 connections, refusals, shutdown.
    say "code order: the gateway under callgrind"
    profile_start "$folder/multiauth-forward" gateway --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$up" \
        --iam-credentials "$folder/keys.json"
    wait_for_profiled "$url" "the gateway"
    mapfile -t get < <(signed_header_arguments "$url")
    mapfile -t post < <(signed_header_arguments "$url" --method POST --body "$(head -c 1024 /dev/zero | tr '\0' a)")
    profile_dump 1
    wrk -t1 -c4 -d3s "${get[@]}" "$url" >/dev/null
    wrk -t1 -c4 -d3s -s "$folder/post.lua" "${post[@]}" "$url" >/dev/null
    profile_dump 2 requests
    wrk -t1 -c4 -d1s "$url" >/dev/null
    profile_stop
    say "code order: the proxy under callgrind"
    profile_start "$folder/multiauth-forward" proxy --listen "127.0.0.1:$port" --upstream "http://127.0.0.1:$up" --auth iam \
        --region us-east-1 --service execute-api
    wait_for_profiled "$url" "the proxy"
    profile_dump 1
    wrk -t1 -c4 -d3s "$url" >/dev/null
    wrk -t1 -c4 -d3s -s "$folder/post.lua" "$url" >/dev/null
    profile_dump 2 requests
    profile_stop
    say "code order: gateway --api under callgrind"
    write_api_definition "$folder" "$up" "$up"
    profile_start "$folder/multiauth-server" gateway --listen "127.0.0.1:$port" --api "$folder/api.yaml" \
        --iam-credentials "$folder/keys.json" --api-key bench=@"$folder/bench.key" --usage-plans "$folder/plans.yaml" --stage local
    wait_for_profiled "$url" "gateway --api"
    mapfile -t get < <(signed_header_arguments "$url")
    profile_dump 1
    wrk -t1 -c4 -d3s "${get[@]}" -H "x-api-key: bench-key" "$url" >/dev/null
    profile_dump 2 requests
    profile_stop
    kill "$upstream_pid"
    order_by_cost "$folder/multiauth-forward.nodebug,$folder/multiauth-server.nodebug" "$folder"/callgrind.* >scripts/lib/code-order.txt
    say "code order: $(wc -l <scripts/lib/code-order.txt) functions in scripts/lib/code-order.txt"
    rm -rf "$folder"
}
