#!/usr/bin/env bash
# A DEM tile store as the world of render, compare, view and bench lod from the command line: the shipped Puget
# Sound DEM as a store and a generated world drawn by cdlod and cdlod-compute at full detail; the comparison's
# reports with the image-space error per τ; the headless viewer; the selection benchmark; and bad input (the
# wrong method for the world, bad τ, grid, camera, view), each one line on stderr and exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$1"
ps="$STRATA_SOURCE/data/dem/ps_height_1k.png"
[ -f "$ps" ] || { echo "FAIL: $ps is missing (it ships in data/dem/)"; exit 1; }

"$strata" tile "$ps" --units 0.1 --spacing 160 -o "$tmp/ps" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: tile ps: $(cat "$tmp/err")"; fails=$((fails + 1)); }

# ---- render ---------------------------------------------------------------------------------------------------
for m in cdlod cdlod-compute; do
    "$strata" render --world "$tmp/ps" --method "$m" --size 96x60 --view pitch30-1 -o "$tmp/$m.png" \
        --depth "$tmp/$m.pfm" >"$tmp/out" 2>"$tmp/err"
    check "render $m: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
    check "render $m: full detail" grep -q "full detail after" "$tmp/out"
    check "render $m: lod figures" grep -q "M triangles" "$tmp/out"
    check "render $m: PNG" test -s "$tmp/$m.png"
    check "render $m: depth" test -s "$tmp/$m.pfm"
done
"$strata" render --world gen:5:1025x1025 --size 64x40 --tau 4 --skirts --wireframe --camera 5000,5000,3000,30,-40 \
    -o "$tmp/gen.png" >"$tmp/out" 2>"$tmp/err"
check "render generated world with a camera: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
check "render: skirts drawn" sh -c "grep -q 'skirts on' '$tmp/out' && ! grep -q '(skirts 0.000 M)' '$tmp/out'"

# ---- the wrong pair and bad values ---------------------------------------------------------------------------
expect_error "ray on a store" render --world "$tmp/ps" --method ray -o "$tmp/x.png"
check "ray on a store: says why" grep -q "draws levels" "$tmp/stderr"
expect_error "cdlod on a level" render --world default --method cdlod -o "$tmp/x.png"
check "cdlod on a level: says why" grep -q "draws tile stores" "$tmp/stderr"
expect_error "bad tau" render --world "$tmp/ps" --tau -1 -o "$tmp/x.png"
expect_error "tau not a number" render --world "$tmp/ps" --tau abc -o "$tmp/x.png"
expect_error "grid not a power of two" render --world "$tmp/ps" --lod-grid 12 -o "$tmp/x.png"
expect_error "unknown LOD error" render --world "$tmp/ps" --lod-error worst -o "$tmp/x.png"
check "unknown LOD error: names the choices" grep -q "measured or bound" "$tmp/stderr"
expect_error "bench lod: unknown LOD error" bench lod --world "$tmp/ps" --lod-error x
expect_error "bench lod: --lod-error with --table" bench lod --world "$tmp/ps" --table -o "$tmp/t.md" --lod-error bound
expect_error "clipmap grid not 4m - 1" render --world "$tmp/ps" --method clipmap --clip-n 100 -o "$tmp/x.png"
expect_error "clipmap grid too large" render --world "$tmp/ps" --method clipmap --clip-n 2047 -o "$tmp/x.png"
expect_error "bad camera" render --world "$tmp/ps" --camera 1,2,nan,0,0 -o "$tmp/x.png"
expect_error "unknown view" render --world "$tmp/ps" --view nowhere -o "$tmp/x.png"
expect_error "view outside the store" render --world "$tmp/ps" --view "a:-5,10:0:0" -o "$tmp/x.png"
expect_error "unknown option" render --world "$tmp/ps" --bogus -o "$tmp/x.png"
expect_error "compare: ray on a store" compare --world "$tmp/ps" --methods ray
expect_error "compare: bad tau list" compare --world "$tmp/ps" --tau 1,,x
expect_error "compare: too many taus" compare --world "$tmp/ps" --tau 1,2,3,4,5,6,7,8,9
expect_error "a store that is not there" render --world gen:x:10x10 -o "$tmp/x.png"
expect_error "render: a value missing" render --world "$tmp/ps" -o "$tmp/x.png" --tau
check "render: a value missing: says so" grep -q "needs a value" "$tmp/stderr"
expect_error "compare: a value missing" compare --world "$tmp/ps" --tau
check "compare: a value missing: says so" grep -q "needs a value" "$tmp/stderr"
expect_error "bench lod: a value missing" bench lod --world "$tmp/ps" --repeat
expect_error "render: not a .png" render --world "$tmp/ps" -o "$tmp/x.jpg"
expect_error "render: output folder missing" render --world "$tmp/ps" --out "$tmp/nowhere/x.png"
check "render: nothing left of a failed run" test ! -e "$tmp/x.png"
expect_error "render: camera past the precise range" render --world "$tmp/ps" --camera 2e8,0,0,0,0 -o "$tmp/x.png"
expect_error "view: screenshot folder missing" view --world "$tmp/ps" --headless --frames 1 --screenshot "$tmp/nowhere/v.png"

# ---- compare ---------------------------------------------------------------------------------------------------
"$strata" compare --world "$tmp/ps" --quick --size 64x40 --frames 1 --warmup 1 --tau 1,4 --views horizon-1,top-2 \
    --out "$tmp/cmp" --no-progress >"$tmp/out" 2>"$tmp/err"
check "compare: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
run=$(ls -d "$tmp"/cmp/*/latest 2>/dev/null | head -1)
check "compare: a run folder" test -n "$run"
check "compare: results.json rows" python3 -c "
import json,sys,math
r=json.load(open(sys.argv[1]))
rows=r['rows']
assert len(rows)==4*2*2, len(rows)  # cdlod, cdlod-compute, clipmap, clipmap-compute
for x in rows:
    assert x['tau_px'] in (1,4)
    assert x['image_error_p95_px'] is not None and x['image_error_p95_px']>=0
    assert x['triangles']>0 and x['settled']
assert len(r['summary'])==8
for s in r['summary']:  # one view per pitch here: each pitch's see-through is its view's
    pp=s['see_through_per_pitch']
    assert [p['pitch_deg'] for p in pp]==[0,-90], pp
    mine=[x for x in rows if x['method']==s['method'] and x['tau_px']==s['tau_px']]
    assert sorted(p['see_through_pct'] for p in pp)==sorted(x['see_through_pct'] for x in mine), (pp, mine)
" "$run/results.json"
check "compare: see-through per pitch in results.md" grep -q "^| method | τ px | 0° | -90° |" "$run/results.md"
check "compare: see-through per pitch printed" grep -q "^see-through per pitch" "$tmp/out"
check "compare: results.md" grep -q "image error p95" "$run/results.md"
check "compare: frames and references" sh -c "ls '$run' | grep -q 'reference-horizon-1.png' && ls '$run' | grep -q 'cdlod-compute-tau1-top-2.png'"
check "compare: summary line per method and tau" test "$(grep -cE '^(cdlod|clipmap)(-compute)? +[14] ' "$tmp/out")" -eq 8

# ---- the main job with a DEM store -------------------------------------------------------------------------------
"$strata" run --size 64x40 --methods ray,cdlod,clipmap --dem "$tmp/ps" --out "$tmp/run" >"$tmp/out" 2>"$tmp/err"
check "run --dem: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
check "run --dem: a store image per default view" test "$(ls "$tmp/run" | grep -c '^dem-.*-cdlod\.png$')" -eq 12
check "run --dem: a clipmap image per default view" test "$(ls "$tmp/run" | grep -c '^dem-.*-clipmap\.png$')" -eq 12
check "run --dem: the store's contact sheet and the level's" test -s "$tmp/run/dem-contact-sheet.png" -a -s "$tmp/run/contact-sheet.png"
check "run --dem: the table row" grep -qE '^cdlod \(DEM\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$tmp/out"
check "run --dem: the clipmap's row" grep -qE '^clipmap \(DEM\) +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+$' "$tmp/out"
check "run --dem: the level row" grep -qE '^ray +[0-9.]+' "$tmp/out"
expect_error "run: a store method without --dem" run --methods cdlod --out "$tmp/run2"
expect_error "run: --dem that is no store" run --dem default --out "$tmp/run2"
expect_error "run: --dem without a store method" run --dem "$tmp/ps" --methods ray --out "$tmp/run2"
check "run: bad input made no folder" test ! -e "$tmp/run2"

# ---- view, bench -------------------------------------------------------------------------------------------------
"$strata" view --world "$tmp/ps" --headless --frames 3 --size 64x40 --screenshot "$tmp/view.png" >"$tmp/out" 2>"$tmp/err"
check "view headless: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
check "view headless: screenshot" test -s "$tmp/view.png"
"$strata" view --world "$tmp/ps" --headless --frames 3 --size 64x40 --keys ']]fk' >"$tmp/out" 2>"$tmp/err"
check "view headless with keys: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
check "view headless with keys: switched" grep -q "tau 4 px, LOD frozen, wireframe off, skirts on, shadows on" "$tmp/out"
env -u DISPLAY -u WAYLAND_DISPLAY "$strata" view --world "$tmp/ps" --frames 1 >"$tmp/out" 2>"$tmp/err"
status=$?
check "view without a display: status 1, one line naming --headless ($(head -c 200 "$tmp/err"))" \
    test $status -eq 1 -a "$(wc -l <"$tmp/err")" -eq 1 -a -n "$(grep -- --headless "$tmp/err")"
expect_error "view: a key that is none" view --world "$tmp/ps" --headless --frames 1 --keys ']q'
"$strata" bench lod --world "$tmp/ps" --repeat 3 --size 320x200 --lod-select cpu >"$tmp/out" 2>"$tmp/err"
check "bench lod: exit 0 ($(head -c 200 "$tmp/err"))" test $? -eq 0
check "bench lod: verdict" grep -q "^target: median CDLOD selection (worst view or flight) ≤ 0.05 ms: " "$tmp/out"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
