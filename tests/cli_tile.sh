#!/usr/bin/env bash
# strata tile and strata info STORE from the command line: a store from the shipped Puget Sound DEM (u16 exact on
# its 0.1 m grid), amplified, from the procedural DEM, from the default world, from the procedural multi-layer world
# (gen:multi:..., also as a world for other commands); an interrupted build (killed by its own PID) that leaves no
# half tile and resumes; shards; bad input and damaged stores, each one line and exit 2.
source "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$1"
ps="$STRATA_SOURCE/data/dem/ps_height_1k.png"
[ -f "$ps" ] || { echo "FAIL: $ps is missing (it ships in data/dem/)"; exit 1; }

json_field() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])" "$1" "$2"; }

# ---- a store of the real DEM ------------------------------------------------------------------------------
"$strata" tile "$ps" --units 0.1 --spacing 160 -o "$tmp/ps" --json >"$tmp/ps.json" 2>"$tmp/err" ||
    { echo "FAIL: tile ps: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "ps: complete" test "$(json_field "$tmp/ps.json" complete)" = True
check "ps: 21 tiles" test "$(json_field "$tmp/ps.json" tiles)" = 21
"$strata" info "$tmp/ps" --json >"$tmp/info.json" 2>"$tmp/err"
check "info: u16" test "$(json_field "$tmp/info.json" encoding)" = u16
check "info: scale 0.1" test "$(json_field "$tmp/info.json" scale)" = 0.1
check "info: Mt Rainier 4379.8 m" python3 -c "import json,sys; m=json.load(open(sys.argv[1])); sys.exit(abs(m['max_m']-4379.8)>1e-3 or m['min_m']!=0)" "$tmp/info.json"
check "info: text" sh -c "'$strata' info '$tmp/ps' | grep -q '1025 x 1025 samples, 160 x 160 m'"
"$strata" info "$tmp/ps" --preview "$tmp/ps.png" >/dev/null 2>&1
check "info: preview written" test -s "$tmp/ps.png"

# ---- amplified, generated, a multi-layer world --------------------------------------------------------------
"$strata" tile "$ps" --units 0.1 --spacing 160 --amplify 2 -o "$tmp/amp" --no-progress >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: amplify: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$strata" info "$tmp/amp" --json >"$tmp/amp.json"
check "amplify: 2049 samples" test "$(json_field "$tmp/amp.json" width)" = 2049
"$strata" tile gen:3:700x500:20 -o "$tmp/gen" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: gen: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$strata" info "$tmp/gen" --json >"$tmp/gen.json"
check "gen: f32" test "$(json_field "$tmp/gen.json" encoding)" = f32
check "gen: info of the generated world itself" sh -c "'$strata' info gen:1:65536x65536 | grep -q 'no disk'"
"$strata" tile default -o "$tmp/layers" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: default world: $(cat "$tmp/err")"; fails=$((fails + 1)); }
"$strata" info "$tmp/layers" --json >"$tmp/layers.json"
check "layers: kind" test "$(json_field "$tmp/layers.json" kind)" = layers
check "layers: 8x64 tiles" test "$(json_field "$tmp/layers.json" tiles)" = 512

# ---- the procedural multi-layer world at any size ---------------------------------------------------------------
check "gen:multi: a 65536² world needs no disk" \
    sh -c "'$strata' info gen:multi:7:65536x65536 | grep -q 'generated on demand: no disk'"
"$strata" info gen:multi:7:65536x65536 --json >"$tmp/gm.json" 2>"$tmp/err"
check "gen:multi: info kind" test "$(json_field "$tmp/gm.json" kind)" = layers
check "gen:multi: info 65536 tiles" test "$(json_field "$tmp/gm.json" tiles)" = 65536
check "gen:multi: info 0 bytes" test "$(json_field "$tmp/gm.json" bytes)" = 0
"$strata" tile gen:multi:7:512x256:none -o "$tmp/gm" --json >"$tmp/gmt.json" 2>"$tmp/err" ||
    { echo "FAIL: tile gen:multi: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "gen:multi: 2 tiles written" test "$(json_field "$tmp/gmt.json" tiles_written)" = 2
"$strata" tile gen:multi:7:512x256:none -o "$tmp/gm" --json >"$tmp/gmt.json" 2>"$tmp/err"
check "gen:multi: a re-run keeps them" test "$(json_field "$tmp/gmt.json" tiles_kept)" = 2
check "gen:multi: the store on disk" sh -c "'$strata' info '$tmp/gm' | grep -q 'no dual'"
"$strata" mesh gen:multi:3:256x256 -o "$tmp/gm.obj" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: mesh of gen:multi: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "gen:multi: a world for other commands" test -s "$tmp/gm.obj"
"$strata" render --world gen:multi:3:256x256 --size 32x24 -o "$tmp/gm.png" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL: render of gen:multi: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "gen:multi: drawn as a level" test -s "$tmp/gm.png"

# ---- an interrupted build resumes; no tile is ever half-written ---------------------------------------------
"$strata" tile gen:9:4097x4097 -o "$tmp/big" --no-progress >/dev/null 2>&1 &
pid=$!
sleep 1.5
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
check "killed: no manifest" test ! -e "$tmp/big/store.json"
"$strata" tile gen:9:4097x4097 -o "$tmp/big" --json >"$tmp/big.json" 2>"$tmp/err" ||
    { echo "FAIL: resume: $(cat "$tmp/err")"; fails=$((fails + 1)); }
check "resumed: complete" test "$(json_field "$tmp/big.json" complete)" = True
check "resumed: no temporary left" test -z "$(find "$tmp/big" -name '*.tmp*')"
"$strata" tile gen:9:4097x4097 -o "$tmp/big2" --no-progress >/dev/null 2>&1
check "resumed store equals an uninterrupted one" cmp -s "$tmp/big/index/0.idx" "$tmp/big2/index/0.idx"

# ---- shards ----------------------------------------------------------------------------------------------------
for i in 1 0; do "$strata" tile "$ps" --units 0.1 --spacing 160 --shard $i/2 -o "$tmp/sh" --no-progress >/dev/null 2>&1; done
check "shards: complete after both" test -e "$tmp/sh/store.json"
check "shards: same index as one run" cmp -s "$tmp/sh/index/0.idx" "$tmp/ps/index/0.idx"

# ---- bad input ---------------------------------------------------------------------------------------------------
expect_error "tile: no input" tile -o "$tmp/x"
expect_error "tile: no output" tile "$ps"
expect_error "tile: missing file" tile "$tmp/nope.png" -o "$tmp/x"
expect_error "tile: bad tile size" tile "$ps" --units 0.1 --spacing 160 --tile-size 100 -o "$tmp/x"
expect_error "tile: bad amplify" tile "$ps" --amplify 3 -o "$tmp/x"
expect_error "tile: bad shard" tile "$ps" --shard 2/2 -o "$tmp/x"
expect_error "tile: bad encoding" tile "$ps" --encoding u8 -o "$tmp/x"
expect_error "tile: absurd units" tile "$ps" --units nan -o "$tmp/x"
expect_error "tile: no spacing" tile "$ps" --units 0.1 -o "$tmp/x"
expect_error "tile: bad generator" tile gen:1:0x5 -o "$tmp/x"
expect_error "tile: huge generator" tile gen:1:1000000000x5 -o "$tmp/x"
printf 'II*\000garbage' >"$tmp/bad.tif"
expect_error "tile: a file no reader takes" tile "$tmp/bad.tif" -o "$tmp/x"
mkfifo "$tmp/pipe.png"
expect_error "tile: a named pipe" tile "$tmp/pipe.png" -o "$tmp/x"
expect_error "tile: layer world with DEM options" tile default --amplify 2 -o "$tmp/x"
expect_error "info: region without a store" info default --preview "$tmp/p.png"
expect_error "gen:multi: seed 0" info gen:multi:0:256x256
expect_error "gen:multi: size 0" info gen:multi:1:0x0
expect_error "gen:multi: not a power of two" tile gen:multi:1:300x256 -o "$tmp/x"
expect_error "gen:multi: absurd size" info gen:multi:1:4294967296x4294967296
expect_error "gen:multi: junk" info gen:multi:junk
expect_error "gen:multi: trailing junk" info gen:multi:1:256x256:5:x
expect_error "gen:multi: dual share" info gen:multi:1:256x256:31
expect_error "gen:multi: DEM options" tile gen:multi:1:256x256 --amplify 2 -o "$tmp/x"
expect_error "gen:multi: tile size" tile gen:multi:1:256x256 --tile-size 128 -o "$tmp/x"
expect_error "gen:multi: too big for a level" mesh gen:multi:1:65536x65536 -o "$tmp/x.obj"
expect_error "gen:multi: bad spelling as a world" mesh gen:multi:1:256x256x -o "$tmp/x.obj"
expect_error "info: bad region" info "$tmp/ps" --preview "$tmp/p.png" --region 0,0,0,5

# damaged stores: each read fails with one line
cp -r "$tmp/ps" "$tmp/d1"
printf '{"format":"strata-tile-store","version":9}' >"$tmp/d1/store.json"
expect_error "info: wrong version" info "$tmp/d1"
cp -r "$tmp/ps" "$tmp/d2"
head -c 40 "$tmp/ps/index/0.idx" >"$tmp/d2/index/0.idx"
expect_error "info: truncated index" info "$tmp/d2"
cp -r "$tmp/ps" "$tmp/d3"
f="$tmp/d3/tiles/0/1/1.tile"
python3 -c "import sys; b=bytearray(open(sys.argv[1],'rb').read()); b[500]^=0x55; open(sys.argv[1],'wb').write(bytes(b))" "$f"
expect_error "info --preview: damaged tile" info "$tmp/d3" --preview "$tmp/p.png" --level 0
cp -r "$tmp/ps" "$tmp/d4"
head -c 1000 "$tmp/ps/tiles/0/2/2.tile" >"$tmp/d4/tiles/0/2/2.tile"
expect_error "info --preview: truncated tile" info "$tmp/d4" --preview "$tmp/p.png" --level 0
check "no preview left by the failures" test ! -e "$tmp/p.png"

echo "cli_tile: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
