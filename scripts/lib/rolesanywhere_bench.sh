# IAM Roles Anywhere in scripts/bench (source it after setup.sh):
# - CreateSession signatures per second, MultiAuth's X509Signer (RSA and EC keys from files and
#   from a SoftHSM token) beside AWS's iam-rolesanywhere-session signer on the same keys;
# - credential-process as a process: with the session cached in the store, without (a
#   CreateSession each call, as aws_signing_helper does), and iam-rolesanywhere-session's own
#   client, against the Roles Anywhere stand-in over HTTPS on loopback.
# Prints "rolesanywhere-sign:" and "rolesanywhere-process:" lines.

rolesanywhere_bench() {
    local seconds=$1 dir
    dir=$(mktemp -d /tmp/multiauth-ra-bench.XXXXXX)
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" -keyout "$dir/tls-key.pem" -out "$dir/tls-cert.pem" >/dev/null 2>&1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=bench anchor" \
        -addext "basicConstraints=critical,CA:TRUE" -keyout "$dir/ca-key.pem" -out "$dir/ca-cert.pem" >/dev/null 2>&1
    local kind
    for kind in ec rsa; do
        if [ "$kind" = ec ]; then openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$dir/$kind-key.pem" 2>/dev/null
        else openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$dir/$kind-key.pem" 2>/dev/null; fi
        openssl req -new -key "$dir/$kind-key.pem" -subj "/CN=bench-$kind" -out "$dir/$kind.csr" 2>/dev/null
        openssl x509 -req -in "$dir/$kind.csr" -CA "$dir/ca-cert.pem" -CAkey "$dir/ca-key.pem" -set_serial "0x$(openssl rand -hex 8)" \
            -days 1 -out "$dir/$kind-cert.pem" 2>/dev/null
    done
    printf 'directories.tokendir = %s/tokens\nobjectstore.backend = file\n' "$dir" >"$dir/softhsm2.conf"
    mkdir -p "$dir/tokens"
    export SOFTHSM2_CONF="$dir/softhsm2.conf"
    softhsm2-util --init-token --free --label bench --so-pin 000000 --pin 1234 >/dev/null
    softhsm2-util --import "$dir/ec-key.pem" --token bench --label ec --id 01 --pin 1234 >/dev/null
    softhsm2-util --import "$dir/rsa-key.pem" --token bench --label rsa --id 02 --pin 1234 >/dev/null
    local module=/usr/lib/softhsm/libsofthsm2.so ours
    swift build -c release --product RolesAnywhereBench >/dev/null
    ours=$(.build/release/RolesAnywhereBench \
        ec-file "$dir/ec-cert.pem" "$dir/ec-key.pem" rsa-file "$dir/rsa-cert.pem" "$dir/rsa-key.pem" \
        ec-pkcs11 "$dir/ec-cert.pem" "pkcs11:token=bench;object=ec?pin-value=1234" "$module" \
        rsa-pkcs11 "$dir/rsa-cert.pem" "pkcs11:token=bench;object=rsa?pin-value=1234" "$module")
    local peer
    peer=$(.venv/bin/python3 - "$dir" "$seconds" <<'PY'
import json, sys, time
from botocore.awsrequest import AWSRequest
from iam_rolesanywhere_session import IAMRolesAnywhereSigner
folder, seconds = sys.argv[1], float(sys.argv[2])
rates = {}
for kind in ("ec", "rsa"):
    signer = IAMRolesAnywhereSigner(certificate=f"{folder}/{kind}-cert.pem", private_key=f"{folder}/{kind}-key.pem", region="us-east-1")
    count, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        signer.add_auth(AWSRequest(method="POST", url="https://rolesanywhere.us-east-1.amazonaws.com/sessions", data=b'{"durationSeconds":3600}'))
        count += 1
    rates[f"{kind}-file"] = int(count / (time.process_time() - start))
print(json.dumps(rates))
PY
)
    .venv/bin/python3 - "$ours" "$peer" <<'PY'
import json, sys
ours, peer = json.loads(sys.argv[1]), json.loads(sys.argv[2])
line = ", ".join(f"{name} {rate:,}/s ({1e6 / rate:.0f} µs)" for name, rate in ours.items())
peers = ", ".join(f"{name} {rate:,}/s ({ours[name] / rate:.1f}x ours)" for name, rate in peer.items())
print(f"rolesanywhere-sign: MultiAuth {line}; iam-rolesanywhere-session (CPU time) {peers}")
PY

    # credential-process as a process against the stand-in over HTTPS.
    local ports sts_port ra_port
    ports=$(free_ports 2)
    read -r sts_port ra_port <<<"$ports"
    .venv/bin/python3 scripts/peers/sts_server.py --port "$sts_port" --roles-anywhere-port "$ra_port" --tls-cert "$dir/tls-cert.pem" \
        --tls-key "$dir/tls-key.pem" --trust-anchor "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/bench=$dir/ca-cert.pem" \
        >"$dir/sts.log" 2>&1 &
    local sts_pid=$!
    wait_for "http://127.0.0.1:$sts_port/_peer/calls?action=none" "STS stand-in"
    local flags=(--certificate "$dir/ec-cert.pem" --private-key "$dir/ec-key.pem" --trust-anchor-arn "arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/bench"
        --profile-arn "arn:aws:rolesanywhere:us-east-1:123456789012:profile/bench" --role-arn "arn:aws:iam::123456789012:role/bench"
        --endpoint "https://127.0.0.1:$ra_port")
    local cli=.build-static/release/multiauth
    export AWS_CA_BUNDLE="$dir/tls-cert.pem" MULTIAUTH_STORE="$dir/store" MULTIAUTH_STORE_KEY_FILE="$dir/store-key"
    "$cli" store init >/dev/null 2>&1
    "$cli" rolesanywhere credential-process "${flags[@]}" >/dev/null
    .venv/bin/python3 - "$cli" "$ra_port" "$dir" "${flags[@]}" <<'PY'
import statistics, subprocess, sys, time
cli, port, folder, flags = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
runs = {
    "cached": [cli, "rolesanywhere", "credential-process", *flags],
    "uncached": [cli, "rolesanywhere", "credential-process", "--no-session-cache", *flags],
    "iam-rolesanywhere-session": [".venv/bin/python3", "scripts/peers/rolesanywhere_client.py", "--endpoint", f"127.0.0.1:{port}",
                                  "--ca-bundle", f"{folder}/tls-cert.pem", "--certificate", f"{folder}/ec-cert.pem",
                                  "--private-key", f"{folder}/ec-key.pem", "--trust-anchor-arn", flags[flags.index("--trust-anchor-arn") + 1],
                                  "--profile-arn", flags[flags.index("--profile-arn") + 1], "--role-arn", flags[flags.index("--role-arn") + 1]],
}
times = {name: [] for name in runs}
for _ in range(15):  # alternating rounds
    for name, command in runs.items():
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        times[name].append((time.perf_counter() - start) * 1000)
print("rolesanywhere-process: credential-process median wall time, 15 alternating rounds: "
      + ", ".join(f"{name} {statistics.median(values):.1f} ms" for name, values in times.items())
      + " (uncached and iam-rolesanywhere-session make a CreateSession each call, as aws_signing_helper does)")
PY
    kill "$sts_pid" 2>/dev/null || true
    unset SOFTHSM2_CONF AWS_CA_BUNDLE MULTIAUTH_STORE MULTIAUTH_STORE_KEY_FILE
    rm -rf "$dir"
}
