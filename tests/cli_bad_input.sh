#!/usr/bin/env bash
# The CLI's bad-input cases: each gives one line on stderr, exit status 2, and no output file, within a
# minute (a hang, say on a named pipe, is killed and counted as a failure).
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0

expect_usage_error() {
    local what="$1"; shift
    local out="$tmp/out.png"
    rm -f "$out" "$tmp"/*.tmp* 2>/dev/null
    timeout -k 5 "${CLI_TEST_TIMEOUT:-60}" "$strata" "$@" >"$tmp/stdout" 2>"$tmp/stderr" </dev/null
    local status=$?
    local lines
    lines=$(wc -l <"$tmp/stderr")
    if [ "$status" -ne 2 ] || [ "$lines" -ne 1 ] || [ -e "$out" ] || ls "$tmp"/*.tmp* >/dev/null 2>&1; then
        echo "FAIL: $what: status $status, $lines stderr line(s): $(head -c 300 "$tmp/stderr")"
        fails=$((fails + 1))
    else
        passes=$((passes + 1))
    fi
}

# a small world keeps the cases that load one fast (the default world takes seconds to generate)
"$strata" gen --size 256x256 -o "$tmp/w" >/dev/null 2>&1 || { echo "FAIL: gen of the test world"; fails=$((fails + 1)); }

expect_usage_error "unknown command" frobnicate
expect_usage_error "unknown option" render --frobnicate -o "$tmp/out.png"
expect_usage_error "unknown method" render --method nonsense -o "$tmp/out.png"
expect_usage_error "malformed camera" render --camera 1,2,three,4,5 -o "$tmp/out.png"
expect_usage_error "camera with too few fields" render --camera 1,2,3 -o "$tmp/out.png"
expect_usage_error "pitch out of range" render --camera 1,2,3,0,-120 -o "$tmp/out.png"
expect_usage_error "camera past float range" render --camera 1e300,100,100,0,-30 -o "$tmp/out.png"
expect_usage_error "camera yaw huge" render --camera 100,100,100,1e300,-30 -o "$tmp/out.png"
expect_usage_error "camera infinite" render --camera 100,inf,100,0,-30 -o "$tmp/out.png"
expect_usage_error "camera nan" render --camera 100,100,nan,0,-30 -o "$tmp/out.png"
expect_usage_error "view spec yaw huge" render --world "$tmp/w" --view "v:100,100:1e300:-30" -o "$tmp/out.png"
expect_usage_error "view spec x past float" render --world "$tmp/w" --view "v:1e39,100:0:-30" -o "$tmp/out.png"
expect_usage_error "view: camera past float range" view --headless --camera 1e300,1,1,0,0 --frames 1
expect_usage_error "view: dig past int" view --headless --dig 99999999999,1,2 --frames 1
expect_usage_error "compare: dig past int" compare --dig 1,2,99999999999
expect_usage_error "gen: seed past 2^64-1" gen --seed 18446744073709551616 -o "$tmp/out-world"
expect_usage_error "gen: seed far past 2^64-1" gen --seed 99999999999999999999999999 -o "$tmp/out-world"
expect_usage_error "size zero" render --size 0x0 -o "$tmp/out.png"
expect_usage_error "size malformed" render --size 640 -o "$tmp/out.png"
expect_usage_error "missing output" render --size 64x64
expect_usage_error "option without value" render -o
expect_usage_error "missing world" render --world "$tmp/no-such-world" -o "$tmp/out.png"
expect_usage_error "unreadable world" render --world /dev/null -o "$tmp/out.png"
expect_usage_error "frames zero" render --frames 0 -o "$tmp/out.png"
expect_usage_error "unknown view" render --world "$tmp/w" --view no-such-view -o "$tmp/out.png"
expect_usage_error "run: unknown option" run --bogus
expect_usage_error "gen: bad size" gen --size 100x100 -o "$tmp/world"
expect_usage_error "gen: bad dual" gen --dual 150 -o "$tmp/world"
expect_usage_error "info: missing world" info "$tmp/no-such-world"
expect_usage_error "mesh: bad fit tile" mesh default --fit-tile 48
expect_usage_error "mesh: fit tile too small" mesh default --fit-tile 16
expect_usage_error "mesh: bad quality" mesh default -q 2
expect_usage_error "mesh: unknown export format" mesh default --export "$tmp/out.stl"
expect_usage_error "bench tiles: unknown option" bench tiles --bogus
expect_usage_error "bench tiles: slow-load not a number" bench tiles --slow-load nan
expect_usage_error "bench tiles: slow-load out of range" bench tiles --slow-load 1e9
expect_usage_error "bench tiles: zero requests" bench tiles --storm --requests 0
expect_usage_error "bench tiles: too many levels" bench tiles --storm --levels 25
# the water's options
expect_usage_error "render: unknown water mode" render --water sea -o "$tmp/out.png"
expect_usage_error "render: wind past 60" render --wind 100 -o "$tmp/out.png"
expect_usage_error "render: wind direction not a number" render --wind 5,east -o "$tmp/out.png"
expect_usage_error "render: wind nan" render --wind nan -o "$tmp/out.png"
expect_usage_error "render: negative choppiness" render --choppy -1 -o "$tmp/out.png"
expect_usage_error "render: choppiness inf" render --choppy inf -o "$tmp/out.png"
expect_usage_error "render: negative time" render --time -3 -o "$tmp/out.png"
expect_usage_error "render: water level past 1000" render --water-level 1e9 -o "$tmp/out.png"
expect_usage_error "render: unknown way of drawing the water" render --water-draw fast -o "$tmp/out.png"
expect_usage_error "render: negative water depth" render --water-depth -2 -o "$tmp/out.png"
expect_usage_error "render: water depth nan" render --water-depth nan -o "$tmp/out.png"
expect_usage_error "render a store: unknown water mode" render --world gen:1:65x65 --water sea -o "$tmp/out.png"
expect_usage_error "render a store: wind nan" render --world gen:1:65x65 --wind nan -o "$tmp/out.png"
expect_usage_error "view: unknown water mode" view --water lake --headless --frames 1
expect_usage_error "compare: unknown water mode" compare --water pond --out "$tmp/cmp"
expect_usage_error "bench ocean: unknown option" bench ocean --bogus
expect_usage_error "bench ocean: bad size" bench ocean --sizes 0x0
expect_usage_error "bench ocean: bad repeat" bench ocean --repeat 0
expect_usage_error "bench ocean: unknown method" bench ocean --method nope

# a truncated PNG height map: one line, not libpng's own messages too
head -c 100 "$STRATA_SOURCE/tests/fixtures/tiny16.png" > "$tmp/trunc.png" 2>/dev/null ||
    printf '\211PNG\r\n\032\n\000\000\000\rIHDR' > "$tmp/trunc.png"
expect_usage_error "convert: truncated PNG" convert "$tmp/trunc.png" "$tmp/out-world"

# convert: elevation inputs. Each leaves no output world behind.
expect_convert_error() {
    local what="$1" want="$2"; shift 2
    expect_usage_error "convert: $what" convert "$@"
    if [ -e "$tmp/out-world" ]; then
        echo "FAIL: convert: $what: left $tmp/out-world"; fails=$((fails + 1)); rm -rf "$tmp/out-world"
    elif ! grep -q -- "$want" "$tmp/stderr"; then
        echo "FAIL: convert: $what: stderr lacks '$want': $(head -c 300 "$tmp/stderr")"; fails=$((fails + 1))
    fi
}
expect_convert_error "missing file" "No such file or directory" "$tmp/no-such-dem.tif" "$tmp/out-world"
printf 'not a raster at all\n' > "$tmp/garbage.tif"
expect_convert_error ".tif no reader takes" "no reader takes it" "$tmp/garbage.tif" "$tmp/out-world"
: > "$tmp/empty.tif"
expect_convert_error "empty .tif" "empty file" "$tmp/empty.tif" "$tmp/out-world"
expect_convert_error "bad --type" "--type must be" "$tmp/garbage.tif" "$tmp/out-world" --raw 4x4 --type s32
expect_convert_error "bad --exaggerate" "bad --exaggerate" "$STRATA_SOURCE/data/dem/ps_height_1k.png" "$tmp/out-world" --exaggerate -2
expect_convert_error "non-finite --exaggerate" "bad --exaggerate" "$STRATA_SOURCE/data/dem/ps_height_1k.png" "$tmp/out-world" --exaggerate nan
expect_convert_error "bad --spacing" "bad --spacing" "$STRATA_SOURCE/data/dem/ps_height_1k.png" "$tmp/out-world" --spacing 0
expect_convert_error "no spacing, no true scale" "--spacing M" "$STRATA_SOURCE/data/dem/ps_height_1k.png" "$tmp/out-world" --units 0.1
expect_convert_error "true scale impossible" "use --exaggerate 0.116 or less" "$STRATA_SOURCE/data/dem/ps_height_1k.png" "$tmp/out-world" --units 0.1 --spacing 2 --fit crop
expect_convert_error "raw of the wrong size" "truncated" "$STRATA_SOURCE/data/dem/etopo20_global_1080x540_s16le.raw" "$tmp/out-world" --raw 1080x541 --spacing 37000
expect_convert_error "u16 raw of the wrong size" "u16 samples" "$STRATA_SOURCE/data/dem/etopo20_global_1080x540_s16le.raw" "$tmp/out-world" --raw 1000x540 --type u16
cp "$STRATA_SOURCE/data/dem/etopo20_global_1080x540_s16le.raw" "$tmp/N50E009.hgt"
expect_convert_error "lone .hgt of the wrong size" "SRTM tile" "$tmp/N50E009.hgt" "$tmp/out-world"
expect_convert_error "mosaic of other files" "only SRTM tiles" "$tmp/N50E009.hgt" "$tmp/garbage.tif" "$tmp/out-world"
expect_convert_error "folder without --rgb" "is a directory" "$tmp" "$tmp/out-world"
expect_convert_error "--wrap-x on an .hgt tile" "whole globe" "$tmp/N50E009.hgt" "$tmp/out-world" --wrap-x
expect_convert_error "--wrap-x on a world" "--wrap-x is for elevation models" default "$tmp/out-world" --wrap-x
expect_convert_error "bad --rgb" "--rgb must be" "$tmp" "$tmp/out-world" --rgb jpeg
# a Comanche-style height map (a 32x32 palette PNG of greys 10..118): --heights as-is keeps its samples as the
# height steps (no spacing needed, no shift to 0); a palette of colours (a colour map) is refused
python3 - "$tmp" <<'PY'
import struct, sys, zlib
def png(path, plte):
    w = h = 32
    rows = b''.join(b'\x00' + bytes(((x + y) * 4) // 31 % 4 for x in range(w)) for y in range(h))
    def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 3, 0, 0, 0)) +
                           chunk(b'PLTE', plte) + chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b''))
png(sys.argv[1] + '/comanche-height.png', bytes(v for g in (10, 40, 80, 118) for v in (g, g, g)))
png(sys.argv[1] + '/comanche-color.png', bytes((200, 40, 10, 30, 160, 40, 90, 90, 90, 250, 250, 250)))
PY
if "$strata" convert "$tmp/comanche-height.png" --heights as-is "$tmp/comanche" >"$tmp/stdout" 2>"$tmp/stderr" &&
    "$strata" info "$tmp/comanche" | grep -q "^heights    10..118$"; then passes=$((passes + 1))
else echo "FAIL: convert --heights as-is: $(head -c 300 "$tmp/stderr") $("$strata" info "$tmp/comanche" 2>&1 | grep heights)"
    fails=$((fails + 1)); fi
expect_convert_error "a colour map as the height map" "has colour" "$tmp/comanche-color.png" "$tmp/out-world" --heights as-is
expect_convert_error "bad --heights" "--heights must be" "$tmp/comanche-height.png" "$tmp/out-world" --heights raw
expect_convert_error "--heights as-is with --exaggerate" "cannot also be" "$tmp/comanche-height.png" "$tmp/out-world" --heights as-is --exaggerate 2
# a named pipe: refused at once, never read (timeout: a hang fails)
mkfifo "$tmp/pipe.tif"
timeout 20 "$strata" convert "$tmp/pipe.tif" "$tmp/out-world" >"$tmp/stdout" 2>"$tmp/stderr"
status=$?
if [ "$status" -ne 2 ] || [ "$(wc -l <"$tmp/stderr")" -ne 1 ] || ! grep -q "named pipe" "$tmp/stderr"; then
    echo "FAIL: convert: named pipe: status $status: $(head -c 300 "$tmp/stderr")"; fails=$((fails + 1))
else
    passes=$((passes + 1))
fi

# Outputs: every path is checked before anything is written, so a bad second output leaves no first one.
expect_usage_error "render: depth into a missing folder" render --size 16x10 --camera 100,100,200,0,-60 \
    -o "$tmp/out.png" --depth "$tmp/nodir/d.pfm"
expect_usage_error "render: -o a directory" render --size 16x10 -o "$tmp"
grep -q "is a directory" "$tmp/stderr" || { echo "FAIL: -o DIR: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
expect_usage_error "render: -o .jpg" render --size 16x10 -o "$tmp/out.jpg"
expect_usage_error "info STORE: --preview .jpg" info gen:1:65x65 --preview "$tmp/out.jpg"
[ -e "$tmp/out.jpg" ] && { echo "FAIL: info --preview wrote PNG bytes into a .jpg"; fails=$((fails + 1)); }
expect_usage_error "info STORE: --preview a directory" info gen:1:65x65 --preview "$tmp"
grep -q "is a directory" "$tmp/stderr" || { echo "FAIL: --preview DIR: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
expect_usage_error "render: --depth not .pfm" render --size 16x10 -o "$tmp/out.png" --depth "$tmp/d.png"
printf '0 100 100 120 0 -30\n1 140 160 110 45 -40\n' > "$tmp/early.path"
expect_usage_error "view: screenshot into a missing folder" view --headless --frames 2 --record "$tmp/rec-early" \
    --path "$tmp/early.path" --size 16x10 --screenshot "$tmp/nodir/s.png"
[ -e "$tmp/rec-early" ] && { echo "FAIL: a refused view run wrote its recording"; fails=$((fails + 1)); }
expect_usage_error "mesh: export into a missing folder" mesh default -o "$tmp/nodir/m.obj"
expect_usage_error "merge: -o a directory" merge -o "$tmp" "$tmp/none.json"

# No arguments: the usage, on stderr, exit 2.
"$strata" >"$tmp/stdout" 2>"$tmp/stderr"
status=$?
if [ "$status" -eq 2 ] && [ ! -s "$tmp/stdout" ] && grep -q "usage: strata COMMAND" "$tmp/stderr"; then
    passes=$((passes + 1)); else echo "FAIL: strata with no arguments: status $status"; fails=$((fails + 1)); fi

# Named pipes (and other non-regular files) where a file is expected: refused at once, never opened for
# reading (which would wait for a writer forever). A small world gives each file of a world in turn.
for f in world.ini output.vmc harmony.pal output.vpr; do
    rm -rf "$tmp/fifo-$f"
    cp -r "$tmp/w" "$tmp/fifo-$f"
    rm "$tmp/fifo-$f/$f"
    mkfifo "$tmp/fifo-$f/$f"
    expect_usage_error "info: $f is a named pipe" info "$tmp/fifo-$f"
done
# A world.ini that cannot be read is not "no world.ini" (a link loop stands in for a permission error,
# which root would not see)
mkdir -p "$tmp/loop" && ln -sf world.ini "$tmp/loop/world.ini"
expect_usage_error "info: world.ini is a link loop" info "$tmp/loop"
grep -q "no world.ini" "$tmp/stderr" && { echo "FAIL: an unreadable world.ini reads as missing"; fails=$((fails + 1)); }
fifo_world="$tmp/fifo-world.ini"
expect_usage_error "render: world is a named pipe" render --world "$fifo_world" -o "$tmp/out.png"
expect_usage_error "mesh: world is a named pipe" mesh "$fifo_world"
expect_usage_error "convert: world is a named pipe" convert "$fifo_world" "$tmp/out-world"
expect_usage_error "view: world is a named pipe" view --headless --world "$fifo_world" --frames 1
expect_usage_error "compare: world is a named pipe" compare --quick --world "$fifo_world" --out "$tmp/cmp"
expect_usage_error "tune: world is a named pipe" tune --world "$fifo_world" --out "$tmp/tune"
expect_usage_error "info: world.ini itself is a named pipe" info "$fifo_world/world.ini"
mkfifo "$tmp/pipe.png" "$tmp/pipe.hgt" "$tmp/pipe.raw" "$tmp/pipe.txt" "$tmp/pipe.json"
expect_usage_error "convert: PNG height map is a named pipe" convert "$tmp/pipe.png" "$tmp/out-world"
expect_usage_error "convert: .hgt is a named pipe" convert "$tmp/pipe.hgt" "$tmp/out-world"
expect_usage_error "convert: raw is a named pipe" convert "$tmp/pipe.raw" "$tmp/out-world" --raw 2x2
mkdir -p "$tmp/pngset"
mkfifo "$tmp/pngset/height.png" "$tmp/pngset/meta.png"
expect_usage_error "convert: PNG set of named pipes" convert "$tmp/pngset" "$tmp/out-world"
expect_usage_error "view: --path is a named pipe" view --headless --world "$tmp/w" --path "$tmp/pipe.txt" --frames 1
expect_usage_error "compare: --tuning is a named pipe" compare --quick --tuning "$tmp/pipe.json" --out "$tmp/cmp"
expect_usage_error "merge: results file is a named pipe" merge "$tmp/pipe.json"
# a world's own materials (WORLD/materials/) and control map: a named pipe among them is refused, not waited on
for f in materials/rock_albedo.png materials/materials.txt control.ctl; do
    rm -rf "$tmp/fifo-mat" && cp -r "$tmp/w" "$tmp/fifo-mat" && mkdir -p "$tmp/fifo-mat/materials"
    mkfifo "$tmp/fifo-mat/$f"
    expect_usage_error "render: $f is a named pipe" render --world "$tmp/fifo-mat" --size 16x10 --no-shadows \
        -o "$tmp/out.png"
    grep -q "named pipe" "$tmp/stderr" || { echo "FAIL: $f as a named pipe: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
done
# a material PNG whose 57-byte header claims 32768x32768 RGBA pixels is refused by its header, before 4 GiB are decoded
rm -rf "$tmp/huge-mat" && cp -r "$tmp/w" "$tmp/huge-mat" && mkdir -p "$tmp/huge-mat/materials"
printf '\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\200\000\000\000\200\000\010\006\000\000\000\304\174\243\177\000\000\000\014\111\104\101\124\170\234\143\140\240\075\000\000\000\144\000\001\206\144\074\065' \
    >"$tmp/huge-mat/materials/rock_albedo.png"
expect_usage_error "render: a material PNG claiming 32768x32768" render --world "$tmp/huge-mat" --size 16x10 --no-shadows \
    -o "$tmp/out.png"
grep -q "must be .* at 8 bits (this one is 32768x32768" "$tmp/stderr" ||
    { echo "FAIL: a material's size is not judged by its header: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
# Impossible sizes are bad input (exit 2), refused up front with the limit named; PNG headers are judged
# before anything is decoded.
sed -e 's/^Map Power X = .*/Map Power X = 16/' -e 's/^Map Power Y = .*/Map Power Y = 16/' "$tmp/w/world.ini" > "$tmp/w16.ini"
mkdir -p "$tmp/w16" && cp "$tmp/w"/* "$tmp/w16/" && cp "$tmp/w16.ini" "$tmp/w16/world.ini"
expect_usage_error "info: world.ini powers 16/16" info "$tmp/w16"
expect_usage_error "gen: size past 2^30 texels" gen --size 65536x65536 -o "$tmp/out-world"
"$strata" convert "$tmp/w" "$tmp/pngs" --to pngs >/dev/null 2>&1
expect_usage_error "convert: size past the limit" convert "$tmp/pngs/height.png" "$tmp/out-world" --fit resample \
    --size 65536x65536
expect_usage_error "convert: resample size past the limit" convert "$tmp/pngs/height.png" "$tmp/out-world" \
    --fit resample --size 32768x32768
grep -q "2^27" "$tmp/stderr" || { echo "FAIL: the --size limit is not named: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
mkdir -p "$tmp/hugeset"
# signature, IHDR of 65536x32768 8-bit grey, and the start of its image data
huge_png='\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\001\000\000\000\000\200\000\010\000\000\000\000\015\123\205\123\000\000\000\014\111\104\101\124\170\234\143\140\240\014\000\000\000\100\000\001\267\064\174\357'
printf "$huge_png" > "$tmp/hugeset/height.png"
printf "$huge_png" > "$tmp/hugeset/meta.png"
expect_usage_error "convert: a 65536x32768 PNG set" convert "$tmp/hugeset" "$tmp/out-world"
grep -q "texel limit" "$tmp/stderr" || { echo "FAIL: the PNG set's size is not refused by its header: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
text_png='\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\000\002\000\000\000\002\010\000\000\000\000\127\335\122\370\177\377\377\377\164\105\130\164\103\157\155\155\145\156\164\000\150\145\154\154\157\346\377\256\044'
{ printf "$text_png"; head -c 83 /dev/zero; } > "$tmp/claims.png"
expect_usage_error "convert: a text chunk claiming 2 GiB" convert "$tmp/claims.png" "$tmp/out-world"

# Camera paths: times bounded (0..3600 s) and the frames a recording writes bounded (1000000).
printf '0 100 100 120 0 -30\n1e7 140 160 110 45 -40\n' > "$tmp/long.path"
expect_usage_error "view: path time 1e7" view --headless --world "$tmp/w" --path "$tmp/long.path" --record "$tmp/rec"
printf '0 100 100 120 0 -30\n1e30 140 160 110 45 -40\n' > "$tmp/huge.path"
expect_usage_error "view: path time 1e30" view --headless --world "$tmp/w" --path "$tmp/huge.path" --record "$tmp/rec"
printf '0 100 100 120 0 -30\n3600 140 160 110 45 -40\n' > "$tmp/hour.path"
expect_usage_error "view: recording past 1000000 frames" view --headless --world "$tmp/w" --path "$tmp/hour.path" \
    --fps 1000 --record "$tmp/rec"
[ -e "$tmp/rec" ] && { echo "FAIL: a refused recording created its folder"; fails=$((fails + 1)); }

# a reference-cache entry that is a named pipe is a cache miss, not a hang: fill a cache, turn every entry
# into a pipe, run again
cmp_args=(compare --quick --world "$tmp/w" --methods ray --size 16x10 --no-shadows --cache "$tmp/cache"
          --out "$tmp/cmp")
if timeout -k 5 120 "$strata" "${cmp_args[@]}" >/dev/null 2>"$tmp/stderr" && ls "$tmp/cache"/ref-*.bin >/dev/null 2>&1; then
    for c in "$tmp/cache"/ref-*.bin; do rm "$c"; mkfifo "$c"; done
    if timeout -k 5 120 "$strata" "${cmp_args[@]}" >/dev/null 2>"$tmp/stderr"; then passes=$((passes + 1)); else
        echo "FAIL: compare with a named pipe in the reference cache: status $?: $(head -c 300 "$tmp/stderr")"
        fails=$((fails + 1)); fi
else
    echo "FAIL: compare to fill the reference cache: $(head -c 300 "$tmp/stderr")"; fails=$((fails + 1))
fi

# and a good render succeeds and writes the file
"$strata" render --size 64x40 --camera 100,100,200,0,-60 -o "$tmp/good.png" >/dev/null 2>"$tmp/stderr"
if [ $? -eq 0 ] && [ -s "$tmp/good.png" ]; then passes=$((passes + 1)); else
    echo "FAIL: a good render: $(cat "$tmp/stderr")"; fails=$((fails + 1)); fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
