#!/usr/bin/env bash
# strata tin: the shipped Puget Sound DEM fitted in tiles holds its bound at every sample and conforms, the
# serial fit of a small DEM too, and bad input gets one line on stderr and exit 2.
source "$(dirname "$0")/lib_cli.sh"
dem="$STRATA_SOURCE/data/dem/ps_height_1k.png"

if "$strata" tin "$dem" --units 0.1 --tolerance 16 >"$tmp/out" 2>"$tmp/err"; then
    check "tin: 1025x1025 at 16 m in 64² tiles" grep -q "1025x1025 samples, tolerance 16 m = 160 units" "$tmp/out"
    check "tin: 256 tiles" grep -q "fit: 256 tile(s) of 64x64" "$tmp/out"
    check "tin: the tiling conforms" grep -q "the tiling conforms (no crack, no T-junction" "$tmp/out"
    check "tin: the bound holds" grep -q "1050625 samples: max error .* 0 over it -> holds" "$tmp/out"
else
    echo "FAIL: tin $dem: $(cat "$tmp/err")"
    fails=$((fails + 1))
fi

# at 4 m, the benchmark's bound: on one thread and on two the same TIN (its digest), no more vertices than hmm's
# 638 417 on the same data at the same bound, every sample within it
for n in 1 2; do
    if STRATA_THREADS=$n "$strata" tin "$dem" --units 0.1 --tolerance 4 >"$tmp/out$n" 2>"$tmp/err"; then
        check "tin 4 m, $n thread(s): the bound holds" grep -q "1050625 samples: max error 4 m, .* 0 over it -> holds" "$tmp/out$n"
        vertices=$(sed -n 's/.* \([0-9]*\) vertices, .*/\1/p' "$tmp/out$n")
        check "tin 4 m, $n thread(s): $vertices vertices, at most 638417" test "${vertices:-999999999}" -le 638417
    else
        echo "FAIL: tin $dem at 4 m on $n thread(s): $(cat "$tmp/err")"
        fails=$((fails + 1))
    fi
done
check "tin 4 m: a digest" grep -q "^digest: [0-9a-f]\{16\}" "$tmp/out1"
check "tin 4 m: the same TIN on 1 and 2 threads" test "$(grep '^digest' "$tmp/out1")" = "$(grep '^digest' "$tmp/out2")"
check "tin: the digests of 4 m and 16 m differ" test "$(grep '^digest' "$tmp/out1")" != "$(grep '^digest' "$tmp/out")"

# a small 16-bit DEM of its own: the single fit (one tile) and 8² tiles both hold the bound
python3 - "$tmp/dem.png" "$tmp/grey8.png" <<'EOF' || { echo "FAIL: writing the small DEM"; fails=$((fails + 1)); }
import math, struct, sys, zlib
w = h = 33
rows = b''.join(b'\0' + b''.join(struct.pack('>H', int(3000 + 900 * math.sin(x / 5.0) * math.cos(y / 7.0) + 13 * x))
                                 for x in range(w)) for y in range(h))
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
png = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 16, 0, 0, 0, 0))
png += chunk(b'IDAT', zlib.compress(rows)) + chunk(b'IEND', b'')
open(sys.argv[1], 'wb').write(png)
# the same size in 8-bit grey, which tin refuses
rows8 = b''.join(b'\0' + bytes((x * 7 + y) % 256 for x in range(w)) for y in range(h))
png8 = b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 0, 0, 0, 0))
png8 += chunk(b'IDAT', zlib.compress(rows8)) + chunk(b'IEND', b'')
open(sys.argv[2], 'wb').write(png8)
EOF
for args in "--serial" "--tile 8" "--tile 8 --sides-beside"; do
    # shellcheck disable=SC2086
    if "$strata" tin "$tmp/dem.png" --tolerance 20 $args >"$tmp/out" 2>"$tmp/err"; then
        check "tin small $args: holds" grep -q "1089 samples: max error .* 0 over it -> holds" "$tmp/out"
    else
        echo "FAIL: tin small $args: $(cat "$tmp/err")"
        fails=$((fails + 1))
    fi
done
"$strata" tin "$tmp/dem.png" --serial >"$tmp/out" 2>&1
check "tin --serial: one tile" grep -q "fit: 1 tile(s) of 32x32 sample steps on 1 thread" "$tmp/out"

expect_error "tin: no file" tin
expect_error "tin: two files" tin "$dem" "$dem"
expect_error "tin: a missing file" tin "$tmp/none.png"
expect_error "tin: not a PNG" tin "$STRATA_SOURCE/data/dem/SOURCES.md"
mkfifo "$tmp/pipe"
expect_error "tin: a named pipe" tin "$tmp/pipe"
# a header claiming 32768x32768 16-bit samples (57 bytes) is refused by its header, before 2 GiB are decoded
printf '\211\120\116\107\015\012\032\012\000\000\000\015\111\110\104\122\000\000\200\000\000\000\200\000\020\000\000\000\000\261\207\040\340\000\000\000\014\111\104\101\124\170\234\143\140\240\075\000\000\000\144\000\001\206\144\074\065' >"$tmp/huge16.png"
expect_error "tin: a 32768x32768 header" tin "$tmp/huge16.png"
check "tin: the header's size is refused" grep -q "samples a side (it has 32768x32768" "$tmp/stderr"
expect_error "tin: zero tolerance" tin "$dem" --tolerance 0
expect_error "tin: negative tolerance" tin "$dem" --tolerance -4
expect_error "tin: non-finite tolerance" tin "$dem" --tolerance nan
expect_error "tin: tolerance past 65535 units" tin "$dem" --tolerance 1000 --units 0.001
expect_error "tin: bad units" tin "$dem" --units 0
expect_error "tin: bad tile" tin "$dem" --tile 1
expect_error "tin: --serial with --tile" tin "$dem" --serial --tile 64
expect_error "tin: unknown option" tin "$dem" --frobnicate
expect_error "tin: an 8-bit PNG" tin "$tmp/grey8.png"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
