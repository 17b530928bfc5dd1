#!/usr/bin/env bash
# Where a converted elevation model wraps: ETOPO's whole globe in x only once its source says it is global
# (a raw grid carries no georeferencing: --wrap-x), never in y; a crop of part of its width and Puget Sound in
# neither; what `strata info` reports and world.ini keeps.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
etopo="$STRATA_SOURCE/data/dem/etopo20_global_1080x540_s16le.raw"
puget="$STRATA_SOURCE/data/dem/ps_height_1k.png"

# convert NAME WANT_X WANT_Y ARGS...: the conversion succeeds and `strata info --json` says where it wraps
expect_wrap() {
    local name="$1" want_x="$2" want_y="$3"; shift 3
    if ! "$strata" convert "$@" "$tmp/$name" >"$tmp/$name.log" 2>&1; then
        echo "FAIL: $name: convert failed: $(tail -c 300 "$tmp/$name.log")"; fails=$((fails + 1)); return
    fi
    "$strata" info "$tmp/$name" --json >"$tmp/$name.json" 2>&1
    local got
    got=$(python3 -c 'import json,sys; o=json.load(open(sys.argv[1])); print(str(o["wrap_x"]).lower(), str(o["wrap_y"]).lower())' "$tmp/$name.json" 2>&1)
    if [ "$got" != "$want_x $want_y" ]; then
        echo "FAIL: $name: wrap_x wrap_y = '$got', want '$want_x $want_y'"; fails=$((fails + 1))
    fi
}

expect_wrap etopo-globe true false "$etopo" --raw 1080x540 --spacing 37000 --fit resample --exaggerate 100 --wrap-x
expect_wrap etopo-plain false false "$etopo" --raw 1080x540 --spacing 37000 --fit resample --exaggerate 100
expect_wrap etopo-crop false false "$etopo" --raw 1080x540 --spacing 37000 --fit crop --exaggerate 100 --wrap-x
expect_wrap puget false false "$puget" --units 0.1 --spacing 160

grep -q "wraps in x (a whole globe), not in y" "$tmp/etopo-globe.log" || { echo "FAIL: etopo-globe: convert does not say it wraps in x"; fails=$((fails + 1)); }
grep -q "wraps in neither axis" "$tmp/puget.log" || { echo "FAIL: puget: convert does not say it wraps in neither axis"; fails=$((fails + 1)); }
# world.ini keeps the flags in its [Strata] section; the text report says so too
grep -q "^\[Strata\]" "$tmp/etopo-globe/world.ini" && grep -q "^Wrap X = 1" "$tmp/etopo-globe/world.ini" &&
    grep -q "^Wrap Y = 0" "$tmp/etopo-globe/world.ini" || { echo "FAIL: etopo-globe: world.ini lacks its [Strata] flags"; fails=$((fails + 1)); }
"$strata" info "$tmp/puget" | grep -q "^wraps      in neither axis" || { echo "FAIL: puget: strata info does not say where it wraps"; fails=$((fails + 1)); }
# the default world wraps in both, and its PNG set says nothing about it (as every set before it)
"$strata" info default | grep -q "^wraps      in x and y" || { echo "FAIL: default: strata info does not say it wraps"; fails=$((fails + 1)); }
# a PNG set of a bounded world keeps the flags through its round trip
if "$strata" convert "$tmp/puget" "$tmp/puget-pngs" --to pngs >/dev/null 2>&1 &&
    "$strata" convert "$tmp/puget-pngs" "$tmp/puget-back" --to world >/dev/null 2>&1; then
    "$strata" info "$tmp/puget-back" | grep -q "^wraps      in neither axis" || { echo "FAIL: puget PNG set: the flags were lost"; fails=$((fails + 1)); }
else
    echo "FAIL: puget: the PNG set round trip failed"; fails=$((fails + 1))
fi

if [ "$fails" -ne 0 ]; then echo "$fails failure(s)"; exit 1; fi
echo "wrap flags of converted elevation models: all as expected"
