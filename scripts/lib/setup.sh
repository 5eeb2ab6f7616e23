# Shared set-up for scripts/test, scripts/demo and scripts/bench: installs what a fresh
# Debian machine lacks (apt packages, Python packages into .venv) and nothing else.
# Source it from the repository root.

BOTOCORE_VERSION=1.43.11

say() { printf '==> %s\n' "$*" >&2; }

run_as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
        say "need root to run: $*"; return 1
    fi
}

# apt packages: OpenSSL headers and pkg-config for the CLibCrypto target; venv for Python.
ensure_system_packages() {
    local missing=()
    for package in libssl-dev pkg-config; do
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

# Python packages for the test oracles and the benchmark peer, in a git-ignored .venv.
ensure_python_packages() {
    if [ ! -x .venv/bin/python3 ]; then
        say "creating .venv"
        python3 -m venv .venv
    fi
    if ! .venv/bin/python3 -c "import botocore, sys; sys.exit(botocore.__version__ != '$BOTOCORE_VERSION')" 2>/dev/null; then
        say "installing botocore==$BOTOCORE_VERSION into .venv"
        .venv/bin/pip install -q --disable-pip-version-check "botocore==$BOTOCORE_VERSION"
    fi
}
