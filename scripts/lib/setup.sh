# Shared set-up for scripts/test, scripts/demo and scripts/bench: installs what a fresh
# Debian machine lacks (apt packages, Python packages into .venv) and nothing else.
# Source it from the repository root.

BOTOCORE_VERSION=1.43.11

# Progress on standard error, with the seconds since the script started (where a run's time goes).
say() { printf '==> [%ss] %s\n' "$SECONDS" "$*" >&2; }

# The debug build of scripts/test, scripts/demo and scripts/fuzz (a build with other settings
# compiles everything again): each of our modules writes its symbol graph as it compiles
# (MULTIAUTH_SYMBOL_GRAPHS, read by Package.swift; the dependencies write none), so DocC needs
# no build of its own (SwiftPM's plugin planned one per catalog, two minutes).
SYMBOL_GRAPHS="$PWD/.build/symbol-graphs"

# The debug build, with the symbol graphs and any further arguments.
debug_build() {
    mkdir -p "$SYMBOL_GRAPHS"
    # Line tables only (a crash's backtrace keeps its files and lines) and lld: less to
    # generate and link on a cold machine. Linux only: lld is the toolchain's there.
    local flags=()
    [ "$(uname -s)" = Linux ] && flags=(-Xswiftc -gline-tables-only -Xcc -gline-tables-only -Xswiftc -use-ld=lld)
    MULTIAUTH_SYMBOL_GRAPHS=$SYMBOL_GRAPHS swift build "${flags[@]}" "$@"
}

run_as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root to run: $*"; return 1
    fi
}

# apt packages: OpenSSL, libcurl and SQLite headers (CLibCrypto, CLibCurl, GRDB), pkg-config, the openssl
# command (the test certificate, the bench's ECDSA floor); venv for Python; PostgreSQL's server
# and psql (the shared store's peer); SoftHSM with OpenSC's pkcs11-tool (the PKCS#11 token
# peer), swtpm with OpenSSL's tpm2 provider (the TPM peer), nginx-light and Caddy (the proxies
# `multiauth authz` answers), and libfido2 (passkeys; opened at run time).
ensure_system_packages() {
    local missing=()
    for package in libssl-dev libcurl4-openssl-dev libsqlite3-dev pkg-config curl openssl postgresql postgresql-client \
        softhsm2 opensc swtpm swtpm-tools tpm2-openssl keyutils pass gnupg gnome-keyring libsecret-tools dbus-daemon xmlsec1 \
        nginx-light caddy libfido2-1; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' || missing+=("$package")
    done
    command -v python3 >/dev/null || missing+=(python3)
    if command -v python3 >/dev/null && ! python3 -c 'import venv, ensurepip' 2>/dev/null; then missing+=(python3-venv); fi
    if [ ${#missing[@]} -gt 0 ]; then
        say "installing apt packages: ${missing[*]}"
        run_as_root apt-get update -qq
        DEBIAN_FRONTEND=noninteractive run_as_root apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    command -v swift >/dev/null || { say "swift is not on PATH: install the Swift 6 toolchain first"; return 1; }
}

MOTO_VERSION=5.2.1
JOSERFC_VERSION=1.6.5
NANOIDP_VERSION=3.4.0
PYCOGNITO_VERSION=2024.5.1
GRAPHQL_CORE_VERSION=3.3.2
GQL_VERSION=4.4.0
AIOHTTP_VERSION=3.14.5
AWSCRT_VERSION=0.38.1
PROMETHEUS_CLIENT_VERSION=0.26.0
IAM_ROLESANYWHERE_SESSION_VERSION=3.0.0
XDS_PROTOS_VERSION=1.85.0
FIDO2_VERSION=2.2.1
BEDROCK_TOKEN_GENERATOR_VERSION=1.1.0
GRPCIO_VERSION=1.85.3

# The CLI as we recommend building it, for start-up time (a script runs `multiauth sign` or
# `token` once per request):
# - the Swift runtime and Foundation linked statically (loading them costs about 8 ms);
# - on Linux a position-dependent executable, so the loader applies none of the ~130,000
#   relative relocations a PIE carries (-no-pie only with the static runtime: against a shared
#   libswiftCore the loader warns);
# - no symbol exported from the executable (--no-export-dynamic): SwiftPM exports all 42,000,
#   and glibc's dladdr, which Foundation calls at start-up, walks them one by one (0.9 ms);
# - libcrypto, libsqlite3 and zlib linked from their static archives: each shared library
#   costs the loader a symbol look-up per relocation (5,800 for these two), about 1.5 ms per
#   process. A pkg-config file of our own puts a folder holding only the archives first on
#   the library path. libcurl stays opened at the first request (CurlShims), with its own
#   shared libcrypto: the two never exchange OpenSSL objects.
# - every function in its own section, laid out by lld in the order of scripts/lib/code-order.txt
#   (scripts/lib/code_order.sh says why): what the servers run sits together, so the pages of
#   code they map are those they use.
build_static_cli() {
    local flags=() folder="$PWD/.build-static/static-libs" name pkg_config_path=${PKG_CONFIG_PATH:-}
    if [ "$(uname -s)" = Linux ]; then
        flags=(-Xswiftc -Xclang-linker -Xswiftc -no-pie -Xlinker --no-export-dynamic
            -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections -Xswiftc -use-ld=lld
            -Xlinker "--symbol-ordering-file=$PWD/scripts/lib/code-order.txt" -Xlinker --no-warn-symbol-ordering)
        mkdir -p "$folder/pkgconfig"
        for name in libcrypto libsqlite3 libz; do
            local archive
            archive=$(gcc -print-file-name="$name.a")
            rm -f "$folder/$name.a"  # a link left by an earlier build may point at nothing now
            if [ -f "$archive" ]; then ln -s "$archive" "$folder/$name.a"; fi
        done
        if [ -f "$folder/libcrypto.a" ]; then
            printf 'Name: libcrypto\nDescription: static archives first\nVersion: 3\nLibs: -L%s -lcrypto\nCflags: %s\n' \
                "$folder" "$(pkg-config --cflags libcrypto)" >"$folder/pkgconfig/libcrypto.pc"
            pkg_config_path="$folder/pkgconfig${pkg_config_path:+:$pkg_config_path}"
        fi
    fi
    local product
    for product in multiauth multiauth-server multiauth-forward; do  # multiauth hands its server commands to the others
        PKG_CONFIG_PATH=$pkg_config_path swift build -c release --product "$product" --static-swift-stdlib \
            --scratch-path .build-static "${flags[@]}" "$@"
    done
}

# Python packages for the test oracles and the benchmark peer, in a git-ignored .venv.
ensure_python_packages() {
    if [ ! -x .venv/bin/python3 ]; then
        say "creating .venv"
        python3 -m venv .venv
    fi
    if ! .venv/bin/python3 -c "import botocore, sys; sys.exit(botocore.__version__ != '$BOTOCORE_VERSION')" 2>/dev/null; then
        say "installing botocore==$BOTOCORE_VERSION into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt "botocore==$BOTOCORE_VERSION"
    fi
}

# The test peers' packages: moto in server mode (STS, Cognito), boto3 to prepare it,
# joserfc for the API server's JWT checks, aiohttp for the AppSync peer (HTTP and WebSocket on one port),
# gql for the independent AppSync real-time client, awscrt (aws-c-auth) as the gateway's second signer.
ensure_peer_packages() {
    ensure_python_packages
    ensure_awscrt
    if ! .venv/bin/python3 -c "import moto, boto3, flask, joserfc, pycognito, graphql, gql, aiohttp, prometheus_client, sys; sys.exit(moto.__version__ != '$MOTO_VERSION' or gql.__version__ != '$GQL_VERSION')" 2>/dev/null \
        || [ "$(.venv/bin/pip show nanoidp 2>/dev/null | sed -n 's/^Version: //p')" != "$NANOIDP_VERSION" ]; then
        say "installing moto==$MOTO_VERSION, nanoidp==$NANOIDP_VERSION, pycognito, boto3, flask, joserfc, aiohttp, gql, prometheus_client into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt "moto[cognitoidp]==$MOTO_VERSION" flask flask-cors boto3 \
            "joserfc==$JOSERFC_VERSION" "botocore==$BOTOCORE_VERSION" "nanoidp==$NANOIDP_VERSION" "pycognito==$PYCOGNITO_VERSION" \
            "graphql-core==$GRAPHQL_CORE_VERSION" "aiohttp==$AIOHTTP_VERSION" "gql[websockets,botocore]==$GQL_VERSION" \
            "prometheus_client==$PROMETHEUS_CLIENT_VERSION"
    fi
    # fido2 (Yubico's): the Cognito stand-in's relying-party checks of passkeys; cbor for the software authenticator.
    if [ "$(.venv/bin/pip show fido2 2>/dev/null | sed -n 's/^Version: //p')" != "$FIDO2_VERSION" ]; then
        say "installing fido2==$FIDO2_VERSION into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt "fido2==$FIDO2_VERSION"
    fi
    # IAM Roles Anywhere's Python client (AWS's), the independent signer the Roles Anywhere stand-in is proven with.
    if [ "$(.venv/bin/pip show iam-rolesanywhere-session 2>/dev/null | sed -n 's/^Version: //p')" != "$IAM_ROLESANYWHERE_SESSION_VERSION" ]; then
        say "installing iam-rolesanywhere-session==$IAM_ROLESANYWHERE_SESSION_VERSION into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt \
            "iam-rolesanywhere-session==$IAM_ROLESANYWHERE_SESSION_VERSION"
    fi
    # Envoy's ext_authz messages generated from Envoy's own protos, and gRPC's client: what
    # the gRPC auth service is proven with.
    if [ "$(.venv/bin/pip show xds-protos 2>/dev/null | sed -n 's/^Version: //p')" != "$XDS_PROTOS_VERSION" ]; then
        say "installing xds-protos==$XDS_PROTOS_VERSION and grpcio==$GRPCIO_VERSION into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt \
            "xds-protos==$XDS_PROTOS_VERSION" "grpcio==$GRPCIO_VERSION"
    fi
    # AWS's Bedrock API key generator: the oracle of `multiauth token bedrock`.
    if [ "$(.venv/bin/pip show aws-bedrock-token-generator 2>/dev/null | sed -n 's/^Version: //p')" != "$BEDROCK_TOKEN_GENERATOR_VERSION" ]; then
        say "installing aws-bedrock-token-generator==$BEDROCK_TOKEN_GENERATOR_VERSION into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt \
            "aws-bedrock-token-generator==$BEDROCK_TOKEN_GENERATOR_VERSION"
    fi
}

# aws-c-auth through its Python binding: a signer we did not write, for the gateway tests and the bench.
ensure_awscrt() {
    if ! .venv/bin/python3 -c "import importlib.metadata as m, sys; sys.exit(m.version('awscrt') != '$AWSCRT_VERSION')" 2>/dev/null; then
        say "installing awscrt==$AWSCRT_VERSION (aws-c-auth's Python binding) into .venv"
        .venv/bin/pip install -q --no-compile --disable-pip-version-check -c scripts/lib/peer-constraints.txt "awscrt==$AWSCRT_VERSION"
    fi
}

PEER_PIDS=()
PEER_WAITS=()

stop_peers() {
    for pid in "${PEER_PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PEER_PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PEER_PIDS=()
    stop_postgres
}

POSTGRES_DIR=
POSTGRES_BIN=

# Runs a PostgreSQL program as the cluster's owner: `postgres` when we are root (initdb
# refuses root), else ourselves.
as_postgres_owner() {
    if [ "$(id -u)" -eq 0 ]; then su postgres -s /bin/sh -c "$*"; else sh -c "$*"; fi
}

# A private PostgreSQL cluster from Debian's package on 127.0.0.1 and a free port: initdb into
# a temp folder, user multiauth with a password (scram-sha-256, so a wrong one is refused).
# Exports MULTIAUTH_TEST_POSTGRES_URL (no password) and MULTIAUTH_TEST_POSTGRES_PASSWORD.
start_postgres() {
    local port
    port=$(free_port)
    POSTGRES_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    POSTGRES_DIR=$(mktemp -d /tmp/multiauth-postgres.XXXXXX)
    export MULTIAUTH_TEST_POSTGRES_PASSWORD=multiauth-test-postgres-password
    printf '%s\n' "$MULTIAUTH_TEST_POSTGRES_PASSWORD" >"$POSTGRES_DIR/password"
    [ "$(id -u)" -eq 0 ] && chown -R postgres: "$POSTGRES_DIR"
    as_postgres_owner "'$POSTGRES_BIN/initdb' -D '$POSTGRES_DIR/data' -U multiauth -A scram-sha-256 --pwfile='$POSTGRES_DIR/password' -N" \
        >"$POSTGRES_DIR/initdb.log" 2>&1 || { cat "$POSTGRES_DIR/initdb.log" >&2; return 1; }
    as_postgres_owner "'$POSTGRES_BIN/pg_ctl' -D '$POSTGRES_DIR/data' -o \"-k '$POSTGRES_DIR' -p $port -h 127.0.0.1 -c fsync=off\" -l '$POSTGRES_DIR/log' start -w" \
        >/dev/null || { cat "$POSTGRES_DIR/log" >&2; return 1; }
    export MULTIAUTH_TEST_POSTGRES_URL="postgres://multiauth@127.0.0.1:$port/postgres?sslmode=disable"
}

stop_postgres() {
    [ -n "$POSTGRES_DIR" ] || return 0
    as_postgres_owner "'$POSTGRES_BIN/pg_ctl' -D '$POSTGRES_DIR/data' stop -m fast" >/dev/null 2>&1 || true
    rm -rf "$POSTGRES_DIR"
    POSTGRES_DIR=
}

# One free port on 127.0.0.1.
free_port() {
    free_ports 1
}

# N distinct free ports on one line: all held open while they are chosen, so no two are the
# same (one free_port after another can hand out a port twice).
free_ports() {
    .venv/bin/python3 -c 'import socket, sys
held = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in held: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in held))' "$1"
}

# Waits up to 30 s for URL to answer (curl given any further arguments); fails the run otherwise.
wait_for() {
    local url=$1 name=$2
    shift 2
    for _ in $(seq 1 300); do
        curl -s -o /dev/null "$@" "$url" && return 0
        sleep 0.1
    done
    say "$name did not start on $url"
    return 1
}

# Starts every test peer on 127.0.0.1, all at once: first those that need nothing from another
# (moto, nanoidp and our stand-ins), then, once moto is prepared, the two verifying API
# servers (one with its clock 20 minutes ahead) and the AppSync server, which check moto's
# tokens. Exports MULTIAUTH_TEST_* for the integration tests. Call stop_peers on exit.
start_peers() {
    local logs=$1
    mkdir -p "$logs"
    PEER_WAITS=()
    local moto_port
    moto_port=$(free_port)
    # TOTP codes are checked (moto's fixed secret), so MFA tests can fail on a wrong code.
    MOTO_COGNITO_IDP_USER_POOL_ENABLE_TOTP=true .venv/bin/moto_server -H 127.0.0.1 -p "$moto_port" >"$logs/moto.log" 2>&1 &
    PEER_PIDS+=($!)
    export MULTIAUTH_TEST_MOTO_URL="http://127.0.0.1:$moto_port"
    start_nanoidp "$logs"
    export MULTIAUTH_TEST_KEY_ID=AKIDMULTIAUTHTEST MULTIAUTH_TEST_SECRET=multiauth-test-secret-not-real-0000000000
    export MULTIAUTH_TEST_API_KEY=test-api-key-0123456789
    local key="$MULTIAUTH_TEST_KEY_ID:$MULTIAUTH_TEST_SECRET"
    start_peer FAULT fault_server.py /capture/ "fault server" "$logs"
    export MULTIAUTH_TEST_CONTAINER_TOKEN_FILE="$(cd "$logs" && pwd)/container-token"
    printf %s "pod-identity-token-1" >"$MULTIAUTH_TEST_CONTAINER_TOKEN_FILE"
    chmod 600 "$MULTIAUTH_TEST_CONTAINER_TOKEN_FILE"
    start_peer CONTAINER container_server.py /fail500 "container credentials server" "$logs" \
        --token-file "$MULTIAUTH_TEST_CONTAINER_TOKEN_FILE" --key "$key"
    start_peer IMDS imds_server.py /_peer/stats "instance metadata server" "$logs" --key "$key"
    start_peer SSO sso_server.py /_peer/stats "IAM Identity Center server" "$logs" --key "$key"
    make_test_certificates "$logs"
    local roles_anywhere_port
    roles_anywhere_port=$(free_port)
    start_peer STS sts_server.py "/_peer/calls?action=none" "STS stand-in" "$logs" --key "$key" \
        --mfa "arn:aws:iam::123456789012:mfa/tester=123456" --roles-anywhere-port "$roles_anywhere_port" \
        --tls-cert "$logs/tls-cert.pem" --tls-key "$logs/tls-key.pem" \
        --trust-anchor "$MULTIAUTH_TEST_RA_TRUST_ANCHOR_ARN=$MULTIAUTH_TEST_RA_CA_CERT" \
        --saml-provider "arn:aws:iam::123456789012:saml-provider/nanoidp=$MULTIAUTH_TEST_OIDC_ISSUER/saml/metadata"
    export MULTIAUTH_TEST_ROLESANYWHERE_URL="https://127.0.0.1:$roles_anywhere_port"
    start_peer COGNITO cognito_server.py "/_peer/devices?username=none" "Cognito device server" "$logs"
    start_peer UPSTREAM upstream_server.py "/_peer/count" "gateway upstream" "$logs"
    start_peer AUTHORIZER authorizer_server.py "/_peer/calls?token=none" "request authorizer" "$logs"
    start_peer MCP mcp_server.py "/_peer/health" "MCP server (mcp SDK)" "$logs"
    start_tls_upstream "$logs"
    start_postgres

    wait_for "$MULTIAUTH_TEST_MOTO_URL/moto-api/" moto
    .venv/bin/python3 scripts/peers/moto_setup.py "$MULTIAUTH_TEST_MOTO_URL" >"$logs/moto-setup.json"
    MULTIAUTH_TEST_MOTO_SETUP="$(cd "$logs" && pwd)/moto-setup.json"
    export MULTIAUTH_TEST_MOTO_SETUP
    local jwks
    jwks=$(.venv/bin/python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["jwks_url"])' "$logs/moto-setup.json")
    wait_for_peers
    for variant in plain skewed; do
        local port offset=0
        port=$(free_port)
        [ "$variant" = skewed ] && offset=1200
        .venv/bin/python3 scripts/peers/api_server.py --port "$port" --clock-offset "$offset" \
            --key "$key" --key TESTACCESSKEY12345:ABCSECRETKEY \
            --api-key "$MULTIAUTH_TEST_API_KEY" --jwks-url "$jwks" --mcp-upstream "$MULTIAUTH_TEST_MCP_URL" >"$logs/api-$variant.log" 2>&1 &
        PEER_PIDS+=($!)
        PEER_WAITS+=("http://127.0.0.1:$port/open/|API server ($variant)")
        if [ "$variant" = plain ]; then export MULTIAUTH_TEST_API_URL="http://127.0.0.1:$port"; else export MULTIAUTH_TEST_SKEWED_API_URL="http://127.0.0.1:$port"; fi
    done
    start_appsync "$logs" "$jwks"
    wait_for_peers
    # Nothing run under the peers may reach the real instance metadata address: tests that
    # want IMDS name the local one.
    export AWS_EC2_METADATA_DISABLED=true
    say "peers: PostgreSQL $MULTIAUTH_TEST_POSTGRES_URL, moto $MULTIAUTH_TEST_MOTO_URL, nanoidp $MULTIAUTH_TEST_OIDC_ISSUER, AppSync $MULTIAUTH_TEST_APPSYNC_URL, API $MULTIAUTH_TEST_API_URL, skewed API $MULTIAUTH_TEST_SKEWED_API_URL, faults $MULTIAUTH_TEST_FAULT_URL"
}

# Waits for every peer started since start_peers began (PEER_WAITS: "URL|name|curl args").
wait_for_peers() {
    local entry url name extra
    for entry in "${PEER_WAITS[@]}"; do
        IFS='|' read -r url name extra <<<"$entry"
        # shellcheck disable=SC2086
        wait_for "$url" "$name" $extra
    done
    PEER_WAITS=()
}

# Starts one of our stand-ins, scripts/peers/SCRIPT, on a free port with ARGS, exports
# MULTIAUTH_TEST_<NAME>_URL; wait_for_peers waits until PATH answers. Its log goes to
# LOGS/<script>.log.
start_peer() {
    local name=$1 script=$2 path=$3 what=$4 logs=$5 port
    shift 5
    port=$(free_port)
    .venv/bin/python3 "scripts/peers/$script" --port "$port" "$@" >"$logs/${script%.py}.log" 2>&1 &
    PEER_PIDS+=($!)
    export "MULTIAUTH_TEST_${name}_URL=http://127.0.0.1:$port"
    PEER_WAITS+=("http://127.0.0.1:$port$path|$what")
}

# The test certificates, made now with the openssl command: a self-signed server certificate for
# 127.0.0.1 (the HTTPS peers), and the Roles Anywhere trust anchor's CA, whose key the tests
# issue their client certificates with. Exports MULTIAUTH_TEST_RA_CA_CERT, _RA_CA_KEY and
# _RA_TRUST_ANCHOR_ARN.
make_test_certificates() {
    local logs=$1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=127.0.0.1" \
        -addext "subjectAltName=IP:127.0.0.1" -keyout "$logs/tls-key.pem" -out "$logs/tls-cert.pem" >/dev/null 2>&1
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=MultiAuth test trust anchor" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
        -keyout "$logs/ra-ca-key.pem" -out "$logs/ra-ca-cert.pem" >/dev/null 2>&1
    chmod 600 "$logs/ra-ca-key.pem"
    MULTIAUTH_TEST_RA_CA_CERT="$(cd "$logs" && pwd)/ra-ca-cert.pem"
    MULTIAUTH_TEST_RA_CA_KEY="$(cd "$logs" && pwd)/ra-ca-key.pem"
    export MULTIAUTH_TEST_RA_CA_CERT MULTIAUTH_TEST_RA_CA_KEY
    export MULTIAUTH_TEST_RA_TRUST_ANCHOR_ARN="arn:aws:rolesanywhere:us-east-1:123456789012:trust-anchor/a1b2c3d4-multiauth-test"
}

# Starts the upstream stand-in over HTTPS with the 127.0.0.1 certificate (make_test_certificates);
# exports MULTIAUTH_TEST_TLS_UPSTREAM_URL and MULTIAUTH_TEST_TLS_CA (the certificate, to trust it
# as a CA bundle).
start_tls_upstream() {
    local logs=$1 port
    port=$(free_port)
    .venv/bin/python3 scripts/peers/upstream_server.py --port "$port" --tls-cert "$logs/tls-cert.pem" --tls-key "$logs/tls-key.pem" \
        >"$logs/upstream-tls.log" 2>&1 &
    PEER_PIDS+=($!)
    export MULTIAUTH_TEST_TLS_UPSTREAM_URL="https://127.0.0.1:$port"
    MULTIAUTH_TEST_TLS_CA="$(cd "$logs" && pwd)/tls-cert.pem"
    MULTIAUTH_TEST_TLS_KEY="$(cd "$logs" && pwd)/tls-key.pem"
    chmod 600 "$MULTIAUTH_TEST_TLS_KEY"
    export MULTIAUTH_TEST_TLS_CA MULTIAUTH_TEST_TLS_KEY
    PEER_WAITS+=("$MULTIAUTH_TEST_TLS_UPSTREAM_URL/_peer/count|HTTPS upstream|--cacert $MULTIAUTH_TEST_TLS_CA")
    # The Kubernetes API stand-in that checks EKS tokens with botocore, on the same certificate.
    port=$(free_port)
    .venv/bin/python3 scripts/peers/eks_api_server.py --port "$port" --tls-cert "$logs/tls-cert.pem" --tls-key "$logs/tls-key.pem" \
        --key "$MULTIAUTH_TEST_KEY_ID:$MULTIAUTH_TEST_SECRET" --cluster multiauth-test >"$logs/eks-api.log" 2>&1 &
    PEER_PIDS+=($!)
    export MULTIAUTH_TEST_EKS_API_URL="https://127.0.0.1:$port"
    PEER_WAITS+=("$MULTIAUTH_TEST_EKS_API_URL/_peer/auth|EKS API stand-in|--cacert $MULTIAUTH_TEST_TLS_CA")
}

# Starts nanoidp (the OpenID provider peer) with the config in scripts/peers/nanoidp and
# exports MULTIAUTH_TEST_OIDC_ISSUER. Its keys and config copy live under LOGS.
start_nanoidp() {
    local logs=$1 port home
    port=$(free_port)
    home="$logs/nanoidp"
    rm -rf "$home" && mkdir -p "$home/config"
    sed "s/@PORT@/$port/g" scripts/peers/nanoidp/settings.yaml >"$home/config/settings.yaml"
    cp scripts/peers/nanoidp/users.yaml "$home/config/users.yaml"
    local nanoidp="$PWD/.venv/bin/nanoidp"
    (cd "$home" && exec "$nanoidp" --config ./config >"nanoidp.log" 2>&1) &
    PEER_PIDS+=($!)
    export MULTIAUTH_TEST_OIDC_ISSUER="http://127.0.0.1:$port"
    PEER_WAITS+=("$MULTIAUTH_TEST_OIDC_ISSUER/.well-known/openid-configuration|nanoidp")
}

# Starts the AppSync-like GraphQL server (API key, IAM, moto's and nanoidp's JWTs) and
# exports MULTIAUTH_TEST_APPSYNC_URL (its /graphql endpoint).
start_appsync() {
    local logs=$1 moto_jwks=$2 port
    port=$(free_port)
    .venv/bin/python3 scripts/peers/appsync_server.py --port "$port" --key "$MULTIAUTH_TEST_KEY_ID:$MULTIAUTH_TEST_SECRET" \
        --key TESTACCESSKEY12345:ABCSECRETKEY --api-key "$MULTIAUTH_TEST_API_KEY" --jwks-url "$moto_jwks" \
        --jwks-url "$MULTIAUTH_TEST_OIDC_ISSUER/.well-known/jwks.json" >"$logs/appsync.log" 2>&1 &
    PEER_PIDS+=($!)
    export MULTIAUTH_TEST_APPSYNC_URL="http://127.0.0.1:$port/graphql"
    PEER_WAITS+=("http://127.0.0.1:$port/|AppSync server")
}
