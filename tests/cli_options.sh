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
        --no-shadows --cache none -o "$tmp/cmp" >"$tmp/cmp.out" 2>"$tmp/cmp.err"; then
    json=$(find "$tmp/cmp" -name results.json | head -1)
    if [ -n "$json" ] && grep -q '"up"' "$json" && grep -q '"down"' "$json" && grep -q "1 methods x 2 views" "$tmp/cmp.out"
    then pass; else fail "compare --views specs: $(cat "$tmp/cmp.out")"; fi
else fail "compare --views '$specs': $(cat "$tmp/cmp.err")"; fi
if "$strata" tune --world "$tmp/w" --methods ray --views "$specs" --size 16x10 --frames 1 --warmup 1 --no-shadows \
        --cache none -o "$tmp/tune" >"$tmp/tune.out" 2>"$tmp/tune.err"; then
    grep -q "1 methods on 2 views" "$tmp/tune.out" && pass || fail "tune --views specs: $(cat "$tmp/tune.out")"
else fail "tune --views '$specs': $(cat "$tmp/tune.err")"; fi
"$strata" compare --world "$tmp/w" --methods ray --views "up:100" --cache none --out "$tmp/cmp" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "view 'up:100'" "$tmp/err" && pass || fail "a broken spec: $(cat "$tmp/err")"

# --world in every command that reads one (info, mesh and bench decode keep their positional form too)
"$strata" info --world "$tmp/w" >"$tmp/i1" 2>&1 && "$strata" info "$tmp/w" >"$tmp/i2" 2>&1 && cmp -s "$tmp/i1" "$tmp/i2" &&
    pass || fail "info --world: $(head -3 "$tmp/i1")"
"$strata" mesh --world "$tmp/w" >"$tmp/m1" 2>&1 && grep -q "^world w: 256x256" "$tmp/m1" && pass ||
    fail "mesh --world: $(head -3 "$tmp/m1")"
"$strata" bench decode --world "$tmp/w" --repeat 1 >"$tmp/b1" 2>&1 && grep -q "^decode 256x256" "$tmp/b1" && pass ||
    fail "bench decode --world: $(head -3 "$tmp/b1")"

# one output option: -o/--out FILE for one file, -o/--out DIR for several
"$strata" mesh "$tmp/w" -o "$tmp/m.obj" >/dev/null 2>&1 && [ -s "$tmp/m.obj" ] && pass || fail "mesh -o FILE.obj"
"$strata" convert "$tmp/w" -o "$tmp/pngs" >/dev/null 2>&1 && [ -s "$tmp/pngs/height.png" ] && pass ||
    fail "convert IN -o OUT"
json=$(find "$tmp/cmp" -name results.json | head -1)
"$strata" merge -o "$tmp/merged.md" "$json" >/dev/null 2>&1 && [ -s "$tmp/merged.md" ] && pass || fail "merge -o FILE"
"$strata" render --world "$tmp/w" --size 16x10 --no-shadows --out "$tmp/r.png" >/dev/null 2>&1 && [ -s "$tmp/r.png" ] &&
    pass || fail "render --out FILE"
# run --methods, into -o DIR: one image per default view of the named method only
if "$strata" run --world "$tmp/w" --methods ray --size 16x10 --frames 1 --no-shadows -o "$tmp/run" >"$tmp/run.out" 2>&1
then
    n=$(ls "$tmp/run" | wc -l)
    others=$(ls "$tmp/run" | grep -v -e '-ray\.png$' -e '^contact-sheet\.png$')
    [ "$n" -ge 1 ] && [ -z "$others" ] && pass || fail "run --methods ray wrote $n files: $others"
else fail "run --methods: $(tail -2 "$tmp/run.out")"; fi
"$strata" run --methods nonsense -o "$tmp/run2" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unknown method 'nonsense'" "$tmp/err" && [ ! -e "$tmp/run2" ] && pass ||
    fail "run --methods nonsense: $(cat "$tmp/err")"

# info prints the identity results.json records
crc_json=$(sed -n 's/.*"crc32":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$json" | head -1)
"$strata" info "$tmp/w" | grep -q "^crc32      $crc_json " && [ -n "$crc_json" ] && pass ||
    fail "info's crc32 is not results.json's $crc_json: $("$strata" info "$tmp/w" | grep crc32)"
"$strata" info --json "$tmp/w" | grep -q "\"crc32\":[[:space:]]*\"$crc_json\"" && pass || fail "info --json crc32"

# render --far: from z = 800 straight down the ground is past the default far (600) and comes into view
cam=(--world "$tmp/w" --size 16x10 --camera 128,128,800,0,-90 --no-shadows)
"$strata" render "${cam[@]}" -o "$tmp/near.png" >/dev/null 2>&1 &&
    "$strata" render "${cam[@]}" --far 2000 -o "$tmp/far.png" >/dev/null 2>&1 && ! cmp -s "$tmp/near.png" "$tmp/far.png" &&
    pass || fail "render --far"
"$strata" render --help | grep -q "CPU adapters" && pass || fail "render --help says nothing of CPU adapters"
# render --mesh-quality and --wireframe reach the mesh method: each changes its image, and q 0.5 is the default
mcam=(--world "$tmp/w" --size 32x20 --camera 128,60,120,0,-35 --no-shadows --method mesh)
"$strata" render "${mcam[@]}" -o "$tmp/m.png" >/dev/null 2>&1 &&
    "$strata" render "${mcam[@]}" --mesh-quality 0.5 -o "$tmp/m50.png" >/dev/null 2>&1 && cmp -s "$tmp/m.png" "$tmp/m50.png" &&
    "$strata" render "${mcam[@]}" --mesh-quality 0 -o "$tmp/m0.png" >/dev/null 2>&1 && ! cmp -s "$tmp/m.png" "$tmp/m0.png" &&
    "$strata" render "${mcam[@]}" --wireframe -o "$tmp/mw.png" >/dev/null 2>&1 && ! cmp -s "$tmp/m.png" "$tmp/mw.png" &&
    pass || fail "render --mesh-quality / --wireframe"
"$strata" render --world "$tmp/w" --mesh-quality 2 -o "$tmp/x.png" 2>"$tmp/err"; [ $? = 2 ] && grep -q "mesh-quality" "$tmp/err" &&
    pass || fail "render --mesh-quality 2: $(cat "$tmp/err")"

# benches: --repeat everywhere, a verdict line on each target, bench mesh's own usage and error prefix
grep -q "^target: median decode of a 2048x16384 .vmc ≤ 150 ms: n/a for this run" "$tmp/b1" && pass ||
    fail "bench decode's verdict: $(cat "$tmp/b1")"
"$strata" bench reference --world "$tmp/w" --size 32x20 --views 1 --repeat 1 >"$tmp/b2" 2>&1 &&
    grep -q "^target: median reference cast of a 1280x800 view ≤ 2000 ms: n/a for this run" "$tmp/b2" && pass ||
    fail "bench reference's verdict: $(tail -2 "$tmp/b2")"
"$strata" bench gen --repeat 1 >"$tmp/b3" 2>&1 &&
    grep -E -q "^target: median generation of the default world ≤ 3000 ms: (met|MISSED) \(measured" "$tmp/b3" && pass ||
    fail "bench gen --repeat: $(cat "$tmp/b3")"
"$strata" bench gen --runs 0 >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] && pass || fail "bench gen --runs is no longer read"
[ "$("$strata" bench mesh --help | wc -l)" -gt 5 ] && "$strata" bench mesh --help | grep -q -- "--units" && pass ||
    fail "bench mesh --help is not a usage"
"$strata" bench mesh --frobnicate >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] && grep -q "^strata bench mesh: " "$tmp/err" &&
    pass || fail "bench mesh's errors: $(cat "$tmp/err")"
"$strata" bench mesh --dem "$tmp/w/output.vmc" >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] &&
    grep -q "^strata bench mesh: " "$tmp/err" && pass || fail "bench mesh --dem of a non-PNG: $(cat "$tmp/err")"
"$strata" bench mesh --dem "$tmp/pngs/height.png" --units nope >/dev/null 2>"$tmp/err"; [ $? -eq 2 ] &&
    grep -q "bad --units" "$tmp/err" && pass || fail "bench mesh --units: $(cat "$tmp/err")"

# every bench reads its options through the one option layer: one line and exit 2 for an unknown option, a bad
# value or a stray argument; --help lists the options
for b in decode dem gen mesh ocean reference tiles upload lod; do
    "$strata" bench $b --frobnicate >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^strata bench $b: unknown option '--frobnicate'" "$tmp/err" &&
        pass || fail "bench $b --frobnicate: $(cat "$tmp/err")"
    "$strata" bench $b --help >"$tmp/help" 2>&1 && grep -q "^options:\|^Runs the parts" "$tmp/help" && pass ||
        fail "bench $b --help lists no options: $(head -3 "$tmp/help")"
done
for b in decode dem gen mesh ocean reference upload lod; do
    "$strata" bench $b --repeat 0 >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && grep -q "bad --repeat '0'" "$tmp/err" && pass || fail "bench $b --repeat 0: $(cat "$tmp/err")"
done
"$strata" bench mesh --quality 2 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --quality '2' (0..1)" "$tmp/err" && pass || fail "bench mesh --quality 2: $(cat "$tmp/err")"
for a in "--units" "-q" "--repeat=x" "--no-dem=1"; do
    "$strata" bench mesh $a >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && pass || fail "bench mesh $a: $(cat "$tmp/err")"
done
# a --dem whose header claims 32768x32768 16-bit samples is refused by its header, before 2 GiB are decoded
printf '\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\200\000\000\000\200\000\020\000\000\000\000\261\207\040\340\000\000\000\014\111\104\101\124\170\234\143\140\240\075\000\000\000\144\000\001\206\144\074\065' >"$tmp/huge16.png"
"$strata" bench mesh --dem "$tmp/huge16.png" >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "of 2..4097 samples a side (it has 32768x32768" "$tmp/err" && pass ||
    fail "bench mesh --dem of a 32768x32768 header: $(cat "$tmp/err")"
"$strata" bench reference --world "$tmp/w" stray >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unexpected argument 'stray'" "$tmp/err" && pass || fail "bench reference took a stray argument"
"$strata" bench upload --sweep 1,0 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --sweep '1,0'" "$tmp/err" && pass || fail "bench upload --sweep 1,0: $(cat "$tmp/err")"
"$strata" bench upload --memory fast >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --memory 'fast'" "$tmp/err" && pass || fail "bench upload --memory fast: $(cat "$tmp/err")"
"$strata" bench dem --handles 1,99 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --handles '1,99'" "$tmp/err" && pass || fail "bench dem --handles 1,99: $(cat "$tmp/err")"
"$strata" bench tiles --amplify 3 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --amplify '3'" "$tmp/err" && pass || fail "bench tiles --amplify 3: $(cat "$tmp/err")"

# render --world STORE reads its options through the option layer: the messages every command gives, one line and
# exit 2, and a --help that lists every option it takes
while IFS='|' read -r args want; do
    "$strata" render --world gen:1:65x65 -o "$tmp/store.png" $args >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- "$want" "$tmp/err" && [ ! -e "$tmp/store.png" ] && pass ||
        fail "render --world STORE $args: $(cat "$tmp/err")"
done <<'CASES'
--frames 0|bad --frames '0' (1..100000)
--settle 0|bad --settle '0' (1..1000000)
--device 99|bad --device '99' (an adapter index
--size 0x0|bad --size '0x0' (WxH, each 1..16384)
--tau nan|bad --tau 'nan' (pixels, 0.01..1000)
--clip-n 100|bad --clip-n '100' (4m - 1, 31..1023)
--frobnicate|unknown option '--frobnicate'
--far|option '--far' needs a value
--water-depth -1|bad --water-depth '-1'
stray|unexpected argument 'stray'
CASES
"$strata" render --world gen:1:65x65 --help >"$tmp/help" 2>&1
missing=""
for o in world method view camera far size frames settle wireframe no-shadows shading device out depth tau skirts \
         lod-grid lod-ratio morph-ratio gpu-slots slow-load lod-error clip-n water wind choppy time water-level \
         water-draw water-depth; do
    grep -q -- "--$o " "$tmp/help" || missing="$missing --$o"
done
[ -z "$missing" ] && pass || fail "render --world STORE --help does not list$missing"

"$strata" bench lod --tau nan >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "bad --tau 'nan'" "$tmp/err" && pass ||
    fail "bench lod --tau nan: $(cat "$tmp/err")"
"$strata" bench lod --frames 1e9 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --frames '1e9'" "$tmp/err" && pass || fail "bench lod --frames 1e9: $(cat "$tmp/err")"
"$strata" bench lod stray >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unexpected argument 'stray'" "$tmp/err" && pass || fail "bench lod took a stray argument"

# fly reads its options through the same layer
"$strata" fly --frobnicate >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^strata fly: unknown option '--frobnicate'" "$tmp/err" &&
    pass || fail "fly --frobnicate: $(cat "$tmp/err")"
"$strata" fly --help >"$tmp/help" 2>&1 && grep -q "^options:" "$tmp/help" && grep -q -- "--clip-n" "$tmp/help" && pass ||
    fail "fly --help lists no options: $(head -3 "$tmp/help")"
"$strata" fly --world gen:1:257x257 --path x --size 0x10 >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --size '0x10'" "$tmp/err" && pass || fail "fly --size 0x10: $(cat "$tmp/err")"
"$strata" fly --world gen:1:257x257 --path x --far inf >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "bad --far 'inf'" "$tmp/err" && pass || fail "fly --far inf: $(cat "$tmp/err")"
"$strata" fly --world gen:1:257x257 --path x stray >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "unexpected argument 'stray'" "$tmp/err" && pass || fail "fly took a stray argument"

"$strata" bench ocean --rep=0 >/dev/null 2>"$tmp/err" # a unique prefix and --name=value
[ $? -eq 2 ] && grep -q "bad --repeat '0'" "$tmp/err" && pass || fail "bench ocean --rep=0: $(cat "$tmp/err")"

# the store viewer on the option layer: its own, the store's and the water's options in one table
"$strata" tile "$STRATA_SOURCE/data/dem/ps_height_1k.png" --units 0.1 --spacing 160 -o "$tmp/ps" --no-progress \
    >/dev/null 2>&1 || fail "tile of the Puget Sound DEM"
"$strata" view --world "$tmp/ps" --help >"$tmp/help" 2>&1 && grep -q -- "--tau PX" "$tmp/help" &&
    grep -q -- "--water M" "$tmp/help" && grep -q -- "--keys KEYS" "$tmp/help" && pass ||
    fail "view --world STORE --help: $(head -3 "$tmp/help")"
"$strata" view --world="$tmp/ps" --headl --frames 1 --size 16x10 --water ocean --tim 2 --no-sh >"$tmp/out" 2>"$tmp/err" &&
    grep -q "^strata view (headless)" "$tmp/out" && grep -q "water: ocean (drawn in compute) at sea level" "$tmp/out" &&
    pass || fail "view --world STORE with prefixes and the water: $(cat "$tmp/err") $(cat "$tmp/out")"
"$strata" view --world "$tmp/ps" --headless --frames 1 --size 16x10 --water none >"$tmp/out" 2>"$tmp/err" &&
    ! grep -q "water:" "$tmp/out" && pass || fail "view --world STORE --water none: $(cat "$tmp/out")"
for bad in "--tau 0" "--lod-grid 6" "--clip-n 64" "--lod-error maybe" "--wind 99" "--vsync sometimes" "--keys ]q"; do
    # shellcheck disable=SC2086
    "$strata" view --world "$tmp/ps" --headless --frames 1 $bad >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && pass || fail "view --world STORE $bad: $(cat "$tmp/err")"
done

# compare on a tile store reads its options through the option layer too: one line and exit 2 for an unknown
# option, a bad value, a flight-only option; --help lists them; --shading textured is recorded in the reports
store=gen:5:257x257
for args in "--frobnicate" "--shading shiny" "--slow-load 5" "--tau 1,,x" "--far 1" "--lod-grid 12" "stray"; do
    # shellcheck disable=SC2086
    "$strata" compare --world "$store" $args >/dev/null 2>"$tmp/err"
    [ $? -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^strata compare: " "$tmp/err" && pass ||
        fail "compare --world STORE $args: $(cat "$tmp/err")"
done
"$strata" compare --world "$store" --help >"$tmp/help" 2>&1 && grep -q -- "--shading S" "$tmp/help" &&
    grep -q -- "--clip-n N" "$tmp/help" && pass || fail "compare --world STORE --help: $(head -3 "$tmp/help")"
if "$strata" compare --world "$store" --quick --size 32x20 --frames 1 --warmup 1 --views top-1 --methods cdlod \
        --shading textured --no-progress -o "$tmp/cs" >"$tmp/cs.out" 2>"$tmp/cs.err"; then
    json=$(find "$tmp/cs" -name results.json | head -1)
    [ -n "$json" ] && grep -q '"shading":[[:space:]]*"textured"' "$json" &&
        grep -q "textured shading" "$(dirname "$json")/results.md" && pass ||
        fail "compare --world STORE --shading textured: not in the reports"
else fail "compare --world STORE --shading textured: $(tail -2 "$tmp/cs.err")"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
