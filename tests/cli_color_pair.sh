#!/usr/bin/env bash
# Comanche-style worlds through the CLI: the shipped pair (data/comanche) as a folder and as --world HEIGHT.png
# --color COLOR.png, rendered; a flat pair's colour reaches the image; bad pairs — sizes that differ, a file that
# is no PNG, a named pipe as either map, --color with a world that is no height map, a folder with half a pair —
# give one line and exit 2, and leave no image.
source "$(dirname "$0")/lib_cli.sh"
pair="$STRATA_SOURCE/data/comanche"

# small PNGs: grey height maps and RGB colour maps of one value
png() { # path width height channels value...
    python3 - "$@" <<'EOF'
import struct, sys, zlib
path, w, h, ch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
px = bytes(int(v) for v in sys.argv[5:5 + ch]) * (w * h)
def chunk(k, b): return struct.pack(">I", len(b)) + k + b + struct.pack(">I", zlib.crc32(k + b) & 0xFFFFFFFF)
raw = b"".join(b"\0" + px[y * w * ch:(y + 1) * w * ch] for y in range(h))
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 0 if ch == 1 else 2, 0, 0, 0))
                       + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
EOF
}

# the shipped pair loads as a folder and as the two files
"$strata" info --world "$pair" >"$tmp/info" 2>&1
check "info of the shipped pair: $(head -2 "$tmp/info")" grep -q "256 x 256 texels" "$tmp/info"
"$strata" info --json "$pair/height.png" >"$tmp/info.json" 2>&1
check "info of the height map alone" grep -q '"width":[[:space:]]*256' "$tmp/info.json"
fast=(--size 40x25 --no-shadows --water none --camera 128,250,90,180,-25)
"$strata" render --world "$pair/height.png" --color "$pair/color.png" "${fast[@]}" -o "$tmp/pair.png" >"$tmp/r.out" 2>&1
check "render --world height.png --color color.png: $(tail -1 "$tmp/r.out")" test -s "$tmp/pair.png"

# a flat pair of one colour: that colour, lit from straight above, is the image's (flat shading, the twin's)
png "$tmp/h.png" 32 32 1 40
png "$tmp/c.png" 32 32 3 200 60 20
png "$tmp/c-small.png" 32 16 3 200 60 20
"$strata" render --world "$tmp/h.png" --color "$tmp/c.png" --shading flat --size 16x16 --no-shadows --water none \
    --camera 16,16,80,0,-90 -o "$tmp/flat.png" >"$tmp/f.out" 2>&1
centre=$(python3 - "$tmp/flat.png" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], "rb").read()
pos, idat = 8, b""
while pos < len(d):
    n, = struct.unpack(">I", d[pos:pos + 4]); k = d[pos + 4:pos + 8]
    if k == b"IHDR": w, h, depth, ctype = struct.unpack(">IIBB", d[pos + 8:pos + 18])
    if k == b"IDAT": idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
ch = {2: 3, 6: 4}[ctype]
raw = zlib.decompress(idat); stride = w * ch
prev = bytearray(stride)
for y in range(h // 2 + 1):  # PNG's row filters undone up to the middle row
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - ch] if i >= ch else 0; b = prev[i]; c = prev[i - ch] if i >= ch else 0
        p = a + b - c
        pred = [0, a, b, (a + b) // 2, a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else
                b if abs(p - b) <= abs(p - c) else c][f]
        line[i] = (line[i] + pred) & 255
    prev = line
x = w // 2
print(*prev[x * ch:x * ch + 3])
EOF
)
# linear 200,60,20 -> albedo (0.578, 0.045, 0.007) x (0.25 + 0.75 * 4/sqrt(21)) -> sRGB 8-bit
want=$(python3 -c "
import math
def lin(v): v /= 255; return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
def enc(c): c = min(max(c, 0), 1); return round(255 * (12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055))
k = 0.25 + 0.75 * 4 / math.sqrt(21)
print(*[enc(lin(v) * k) for v in (200, 60, 20)])")
close() { python3 -c "import sys; a=list(map(int,'$1'.split())); b=list(map(int,'$2'.split())); sys.exit(0 if len(a)==3 and max(abs(x-y) for x,y in zip(a,b))<=2 else 1)"; }
check "a flat pair shows its colour map's colour: got '$centre', want '$want'" close "$centre" "$want"

# bad pairs: one line, exit 2, no image
mkfifo "$tmp/pipe.png"
png "$tmp/deep.png" 8 8 1 0
printf 'not a png, just words\n' >"$tmp/words.png"
expect_error "sizes differ" render --world "$tmp/h.png" --color "$tmp/c-small.png" -o "$tmp/bad1.png"
grep -q "is 32x16 but .* is 32x32" "$tmp/stderr" && passes=$((passes + 1)) || { echo "FAIL: size message: $(cat "$tmp/stderr")"; fails=$((fails + 1)); }
expect_error "colour map no PNG" render --world "$tmp/h.png" --color "$tmp/words.png" -o "$tmp/bad2.png"
expect_error "height map no PNG" render --world "$tmp/words.png" --color "$tmp/c.png" -o "$tmp/bad3.png"
expect_error "colour map a named pipe" render --world "$tmp/h.png" --color "$tmp/pipe.png" -o "$tmp/bad4.png"
expect_error "height map a named pipe" render --world "$tmp/pipe.png" --color "$tmp/c.png" -o "$tmp/bad5.png"
expect_error "colour map missing" render --world "$tmp/h.png" --color "$tmp/none.png" -o "$tmp/bad6.png"
expect_error "--color with the default world" render --color "$tmp/c.png" -o "$tmp/bad7.png"
expect_error "a colour map as the height map" render --world "$tmp/c.png" --color "$tmp/c.png" -o "$tmp/bad8.png"
expect_error "info of a named pipe as the world" info --world "$tmp/pipe.png"
mkdir "$tmp/half" && cp "$tmp/h.png" "$tmp/half/height.png"
expect_error "a folder with half a pair" render --world "$tmp/half" -o "$tmp/bad9.png"
expect_error "compare with a colour map of another size" compare --world "$tmp/h.png" --color "$tmp/c-small.png" \
    --quick --methods ray -o "$tmp/cmp"
for k in 1 2 3 4 5 6 7 8 9; do check "no image left by bad pair $k" test ! -e "$tmp/bad$k.png"; done
check "no compare folder left" test ! -e "$tmp/cmp"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
