# Shared by the CLI tests that source it: a temporary folder removed on exit, pass/fail counters, check and
# expect_error. The test gives the strata binary as its first argument.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

check() { # what, condition...
    local what="$1"; shift
    if "$@"; then passes=$((passes + 1)); else echo "FAIL: $what"; fails=$((fails + 1)); fi
}

expect_error() { # what, args...: exit 2, one line on stderr
    local what="$1"; shift
    "$strata" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
    local status=$? lines
    lines=$(wc -l <"$tmp/stderr")
    if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ]; then
        echo "FAIL: $what: status $status, $lines stderr line(s): $(head -c 300 "$tmp/stderr")"
        fails=$((fails + 1))
    else
        passes=$((passes + 1))
    fi
}
