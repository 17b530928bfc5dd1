#!/usr/bin/env bash
# The command line read as a new user would: view specs through --views in compare and tune, the world as
# --world in every command that takes one, one output option spelling, bench options and verdicts, and the
# world identity info shares with results.json.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

"$strata" gen --size 256x256 -o "$tmp/w" >/dev/null 2>&1 || fail "gen of the test world"

# --views with specs (their x,y has a comma of its own) and a name, in compare and in tune.
specs="up:100,100:0:-30,down:150.5,120:90:-90:40"
if "$strata" compare --world "$tmp/w" --methods ray --views "$specs" --size 16x10 --frames 1 --warmup 1 \
        --no-shadows --cache none --out "$tmp/cmp" >"$tmp/cmp.out" 2>"$tmp/cmp.err"; then
    json=$(find "$tmp/cmp" -name results.json | head -1)
    if [ -n "$json" ] && grep -q '"up"' "$json" && grep -q '"down"' "$json" && grep -q "1 methods x 2 views" "$tmp/cmp.out"
    then pass; else fail "compare --views specs: $(cat "$tmp/cmp.out")"; fi
else fail "compare --views '$specs': $(cat "$tmp/cmp.err")"; fi
if "$strata" tune --world "$tmp/w" --methods ray --views "$specs" --size 16x10 --frames 1 --warmup 1 --no-shadows \
        --cache none --out "$tmp/tune" >"$tmp/tune.out" 2>"$tmp/tune.err"; then
    grep -q "1 methods on 2 views" "$tmp/tune.out" && pass || fail "tune --views specs: $(cat "$tmp/tune.out")"
else fail "tune --views '$specs': $(cat "$tmp/tune.err")"; fi
"$strata" compare --world "$tmp/w" --methods ray --views "up:100" --cache none --out "$tmp/cmp" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "view 'up:100'" "$tmp/err" && pass || fail "a broken spec: $(cat "$tmp/err")"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
