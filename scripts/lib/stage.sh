# The files an installation holds, laid out under a root folder: shared by scripts/package
# (the .deb's tree) and scripts/install (a prefix such as ~/.local). Source it after setup.sh.

# Fails naming each command in "$@" that is not on PATH.
require_commands() {
    local missing=()
    for command in "$@"; do command -v "$command" >/dev/null || missing+=("$command"); done
    if [ ${#missing[@]} -gt 0 ]; then say "missing: ${missing[*]} (Debian: apt-get install ${missing[*]/dpkg-deb/dpkg})"; return 1; fi
}

# The static release executables (scripts/bench's build), with the static archives they need.
build_release() {
    local folder archive
    for archive in libcrypto libsqlite3 libz; do
        folder=$(gcc -print-file-name="$archive.a")
        [ -f "$folder" ] || { say "missing the static archive $archive.a (Debian: apt-get install ${archive/libcrypto/libssl}-dev)"; return 1; }
    done
    say "building the static release executables (.build-static)"
    build_static_cli >"$STAGE_LOG" 2>&1 || { grep -E 'error:' "$STAGE_LOG" >&2 || tail -n 30 "$STAGE_LOG" >&2; return 1; }
}

# Lays out the executables, man pages, completions, systemd units, docs and LICENSE under
# $1 (the root) with $2 as the prefix inside it (/usr for a package).
stage_files() {
    local root=$1 prefix=$2 bin=.build-static/release
    local share="$root$prefix/share"
    install -d "$root$prefix/bin" "$share/man/man1" "$share/doc/multiauth" \
        "$share/bash-completion/completions" "$share/zsh/vendor-completions" "$share/fish/vendor_completions.d"
    install -m 0755 "$bin/multiauth" "$bin/multiauth-server" "$bin/multiauth-forward" "$root$prefix/bin/"
    # Symbols only serve a debugger (Swift's metadata lives in sections strip keeps): 239 MB to 106 MB.
    strip --strip-unneeded "$root$prefix/bin/multiauth" "$root$prefix/bin/multiauth-server" "$root$prefix/bin/multiauth-forward"
    # One tree holds every command, the ones multiauth hands to multiauth-server included:
    # multiauth-server's (its command name is multiauth).
    "$bin/multiauth-server" --generate-completion-script bash >"$share/bash-completion/completions/multiauth"
    "$bin/multiauth-server" --generate-completion-script zsh >"$share/zsh/vendor-completions/_multiauth"
    "$bin/multiauth-server" --generate-completion-script fish >"$share/fish/vendor_completions.d/multiauth.fish"
    stage_manual "$share/man/man1"
    install -m 0644 README.md CONTRIBUTING.md "$share/doc/multiauth/"
    install -d "$share/doc/multiauth/docs"
    install -m 0644 docs/*.md "$share/doc/multiauth/docs/"
    install -m 0644 LICENSE "$share/doc/multiauth/copyright"
    if [ "$prefix" = /usr ]; then
        install -d "$root/usr/lib/systemd/system"
        install -m 0644 packaging/systemd/*.service "$root/usr/lib/systemd/system/"
    else
        install -d "$share/multiauth/systemd"
        install -m 0644 packaging/systemd/*.service "$share/multiauth/systemd/"
    fi
}

# A man page per command, gzipped into $1: swift-argument-parser's generate-manual tool over
# multiauth-server's command tree (every command of all three executables). Its plugin builds the
# tool; it is then run on the static executable, so the plugin's own release build of the
# product is the lean multiauth's. Pages are named as git's are: multiauth-store-set(1).
stage_manual() {
    local pages=$PWD/.build-package/man tool page name
    rm -rf "$pages"
    mkdir -p "$pages"
    tool=$(find .build -path '*/debug/generate-manual-tool' -type f 2>/dev/null | head -n 1)
    if [ -z "$tool" ]; then
        say "building swift-argument-parser's generate-manual tool"
        swift package --allow-writing-to-directory "$pages" generate-manual --product multiauth --output-directory "$pages" >>"$STAGE_LOG" 2>&1 || true
        tool=$(find .build -path '*/debug/generate-manual-tool' -type f 2>/dev/null | head -n 1)
        [ -n "$tool" ] || { tail -n 20 "$STAGE_LOG" >&2; say "the generate-manual plugin built no tool"; return 1; }
        rm -f "$pages"/*
    fi
    "$tool" .build-static/release/multiauth-server --multi-page --date "$(date -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}" +%Y-%m-%d)" \
        --authors 'MultiAuth developers' --output-directory "$pages" >>"$STAGE_LOG" 2>&1
    for page in "$pages"/*.1; do
        name=$(basename "$page" .1)
        gzip -9n <"$page" >"$1/${name//./-}.1.gz"
    done
    printf '.so man1/multiauth.1\n' | gzip -9n >"$1/multiauth-server.1.gz"
}
