# Finds the AWS signing suites (aws-c-auth's tests/aws-signing-test-suite, v4 and v4a), which
# stay outside the repository. Source it from the repository root after setup.sh.
#
# find_signing_suites sets and exports MULTIAUTH_SIGNING_SUITES to a folder holding
# aws-signing-test-suite/: the variable as the user set it, else ../shared/vectors, else a
# checkout of aws-c-auth pinned to one commit, fetched shallow into .build/aws-c-auth (where
# the network allows, within 30 s). It fails at once, saying what to set, when none is there.

AWS_C_AUTH_URL=https://github.com/awslabs/aws-c-auth
AWS_C_AUTH_COMMIT=495329c2433034bd8fd53fc6ba9e0202d3fac876

find_signing_suites() {
    local candidate checkout=.build/aws-c-auth
    for candidate in "${MULTIAUTH_SIGNING_SUITES:-}" ../shared/vectors "$checkout/tests"; do
        if [ -n "$candidate" ] && [ -d "$candidate/aws-signing-test-suite/v4" ] && [ -d "$candidate/aws-signing-test-suite/v4a" ]; then
            MULTIAUTH_SIGNING_SUITES=$(cd "$candidate" && pwd)
            export MULTIAUTH_SIGNING_SUITES
            return 0
        fi
    done
    if [ -n "${MULTIAUTH_SIGNING_SUITES:-}" ]; then
        say "MULTIAUTH_SIGNING_SUITES=$MULTIAUTH_SIGNING_SUITES holds no aws-signing-test-suite/v4 and v4a"
        return 1
    fi
    say "fetching the AWS signing suites: $AWS_C_AUTH_URL at $AWS_C_AUTH_COMMIT, into $checkout"
    rm -rf "$checkout"
    if mkdir -p "$checkout" && git -C "$checkout" init -q \
        && timeout 30 git -C "$checkout" fetch -q --depth 1 "$AWS_C_AUTH_URL" "$AWS_C_AUTH_COMMIT" 2>/dev/null \
        && git -C "$checkout" checkout -q FETCH_HEAD -- tests/aws-signing-test-suite; then
        MULTIAUTH_SIGNING_SUITES=$PWD/$checkout/tests
        export MULTIAUTH_SIGNING_SUITES
        return 0
    fi
    rm -rf "$checkout"
    say "the AWS signing suites are not here and could not be fetched: set MULTIAUTH_SIGNING_SUITES to a folder"
    say "holding aws-signing-test-suite/ (aws-c-auth's tests/ folder, e.g. a clone of $AWS_C_AUTH_URL)"
    return 1
}
