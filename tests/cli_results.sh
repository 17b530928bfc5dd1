#!/usr/bin/env bash
# The results of the measuring commands: each compare run in a folder of its own with `latest` pointing at the
# last complete one; an interrupted run or a full disk leaves one line and nothing half-written; progress lines
# when stderr is not a terminal; `run`'s images equal `render`'s for the same settings, with a contact sheet.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
check() { # check WHAT CONDITION-STATUS
    if [ "$2" -eq 0 ]; then passes=$((passes + 1)); else echo "FAIL: $1"; fails=$((fails + 1)); fi
}
small=(--quick --methods ray --views hangar --size 64x40 --cache "$tmp/cache")

# a run: its own folder, complete, `latest` at it, progress lines on a non-terminal stderr
"$strata" compare "${small[@]}" --frames 1 --out "$tmp/c" >"$tmp/out1" 2>"$tmp/err1"
check "compare runs" $?
slug=$(ls "$tmp/c")
first=$(readlink "$tmp/c/$slug/latest")
[ -n "$first" ] && [ -s "$tmp/c/$slug/$first/results.json" ] && [ -s "$tmp/c/$slug/$first/grid.png" ] &&
    [ -s "$tmp/c/$slug/$first/heatmap-color-ray.png" ]
check "the run folder is complete and latest names it ($first)" $?
grep -q "^compare: 1/1 ray done" "$tmp/err1"
check "one progress line per method when stderr is not a terminal: $(head -c 300 "$tmp/err1")" $?
grep -q "shadow map 256² (preview)" "$tmp/out1"
check "the summary names the shadow map: $(head -c 200 "$tmp/out1")" $?
grep -Eq "^ray +[0-9.]+ +n/a .*%" "$tmp/out1"
check "one timed frame gives no interval (n/a), and the errors are printed: $(sed -n 3,4p "$tmp/out1")" $?

# another setting: another folder; the first is untouched; latest moves
sleep 1
"$strata" compare "${small[@]}" --frames 2 --out "$tmp/c" >/dev/null 2>&1
check "a second compare runs" $?
second=$(readlink "$tmp/c/$slug/latest")
[ "$second" != "$first" ] && [ -s "$tmp/c/$slug/$first/results.json" ] &&
    grep -q '"frames":	1' "$tmp/c/$slug/$first/results.json" && grep -q '"frames":	2' "$tmp/c/$slug/$second/results.json"
check "runs of other settings never mix ($first, $second)" $?

# SIGINT: one line saying what was kept, no partial folder, latest unchanged
"$strata" compare --methods ray,voxel,slice,paint --views hangar --size 64x40 --frames 100000 --cache "$tmp/cache" \
    --out "$tmp/c" >/dev/null 2>"$tmp/err2" &
pid=$!
for _ in $(seq 1 200); do ls -d "$tmp/c/$slug"/.partial-* >/dev/null 2>&1 && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
wait "$pid"
status=$?
lines=$(grep -vc "^compare: " "$tmp/err2")
[ "$status" -eq 130 ] && [ "$lines" -eq 1 ] && grep -q "interrupted" "$tmp/err2" &&
    ! ls -d "$tmp/c/$slug"/.partial-* >/dev/null 2>&1 && [ "$(readlink "$tmp/c/$slug/latest")" = "$second" ]
check "SIGINT: status $status, $lines line(s): $(grep -v '^compare: ' "$tmp/err2" | head -c 300)" $?

# a full disk (a file-size limit makes every write past 4 KiB fail): one line, nothing half-written
(ulimit -f 4; trap '' XFSZ; exec "$strata" compare "${small[@]}" --cache none --no-progress --out "$tmp/full") \
    >/dev/null 2>"$tmp/err3"
status=$?
lines=$(wc -l <"$tmp/err3")
[ "$status" -eq 1 ] && [ "$lines" -eq 1 ] && ! ls -d "$tmp/full"/*/.partial-* >/dev/null 2>&1 &&
    ! ls -d "$tmp/full"/*/2* >/dev/null 2>&1 && ! find "$tmp/full" -name '*.tmp*' | grep -q .
check "full disk: status $status, $lines line(s): $(head -c 300 "$tmp/err3")" $?

# run = render for the same view, method, size and shadow map (run draws the terrain alone: render --water none);
# and a contact sheet
"$strata" run --size 64x40 --methods ray,slice --out "$tmp/run" >"$tmp/run.txt" 2>&1
check "run: $(tail -c 300 "$tmp/run.txt")" $?
shadow=$(sed -n 's/.*shadow map \([0-9]*\)².*/\1/p' "$tmp/run.txt" | head -1)
[ -s "$tmp/run/contact-sheet.png" ]
check "run writes a contact sheet" $?
same=0
for f in "$tmp"/run/*-ray.png "$tmp"/run/*-slice.png; do
    base=$(basename "$f" .png)
    method=${base##*-}
    [ "$method" = "ray" ] || [ "$method" = "slice" ] || continue
    view=${base%-"$method"}
    [ "$view" != "${view%-plain}" ] && continue
    "$strata" render --view "$view" --method "$method" --size 64x40 --shadow-size "$shadow" --water none \
        -o "$tmp/r.png" >/dev/null 2>&1 && cmp -s "$f" "$tmp/r.png" && same=$((same + 1))
    [ "$same" -ge 4 ] && break
done
[ "$same" -ge 4 ]
check "run's images equal render's (shadow map ${shadow}²): $same of 4" $?

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
