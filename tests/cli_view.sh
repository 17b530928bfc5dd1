#!/usr/bin/env bash
# The viewer in a real window under Xvfb (lavapipe, validation on from ctest): a short run shows terrain and
# sky, is deterministic, a scripted dig under the screen centre changes the picture, a scripted paint is saved
# with the world and comes back when it is reopened, the compute method
# presents the same scene, and without an X server `strata view` fails with one line and status 1.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

# Bad input is refused before any window opens: status 2, one line.
for args in "--dig 1,2" "--record $tmp/rec" "--frames 0" "--vsync maybe" "--method nonsense" "--size 0x0"; do
    # shellcheck disable=SC2086
    "$strata" view $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then pass; else
        fail "view $args: status $status, stderr: $(head -c 300 "$tmp/err")"; fi
done

# No X server: one clear line, status 1.
env -u DISPLAY -u WAYLAND_DISPLAY "$strata" view --frames 1 >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "cannot open a window" "$tmp/err" &&
    grep -q -- "--headless" "$tmp/err"; then pass; else
    fail "no display: status $status, stderr: $(head -c 300 "$tmp/err")"; fi
"$strata" view --help | head -3 | grep -q -- "--headless" && pass || fail "--headless is not in the usage line"

if ! command -v xvfb-run >/dev/null; then
    echo "xvfb-run is not installed (Debian: xvfb): the window cases are skipped"
    echo "$passes passed, $fails failed"
    [ "$fails" -eq 0 ]
    exit
fi

# A small generated world keeps each run short (the default world takes seconds to generate); the camera
# looks over a valley with sky above and terrain under the screen centre.
if ! "$strata" gen --size 512x4096 -o "$tmp/world" >/dev/null 2>"$tmp/gen.err"; then
    fail "strata gen: $(head -c 300 "$tmp/gen.err")"
    echo "$passes passed, $fails failed"
    exit 1
fi
camera=100,1000,140,0,-15

# Runs the viewer in a 320x200 window on a fresh virtual X server; output in $tmp/$1.out.
run_view() {
    local tag="$1"; shift
    xvfb-run -a -s "-screen 0 640x480x24" "$strata" view --world "$tmp/world" --camera "$camera" --size 320x200 "$@" \
        >"$tmp/$tag.out" 2>"$tmp/$tag.err"
    local status=$?
    if [ "$status" -ne 0 ]; then
        fail "view $*: status $status: $(head -c 600 "$tmp/$tag.err")"
        return 1
    fi
    pass
}

share() { sed -n "s/^pixels: terrain \([0-9.]*\)% sky \([0-9.]*\)%$/\\$2/p" "$tmp/$1.out"; }

if run_view a --frames 6 --no-shadows --screenshot "$tmp/a.png"; then
    terrain=$(share a 1)
    sky=$(share a 2)
    if [ -n "$terrain" ] && awk -v t="$terrain" -v s="$sky" 'BEGIN { exit !(t > 10 && s > 1) }'; then pass; else
        fail "the view should show terrain and sky: $(cat "$tmp/a.out")"; fi
    [ -s "$tmp/a.png" ] && pass || fail "no screenshot written"
    read -r cx cy _ < <(sed -n 's/^centre: \([0-9.]*\) \([0-9.]*\) \([0-9.]*\)$/\1 \2 \3/p' "$tmp/a.out")
    if [ -z "${cx:-}" ]; then
        fail "no terrain under the screen centre: $(cat "$tmp/a.out")"
    else
        # the same run again gives the same bytes, so a difference below comes from the dig
        run_view a2 --frames 6 --no-shadows --screenshot "$tmp/a2.png" && { cmp -s "$tmp/a.png" "$tmp/a2.png" && pass ||
            fail "two identical runs gave different screenshots"; }
        # dig a crater under the screen centre before frame 3 of 6
        run_view b --frames 6 --no-shadows --screenshot "$tmp/b.png" --dig "${cx%.*},${cy%.*},16" && {
            cmp -s "$tmp/a.png" "$tmp/b.png" && fail "the dig at ${cx%.*},${cy%.*} did not change the picture" || pass; }
    fi
fi

# the compute method (a UNORM target holding sRGB bytes) presents the same scene, with the shadow map on
# (its exact cast costs about a second per frame on lavapipe: two frames)
if run_view c --frames 2 --method ray-compute; then
    terrain_c=$(share c 1)
    # shadows are on: a CPU adapter has no GPU timestamps, so its shadow time is n/a, not 0
    if grep -q "^view: .*(cpu)" "$tmp/c.out" && ! grep -q "shadow n/a" "$tmp/c.out"; then
        fail "the summary gives a shadow time on a CPU adapter: $(grep 'gpu ms' "$tmp/c.out")"; else pass; fi
    if [ -n "$terrain_c" ] && awk -v a="${terrain:-0}" -v c="$terrain_c" 'BEGIN { d = a - c; exit !(d < 1 && d > -1) }'
    then pass; else fail "ray-compute terrain share $terrain_c% differs from ray's ${terrain:-?}%"; fi
fi

# headless (no display needed): a scripted path recorded offscreen, one PNG per frame
printf '0 100 100 120 0 -30\n1 140 160 110 45 -40\n' > "$tmp/path.txt"
if DISPLAY= "$strata" view --headless --world "$tmp/world" --path "$tmp/path.txt" --frames 3 --fps 2 --size 64x40 \
        --no-shadows --record "$tmp/rec" >"$tmp/headless.out" 2>&1 && [ "$(ls "$tmp/rec" | wc -l)" -eq 3 ] &&
        grep -q "3 frames along the path" "$tmp/headless.out"; then pass
else fail "headless path recording: $(tail -2 "$tmp/headless.out")"; fi

# headless --dig and --save work as with a window: the crater under a top-down camera changes the screenshot,
# the run says what it wrote, and the saved world keeps the world.ini keys strata does not write
cp -r "$tmp/world" "$tmp/edit"
sed -i 's/^Height Shifts = .*/Height Shifts = 3 3 3 3 3 3 3 3/' "$tmp/edit/world.ini"
printf '\n[Creation Parameters]\nNoise Level = 42\n' >> "$tmp/edit/world.ini"
top=(--headless --world "$tmp/edit" --camera 200,1000,250,0,-90 --size 64x40 --no-shadows --frames 2)
if DISPLAY= "$strata" view "${top[@]}" --screenshot "$tmp/h1.png" >"$tmp/h1.out" 2>&1 &&
    DISPLAY= "$strata" view "${top[@]}" --screenshot "$tmp/h2.png" --dig 200,1000,30 --save "$tmp/edit" \
        >"$tmp/h2.out" 2>&1; then
    grep -q "wrote $tmp/h1.png" "$tmp/h1.out" && pass || fail "headless --screenshot does not say it wrote the file"
    cmp -s "$tmp/h1.png" "$tmp/h2.png" && fail "headless --dig did not change the picture" || pass
    grep -q "saved the world to $tmp/edit" "$tmp/h2.out" && pass || fail "headless --save: $(cat "$tmp/h2.out")"
    before=$("$strata" info --json "$tmp/world" | grep crc32)
    after=$("$strata" info --json "$tmp/edit" 2>&1 | grep crc32)
    [ -n "$after" ] && [ "$before" != "$after" ] && pass || fail "the saved world does not hold the dig: $after"
    grep -q "^Height Shifts = 3 3 3 3 3 3 3 3" "$tmp/edit/world.ini" && grep -q "^Noise Level = 42" "$tmp/edit/world.ini" &&
        pass || fail "the save in place lost world.ini keys: $(cat "$tmp/edit/world.ini")"
    [ "$(ls "$tmp/edit" | wc -l)" -eq 4 ] && pass || fail "the save left extra files: $(ls "$tmp/edit")"
else
    fail "headless dig and save: $(tail -2 "$tmp/h1.out" "$tmp/h2.out")"
fi

# headless --paint: the brush's control texels alone go to the GPU, the painted map is saved with the world as
# control.ctl, and reopening the saved world shows the same picture as the painted run (the original differs)
cp -r "$tmp/world" "$tmp/paint"
top=(--headless --world "$tmp/paint" --camera 200,1000,250,0,-90 --size 64x40 --no-shadows --frames 2)
if DISPLAY= "$strata" view "${top[@]}" --screenshot "$tmp/p0.png" >"$tmp/p0.out" 2>&1 &&
    DISPLAY= "$strata" view "${top[@]}" --screenshot "$tmp/p1.png" --paint 200,1000,40,snow --save "$tmp/paint" \
        >"$tmp/p1.out" 2>&1 &&
    DISPLAY= "$strata" view "${top[@]}" --screenshot "$tmp/p2.png" >"$tmp/p2.out" 2>&1; then
    up=$(sed -n 's/.*uploaded control texels x \([0-9]*\)\.\.\([0-9]*\) y \([0-9]*\)\.\.\([0-9]*\)$/\1 \2 \3 \4/p' "$tmp/p1.out")
    read -r x0 x1 y0 y1 <<<"$up"
    [ -n "$up" ] && [ "$x0" -ge 159 ] && [ "$x1" -le 242 ] && [ "$y0" -ge 959 ] && [ "$y1" -le 1042 ] &&
        [ $((x1 - x0)) -ge 70 ] && pass || fail "the paint's upload is not its brush's rectangle: '$up'"
    [ -f "$tmp/paint/control.ctl" ] && [ "$(ls "$tmp/paint" | wc -l)" -eq 5 ] && pass ||
        fail "the painted world was not saved with control.ctl: $(ls "$tmp/paint")"
    cmp -s "$tmp/p0.png" "$tmp/p1.png" && fail "headless --paint did not change the picture" || pass
    cmp -s "$tmp/p1.png" "$tmp/p2.png" && pass || fail "the reopened world does not show the painted control map"
else
    fail "headless paint and save: $(tail -2 "$tmp/p0.out" "$tmp/p1.out" "$tmp/p2.out")"
fi
# a bad --paint is refused with one line and status 2: malformed, an unknown material, flat shading
for args in "--paint 1,2,3 --frames 1" "--paint 1,2,0,snow --frames 1" "--paint 1,2,3,snow" \
    "--paint 1,2,3,snow --frames 1 --shading flat" "--paint 1,2,3,Snow! --frames 1"; do
    # shellcheck disable=SC2086
    DISPLAY= "$strata" view --headless --world "$tmp/world" $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then pass; else
        fail "view $args: status $status, stderr: $(head -c 300 "$tmp/err")"; fi
done
DISPLAY= "$strata" view "${top[@]}" --paint 10,10,3,nosuch >"$tmp/out" 2>"$tmp/err"
status=$?
[ "$status" -eq 2 ] && grep -q "no material 'nosuch'" "$tmp/err" && pass ||
    fail "--paint of an unknown material: status $status, $(head -c 300 "$tmp/err")"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
