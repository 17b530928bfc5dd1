#!/usr/bin/env bash
# Worlds on disk through the CLI: concurrent saves into one directory leave a world that loads (one writer at a
# time, the other refused with a clear line), a held lock refuses and a stale one is taken over, the map's
# CRC-32 catches a flipped bit, and a write that fails (file-size limit standing in for a full disk) leaves no
# directory, PNG set or message that hides the cause.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

size_of() { "$strata" info --json "$1" 2>/dev/null | sed -n 's/^[[:space:]]*"width":[[:space:]]*\([0-9]*\).*/\1/p'; }

# Two gens of different sizes into one directory at once, a few times over.
for round in 1 2 3 4 5 6; do
    rm -rf "$tmp/cw"
    "$strata" gen --size 256x256 -o "$tmp/cw" >/dev/null 2>"$tmp/g1.err" & p1=$!
    "$strata" gen --size 512x512 --seed 7 -o "$tmp/cw" >/dev/null 2>"$tmp/g2.err" & p2=$!
    wait $p1; s1=$?
    wait $p2; s2=$?
    for k in 1 2; do
        s=$([ $k -eq 1 ] && echo $s1 || echo $s2)
        if [ "$s" -ne 0 ] && ! { [ "$s" -eq 2 ] && grep -q "is being saved by process" "$tmp/g$k.err"; }; then
            fail "round $round: gen $k: status $s: $(cat "$tmp/g$k.err")"
        fi
    done
    w=$(size_of "$tmp/cw")
    if [ "$w" = 256 ] || [ "$w" = 512 ]; then pass; else
        fail "round $round: after two concurrent gens the world does not load: $("$strata" info "$tmp/cw" 2>&1 | head -2)"; fi
    leftovers=$(ls "$tmp/cw" | grep -v -x -e world.ini -e output.vmc -e harmony.pal -e output.vpr)
    [ -z "$leftovers" ] && pass || fail "round $round: files left over: $leftovers"
done

# A writer holding the lock: another one is refused with one line, and the world is untouched.
"$strata" gen --size 256x256 -o "$tmp/lk" >/dev/null 2>&1
before=$(cksum <"$tmp/lk/output.vmc")
exec 9>>"$tmp/lk/world.lock" # this shell holds the lock, as a running save would
flock -n 9 || fail "cannot take the test's own lock"
"$strata" gen --size 512x256 -o "$tmp/lk" >/dev/null 2>"$tmp/err" 9>&-
status=$?
exec 9>&-
if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "is being saved by another process" "$tmp/err" &&
    [ "$(cksum <"$tmp/lk/output.vmc")" = "$before" ]; then pass
else fail "a held lock: status $status: $(cat "$tmp/err")"; fi
# a lock file of a process that is gone is taken over
sh -c 'exit 0' & dead=$!
wait $dead
echo "$dead" > "$tmp/lk/world.lock"
if "$strata" gen --size 512x256 -o "$tmp/lk" >/dev/null 2>"$tmp/err" && [ "$(size_of "$tmp/lk")" = 512 ] &&
    [ ! -e "$tmp/lk/world.lock" ]; then pass; else fail "a stale lock: $(cat "$tmp/err")"; fi

# The map's CRC-32: a flipped bit is an error naming the map; a world.ini without the record loads with one
# warning.
"$strata" gen --size 256x256 -o "$tmp/crc" >/dev/null 2>&1
size=$(stat -c %s "$tmp/crc/output.vmc")
printf '\377' | dd of="$tmp/crc/output.vmc" bs=1 seek=$((size - 300)) conv=notrunc status=none
"$strata" info "$tmp/crc" >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "CRC-32" "$tmp/err"; then pass; else
    fail "a flipped map byte: status $status: $(cat "$tmp/err")"; fi
"$strata" gen --size 256x256 -o "$tmp/nocrc" >/dev/null 2>&1
sed -i '/^\[Strata\]/,$d' "$tmp/nocrc/world.ini"
"$strata" info "$tmp/nocrc" >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 0 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "warning: .*no checksum" "$tmp/err"; then pass
else fail "a world.ini without a checksum: status $status: $(cat "$tmp/err")"; fi

# Writes that fail part way (a file-size limit of 64 KiB makes every larger write fail with EFBIG, as a full
# disk fails with ENOSPC): one line that names the cause, status 1 (the machine's failure, not a bad input), and
# nothing of the run left behind.
limited() { (trap '' XFSZ; ulimit -f 64; "$strata" "$@"); }
limited gen --size 1024x1024 -o "$tmp/full/a/b" >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "File too large" "$tmp/err" &&
    [ ! -e "$tmp/full" ]; then pass
else fail "gen on a full disk: status $status, left: $(ls -R "$tmp/full" 2>/dev/null | tr '\n' ' '): $(cat "$tmp/err")"; fi
"$strata" gen --size 1024x1024 -o "$tmp/big" >/dev/null 2>&1
limited render --world "$tmp/big" --size 320x200 -o "$tmp/full.png" >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "File too large" "$tmp/err" &&
    [ ! -e "$tmp/full.png" ] && ! ls "$tmp"/full.png.tmp* >/dev/null 2>&1; then pass
else fail "render on a full disk: status $status: $(cat "$tmp/err")"; fi
limited convert "$tmp/big" "$tmp/fullpngs" --to pngs >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "File too large" "$tmp/err" &&
    ! grep -q "PNG encoding failed" "$tmp/err" && [ ! -e "$tmp/fullpngs" ]; then pass
else fail "a PNG set on a full disk: status $status, left: $(ls "$tmp/fullpngs" 2>/dev/null | tr '\n' ' '): $(cat "$tmp/err")"; fi
mkdir -p "$tmp/fullpngs2"
limited convert "$tmp/big" "$tmp/fullpngs2" --to pngs >/dev/null 2>"$tmp/err"
[ -z "$(ls "$tmp/fullpngs2")" ] && pass || fail "a PNG set on a full disk left $(ls "$tmp/fullpngs2" | tr '\n' ' ')"
"$strata" convert "$tmp/big" "$tmp/bigpngs" --to pngs >/dev/null 2>&1
limited convert "$tmp/bigpngs" "$tmp/fullworld" >/dev/null 2>"$tmp/err"
status=$?
if [ "$status" -eq 1 ] && grep -q "File too large" "$tmp/err" && [ ! -e "$tmp/fullworld" ]; then pass
else fail "convert to a world on a full disk: status $status: $(cat "$tmp/err")"; fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
