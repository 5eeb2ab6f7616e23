#!/usr/bin/env bash
# scripts/package --check: installs the package DEB in a minimal Debian root made with
# debootstrap (its download cached in .build-package/debootstrap.tar), without any Swift,
# and runs it there: --version, a signature on a fixed date (compared with the host's), a
# signed request sent with `multiauth request` (libcurl opened at run time) to a server on the
# host's loopback, the official suites, the gateway's help, a bash completion of a gateway
# flag, a man page.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
deb=$(readlink -f "$1")
folder=$PWD/.build-package
root=$folder/check-root
tarball=$folder/debootstrap.tar

command -v debootstrap >/dev/null || { say "installing debootstrap"; run_as_root apt-get install -y -qq debootstrap >/dev/null; }
cleanup() { mountpoint -q "$root/proc" && umount "$root/proc" || true; }
trap cleanup EXIT
if [ ! -f "$tarball" ]; then
    say "downloading a minimal Debian $(. /etc/os-release; echo "$VERSION_CODENAME") for the check (cached in $tarball)"
    run_as_root debootstrap --variant=minbase --make-tarball="$tarball" "$(. /etc/os-release; echo "$VERSION_CODENAME")" "$folder/tarball-work" >/dev/null
    rm -rf "$folder/tarball-work"
fi
rm -rf "$root"
run_as_root debootstrap --variant=minbase --unpack-tarball="$tarball" "$(. /etc/os-release; echo "$VERSION_CODENAME")" "$root" >/dev/null
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
# A private folder inside the root, named as the root's processes see it.
inside=$(mktemp -d "$root/tmp/check.XXXXXX")
seen=${inside#"$root"}
cp "$deb" "$inside/multiauth.deb"
cp -r vectors "$inside/vectors"

in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
start=$SECONDS
in_root sh -c "dpkg -i '$seen/multiauth.deb' >/dev/null 2>&1 || (apt-get update -qq && apt-get -f install -y -qq >/dev/null)"
in_root dpkg -s multiauth | grep -q 'Status: install ok installed'
say "installed in the clean root in $((SECONDS - start)) s"
in_root sh -c '! ls /usr/lib/swift /opt/swift 2>/dev/null' || { say "the root holds a Swift toolchain"; exit 1; }

fixed=(sign --method GET --url 'https://example.amazonaws.com/?Param1=value1' --region us-east-1 --service service --date 20150830T123600Z)
export_keys=(AWS_ACCESS_KEY_ID=AKIDEXAMPLE AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY)
in_root multiauth --version
here=$(env -i "${export_keys[@]}" .build-static/release/multiauth "${fixed[@]}")
there=$(in_root "${export_keys[@]}" multiauth "${fixed[@]}")
[ "$here" = "$there" ] || { say "the signature in the root differs from the host's"; diff <(echo "$here") <(echo "$there") >&2; exit 1; }
say "multiauth sign on a fixed date: the same output as on the host"
# A signed request through libcurl, which only the package's Depends brings into the root.
served=$(mktemp -d)
echo "signed request arrived" >"$served/index.txt"
python3 -u -m http.server --bind 127.0.0.1 --directory "$served" 0 >"$served/port.log" 2>&1 &
server_pid=$!
trap 'kill $server_pid 2>/dev/null || true; rm -rf "$served"; cleanup' EXIT
for _ in $(seq 50); do grep -q 'port [0-9]' "$served/port.log" && break; sleep 0.1; done
port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$served/port.log" | head -n 1)
[ -n "$port" ] || { say "the host's test server did not start"; exit 1; }
answer=$(in_root "${export_keys[@]}" multiauth request --auth iam --region us-east-1 --service execute-api --fail "http://127.0.0.1:$port/index.txt")
[ "$answer" = "signed request arrived" ] || { say "multiauth request in the root got '$answer'"; exit 1; }
say "multiauth request sent a signed request from the root through libcurl"
for suite in aws4_testsuite derived; do in_root multiauth vectors verify "$seen/vectors/$suite" | tail -n 1; done
in_root multiauth-server gateway --help | sed -n 1p  # sed reads it all: head would end the writer with SIGPIPE
in_root multiauth-forward proxy --help | sed -n 1p
completion=$(in_root bash -c 'source /usr/share/bash-completion/completions/multiauth
    COMP_WORDS=(multiauth gateway --iam-cre); COMP_CWORD=2; COMP_LINE="multiauth gateway --iam-cre"; COMP_POINT=${#COMP_LINE}
    _multiauth multiauth --iam-cre gateway 2>/dev/null; echo "${COMPREPLY[*]}"')
[[ "$completion" == *--iam-credentials* ]] || { say "bash completed 'multiauth gateway --iam-cre' to '$completion'"; exit 1; }
say "bash completes 'multiauth gateway --iam-cre' to $completion"
in_root sh -c 'apt-get install -y -qq --no-install-recommends man-db systemd procps >/dev/null 2>&1; MANPAGER=cat MANWIDTH=80 man multiauth-request' | sed -n 1,8p
for kind in proxy gateway; do
    unit=$root/etc/systemd/system/multiauth-$kind@check.service
    cp "$root/usr/lib/systemd/system/multiauth-$kind@.service" "$unit"
    systemd-analyze verify --root="$root" --man=no "$unit"
    say "multiauth-$kind@.service: systemd-analyze verify passes; security: $(systemd-analyze security --offline=true --root="$root" "$unit" | tail -n 1 | sed 's/.*: //')"
    rm "$unit"
done
in_root dpkg -r multiauth >/dev/null
left=$(in_root sh -c 'ls /usr/bin/multiauth* /usr/share/man/man1/multiauth* /usr/lib/systemd/system/multiauth* 2>/dev/null | wc -l')
[ "$left" = 0 ] || { say "dpkg -r left $left files"; exit 1; }
say "the package removes cleanly; check passed"
