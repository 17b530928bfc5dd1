#!/usr/bin/env bash
# strata fly on lavapipe at a tiny size: a one-second flight over a generated store with each store method, its
# run folder (fly.json with every frame's figures, fly.md, fly.svg), the slow-load mode, and bad input (missing
# options, a bad or hostile flight file, a level as the world, a method of levels), each one line on stderr and
# exit 2; and a layer store flown as a paged world with a dig every frame, its lost edits counted (none).
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
# the local figures: each frame over the median of the frames within 60 of it (all 21 here), ordered, none below
# the smallest frame over the median
for k in ('cpu_ms', 'frame_ms'):
    l, col = r['summary'][k]['local'], [x for x in f[k] if x is not None]
    srt = sorted(col)
    med = srt[len(srt) // 2]
    assert l['window_half'] == 60 and l['p99'] <= l['p99_9'] <= l['max'], (k, l)
    assert abs(l['max'] - max(col) / med) < 1e-9 * l['max'], (k, l, max(col) / med)
" "$run/fly.json"
    check "fly $m: local figures printed and in fly.md" sh -c "grep -q 'local p99 .*x  p99.9 .*x  max .*x' '$tmp/out' && grep -q 'local p99 / p99.9 / max' '$run/fly.md'"
    check "fly $m: plots" sh -c "grep -c '<polyline' '$run/fly.svg' | grep -qv '^0$' && grep -q 'tile uploads per frame' '$run/fly.svg'"
done

# slow loads: the frame loop never waits for them, and nothing is missing (ancestors stand in)
"$strata" fly --world "$world" --path "$tmp/short.flight" --size 64x40 --slow-load 30 --out "$tmp/slow" --no-progress \
    >"$tmp/out" 2>"$tmp/err"
check "fly --slow-load: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "fly --slow-load: no holes" grep -q "holes: 0 pixels in 0 frames" "$tmp/out"
check "fly --slow-load: recorded" sh -c "grep -q '\"slow_load_ms\":[[:space:]]*30' $tmp/slow/*/latest/fly.json"

# a layer store flown as a paged world, with a dig every frame kept in an overlay: out over pages that the pool of
# 16 then gives away, and back over them; every dug page mapped again is read back and equals the generated page
# with every dig replayed, and the overlay holds the written pages
printf 'start 0.2 0.3\nheading 90\nfps 5\nspeed 300\nheight 40\npitch -12\nfly 10\nturn 180 1\nfly 10\n' >"$tmp/soak.flight"
"$strata" fly --world gen:multi:1:4096x4096 --overlay "$tmp/overlay" --path "$tmp/soak.flight" --size 40x24 \
    --no-shadows --far 100 --pool-pages 16 --dig-every 1 --write-back-every 10 --out "$tmp/paged" --no-progress \
    >"$tmp/out" 2>"$tmp/err"
check "fly a paged world: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "fly a paged world: lost edits printed" grep -q "lost edits 0" "$tmp/out"
check "fly a paged world: digs, write-backs and reload checks" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
p = r['paged']
assert r['method'] == 'ray-compute' and r['frames'] == 106, r['frames']
assert p['digs'] == 106 and p['dug_pages'] > 10 and p['write_backs'] == 10 and p['pages_written'] > 10, p
assert p['edits_checked'] and p['reloads_checked'] > 0 and p['lost_edits'] == 0, p
assert len(r['per_frame']['edit_ms']) == 106 and len(r['per_frame']['hole_pages']) == 106
# every pass by name, per frame and over the flight: where a hitch happened
passes = r['per_frame']['pass_gpu_ms']
assert 'march' in passes and 'shadow' not in passes, list(passes)  # (--no-shadows)
assert all(len(v) == 106 for v in passes.values()) and set(passes) == set(r['summary']['passes_gpu_ms']), list(passes)
" $tmp/paged/*/latest/fly.json
check "fly a paged world: the overlay holds the written pages" sh -c "ls $tmp/overlay/tiles/0/*/*.tile | grep -q tile"
# the same with slow loads and a bound of one page mapped a frame: no frame maps more, and still no page is
# drawn as a hole (a coarser level stands in) and no edit is lost. At 60 m/s the flight is drawn about 40 times
# faster than real time here; when the lookahead was 30 frames of motion (0.1 s of this run's ~1.2 ms frames
# against 50 ms loads) it outran its loads in about one run in four; sized from the pages' time to ready, it holds
printf 'start 0.2 0.3\nheading 90\nfps 20\nspeed 60\nheight 40\npitch -12\nfly 10\nturn 180 1\nfly 10\n' >"$tmp/slow.flight"
"$strata" fly --world gen:multi:1:4096x4096 --overlay "$tmp/overlay-bound" --path "$tmp/slow.flight" --size 40x24 \
    --no-shadows --far 100 --pool-pages 16 --dig-every 1 --write-back-every 10 --slow-load 50 --upload-pages 1 \
    --out "$tmp/bound" --no-progress >"$tmp/out" 2>"$tmp/err"
check "fly --upload-pages 1: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "fly --upload-pages 1: at most one page a frame, no holes, no lost edits" python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))
p, u = r['paged'], r['per_frame']['uploads']
assert p['upload_pages'] == 1 and max(u) <= 1 and p['uploads_max'] == max(u) and sum(u) > 0, (p, u)
assert p['hole_pages_total'] == 0 and p['frames_with_holes'] == 0, p
assert p['edits_checked'] and p['lost_edits'] == 0, p  # (reloads: the soak above, at fly's default bound of 2)
" $tmp/bound/*/latest/fly.json
expect_error "digs on a generated world without an overlay" fly --world gen:multi:1:4096x4096 --path "$tmp/soak.flight" \
    --size 40x24 --dig-every 1
expect_error "--overlay on a DEM store" fly --world "$world" --path "$tmp/short.flight" --overlay "$tmp/ov2"
expect_error "--dig-every on a DEM store" fly --world "$world" --path "$tmp/short.flight" --dig-every 1
expect_error "a DEM method on a layer store" fly --world gen:multi:1:4096x4096 --path "$tmp/soak.flight" --method cdlod
expect_error "an overlay of another world" fly --world gen:multi:2:4096x4096 --overlay "$tmp/overlay" \
    --path "$tmp/soak.flight" --size 40x24

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
