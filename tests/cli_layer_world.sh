#!/usr/bin/env bash
# A layer store as the world of the level commands: `strata tile` from the default world, a Vangers world and the
# procedural multi-layer world, then `--world STORE` renders exactly what the world in memory renders (colour and
# depth, byte for byte), with its wrap, flood levels and water; a copy of a layer store is a layer store.
source "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$1"
ps="$STRATA_SOURCE/data/dem/ps_height_1k.png"
[ -f "$ps" ] || { echo "FAIL: $ps is missing (it ships in data/dem/)"; exit 1; }

# same_render WHAT WORLD_A WORLD_B ARGS...: both worlds rendered alike, image and depth equal byte for byte
same_render() {
    local what="$1" a="$2" b="$3"; shift 3
    rm -f "$tmp"/ra.png "$tmp"/rb.png "$tmp"/ra.pfm "$tmp"/rb.pfm
    "$strata" render --world "$a" "$@" -o "$tmp/ra.png" --depth "$tmp/ra.pfm" >/dev/null 2>"$tmp/err" ||
        { echo "FAIL: $what: render of $a: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); return; }
    "$strata" render --world "$b" "$@" -o "$tmp/rb.png" --depth "$tmp/rb.pfm" >/dev/null 2>"$tmp/err" ||
        { echo "FAIL: $what: render of $b: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); return; }
    check "$what: image" cmp -s "$tmp/ra.png" "$tmp/rb.png"
    check "$what: depth" cmp -s "$tmp/ra.pfm" "$tmp/rb.pfm"
}

# ---- the default world ----------------------------------------------------------------------------------------
"$strata" tile default -o "$tmp/def" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: tile default: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "default: the store keeps the wrap" grep -q '"wrap_y":	true' "$tmp/def/store.json"
same_render "default, ray-compute" default "$tmp/def" --method ray-compute --size 96x60
cp "$tmp/rb.png" "$tmp/def.png"
cp "$tmp/rb.pfm" "$tmp/def.pfm"
same_render "default, scatter, another view" default "$tmp/def" --method scatter --size 64x40 --view bridge
# paged: the pages around the view only (a pool of 64 of the world's 512), no level in memory: the same depth;
# the same bytes in flat shading (textured shading of a paged world has no control map: materials by type)
"$strata" render --world "$tmp/def" --paged --pool-pages 64 --method ray-compute --size 96x60 -o "$tmp/pg.png" \
    --depth "$tmp/pg.pfm" >"$tmp/pg.txt" 2>"$tmp/err" || { echo "FAIL: paged: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "paged: no page missing" grep -q 'paged: 0 of' "$tmp/pg.txt"
check "paged: depth" cmp -s "$tmp/pg.pfm" "$tmp/def.pfm"
same_render "paged, flat" default "$tmp/def" --method ray-compute --size 96x60 --shading flat
"$strata" render --world "$tmp/def" --paged --pool-pages 64 --method ray-compute --size 96x60 --shading flat \
    -o "$tmp/pgf.png" >/dev/null 2>"$tmp/err" || { echo "FAIL: paged flat: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "paged: image (flat)" cmp -s "$tmp/pgf.png" "$tmp/ra.png"
"$strata" render --world gen:multi:3:65536x65536 --paged --method scatter --size 32x20 --shading flat \
    -o "$tmp/big.png" >"$tmp/big.txt" 2>"$tmp/err" || { echo "FAIL: 65536² paged: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "65536² paged: every wanted page resident" grep -q 'paged: 0 of' "$tmp/big.txt"
# compare --paged: the paged world scored against the reference cast on each view's window of it, far field included
"$strata" compare --world gen:multi:5:512x512 --paged --far 900 --methods ray-compute --size 32x20 --frames 1 \
    --warmup 1 --views 'a:100,100:30:-5:40' -o "$tmp/cmp" >"$tmp/cmp.txt" 2>"$tmp/err" ||
    { echo "FAIL: compare --paged: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); }
check "compare --paged: a result" sh -c "ls '$tmp'/cmp/*/latest/results.json"
check "compare --paged: the settings say paged" grep -q 'paged' "$tmp/cmp.txt" "$tmp"/cmp/*/latest/results.json
# --paged-level: the level in memory too, so voxel-compute draws the pages
"$strata" compare --world gen:multi:5:512x512 --paged --paged-level --methods voxel-compute --size 32x20 --frames 1 \
    --warmup 1 --views h:200,200:30:-5:40 -o "$tmp/cmpl" >"$tmp/cmpl.txt" 2>"$tmp/err" ||
    { echo "FAIL: compare --paged --paged-level: $(head -c 300 "$tmp/err")"; fails=$((fails + 1)); }
check "compare --paged-level: voxel-compute scored" grep -q 'voxel-compute' "$tmp/cmpl.txt"
check "compare --paged-level: the settings say so" grep -q 'paged_level=1' "$tmp"/cmpl/*/latest/results.json
expect_error "compare: --paged-level without --paged" compare --world gen:multi:5:512x512 --paged-level -o "$tmp/cmp3"
expect_error "compare: --paged with edits" compare --world gen:multi:5:512x512 --paged --edits -o "$tmp/cmp2"
expect_error "render: a method that needs the whole level on a paged world" render --world gen:multi:3:65536x65536 \
    --paged --method mesh --size 8x8 -o "$tmp/x.png"
# voxel-compute on the 65,536² world: its pyramid per page (one of the whole world would take 2 GiB)
"$strata" render --world gen:multi:3:65536x65536 --paged --method voxel-compute --size 32x20 --shading flat \
    -o "$tmp/bigv.png" >"$tmp/bigv.txt" 2>"$tmp/err" ||
    { echo "FAIL: 65536² paged voxel-compute: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "65536² paged voxel-compute: every wanted page resident" grep -q 'paged: 0 of' "$tmp/bigv.txt"
check "default: info of the store" sh -c "'$strata' info '$tmp/def' | grep -q 'layers'"

# ---- a Vangers world (from the real DEM: water at its flood level) ------------------------------------------
"$strata" convert "$ps" "$tmp/vw" --units 0.1 --spacing 160 >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: convert: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$strata" tile "$tmp/vw" -o "$tmp/vws" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: tile of a Vangers world: $(cat "$tmp/err")"; fails=$((fails + 1)); }
same_render "Vangers world, voxel-compute" "$tmp/vw" "$tmp/vws" --method voxel-compute --size 64x40 \
    --camera 500,300,60,30,-20

# ---- the procedural multi-layer world, and a copy of its store -------------------------------------------------
"$strata" tile gen:multi:5:512x512 -o "$tmp/gm" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: tile gen:multi: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$strata" tile "$tmp/gm" -o "$tmp/gm2" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: copy of a layer store: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "copy: the same tiles" cmp -s "$tmp/gm/index/0.idx" "$tmp/gm2/index/0.idx"
same_render "gen:multi, ray" gen:multi:5:512x512 "$tmp/gm2" --method ray --size 64x40 --camera 200,100,90,45,-25

# ---- bad input -----------------------------------------------------------------------------------------------
cp -r "$tmp/gm" "$tmp/bad"
printf '{"format":"strata-tile-store","version":1,"kind":"layers"}' >"$tmp/bad/store.json"
expect_error "render: a damaged layer store" render --world "$tmp/bad" --size 8x8 -o "$tmp/x.png"
check "no image left by the failure" test ! -e "$tmp/x.png"
expect_error "render: --paged of a world that is no layer store" render --paged --size 8x8 -o "$tmp/x.png"
expect_error "render: --pool-pages without --paged" render --world "$tmp/gm" --pool-pages 9 --size 8x8 -o "$tmp/x.png"
expect_error "render: a pool past the adapter's layers" render --world "$tmp/gm" --paged --pool-pages 65536 --size 8x8 -o "$tmp/x.png"
expect_error "render: a store method on a layer store" render --world "$tmp/gm" --method cdlod --size 8x8 -o "$tmp/x.png"

echo "cli_layer_world: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
