#!/usr/bin/env bash
# strata fly on lavapipe at a tiny size: a one-second flight over a generated store with each store method, its
# run folder (fly.json with every frame's figures, fly.md, fly.svg), the slow-load mode, and bad input (missing
# options, a bad or hostile flight file, a level as the world, a method of levels), each one line on stderr and
# exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$1"

world=gen:4:513x513
example="$STRATA_SOURCE/data/flights/low-300.flight"
[ -f "$example" ] || { echo "FAIL: $example is missing (it ships in data/flights/)"; exit 1; }
printf 'start 0.5 0.5\nheading 30\nfps 20\nspeed 300\nheight 40\nfly 0.5\nturn 90 0.5\n' >"$tmp/short.flight"

for m in cdlod cdlod-compute; do
    "$strata" fly --world "$world" --path "$tmp/short.flight" --method "$m" --size 64x40 --out "$tmp/fly-$m" \
        --no-progress >"$tmp/out" 2>"$tmp/err"
    check "fly $m: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
    run=$(ls -d "$tmp/fly-$m"/*/latest 2>/dev/null | head -1)
    check "fly $m: run folder" test -n "$run"
    [ -n "$run" ] || continue
    check "fly $m: reports" test -s "$run/fly.json" -a -s "$run/fly.md" -a -s "$run/fly.svg"
    check "fly $m: summary printed" grep -q "holes: 0 pixels in 0 frames" "$tmp/out"
    check "fly $m: every frame recorded" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
assert r['kind'] == 'fly' and r['method'] == '$m' and r['frames'] == 21 and r['settled'], r
f = r['per_frame']
for k in ('t_s', 'cpu_ms', 'frame_ms', 'triangles', 'resident', 'uploads', 'hole_px', 'eye_x_m'):
    assert len(f[k]) == 21, k
assert all(t > 0 for t in f['triangles']) and all(t > 0 for t in f['resident'])
assert f['hole_px'] == [0] * 21
assert abs(f['t_s'][20] - 1.0) < 1e-9
assert r['summary']['frame_ms']['median'] > 0
" "$run/fly.json"
    check "fly $m: plots" sh -c "grep -c '<polyline' '$run/fly.svg' | grep -qv '^0$' && grep -q 'tile uploads per frame' '$run/fly.svg'"
done

# slow loads: the frame loop never waits for them, and nothing is missing (ancestors stand in)
"$strata" fly --world "$world" --path "$tmp/short.flight" --size 64x40 --slow-load 30 --out "$tmp/slow" --no-progress \
    >"$tmp/out" 2>"$tmp/err"
check "fly --slow-load: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "fly --slow-load: no holes" grep -q "holes: 0 pixels in 0 frames" "$tmp/out"
check "fly --slow-load: recorded" sh -c "grep -q '\"slow_load_ms\":[[:space:]]*30' $tmp/slow/*/latest/fly.json"

# ---- bad input -------------------------------------------------------------------------------------------------
expect_error "no --world" fly --path "$example"
expect_error "no --path" fly --world "$world"
expect_error "a value missing" fly --world "$world" --path
check "a value missing: says so" grep -q "needs a value" "$tmp/stderr"
expect_error "unknown option" fly --world "$world" --path "$example" --bogus
expect_error "a level as the world" fly --world default --path "$example"
expect_error "a method of levels" fly --world "$world" --path "$example" --method ray
expect_error "bad --slow-load" fly --world "$world" --path "$example" --slow-load -5
expect_error "bad --tau" fly --world "$world" --path "$example" --tau 0
expect_error "a flight that is not there" fly --world "$world" --path "$tmp/none.flight"
printf 'fly 1\nwarp 9\n' >"$tmp/bad.flight"
expect_error "a bad statement" fly --world "$world" --path "$tmp/bad.flight"
check "a bad statement: names the line" grep -q "line 2" "$tmp/stderr"
printf 'speed nan\nfly 1\n' >"$tmp/nan.flight"
expect_error "a non-finite speed" fly --world "$world" --path "$tmp/nan.flight"
printf 'fly 4000\n' >"$tmp/long.flight"
expect_error "a flight past an hour" fly --world "$world" --path "$tmp/long.flight"
head -c 4096 /dev/urandom >"$tmp/noise.flight"
expect_error "noise" fly --world "$world" --path "$tmp/noise.flight"
mkfifo "$tmp/pipe.flight"
timeout 20 "$strata" fly --world "$world" --path "$tmp/pipe.flight" >"$tmp/stdout" 2>"$tmp/stderr"
status=$?
check "a named pipe is refused at once (status $status)" test "$status" -eq 2
expect_error "a folder as the flight" fly --world "$world" --path "$tmp"
touch "$tmp/file"
expect_error "output under a file" fly --world "$world" --path "$tmp/short.flight" --size 64x40 --out "$tmp/file/x"
check "no run left behind" test ! -e "$tmp/file/x"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
