#!/usr/bin/env bash
# strata bench upload on lavapipe (validation on from ctest): a small run prints every section and the CPU-adapter
# verdict, --json is one well-formed object with positive rates, and bad options give one line and status 2.
set -u
strata="$1"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
passes=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
pass() { passes=$((passes + 1)); }

small=(--tiles 8 --repeat 2 --sweep 1,8)

"$strata" bench upload "${small[@]}" >"$tmp/out" 2>"$tmp/err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "text run: status $status, stderr: $(head -c 300 "$tmp/err")"
else
    for want in "staging memory" "batch sweep" "bus, plain copies" "verdict: not measured: cpu adapter" "context: about 51 GiB/s"; do
        if grep -q "$want" "$tmp/out"; then pass; else fail "text run lacks '$want'"; fi
    done
    if [ -s "$tmp/err" ]; then fail "text run wrote to stderr: $(head -c 300 "$tmp/err")"; else pass; fi
fi

"$strata" bench upload "${small[@]}" --memory cached --json >"$tmp/out.json" 2>"$tmp/err"
status=$?
if [ "$status" -ne 0 ]; then
    fail "json run: status $status, stderr: $(head -c 300 "$tmp/err")"
elif python3 - "$tmp/out.json" <<'PY'
import json, sys
o = json.load(open(sys.argv[1]))
assert o["timing"] == "cpu", o["timing"]
assert o["tiles_per_batch"] == 8 and o["tile_size"] == 257
runs = o["runs"]
assert [r["encoding"] for r in runs] == ["u16", "f32"], runs
for r in runs:
    assert r["memory_requested"] == "cached"
    assert r["batch_bytes"] == 8 * r["tile_bytes"]
    assert r["tile_bytes"] == 257 * 257 * (2 if r["encoding"] == "u16" else 4)
    for k in ("fill_gibs", "end_to_end_gibs", "streamed_gibs"):
        assert r[k] > 0, (k, r)
    assert r["gpu_copy_gibs"] is None  # no GPU timestamps on a CPU adapter
assert [s["tiles"] for s in o["sweep"]] == [1, 8]
assert all(s["end_to_end_gibs"] > 0 for s in o["sweep"])
bus = o["bus"]
assert len(bus) == 4 and bus[0]["available"] and bus[0]["wall_gibs"] > 0
assert o["verdict"]["pass"] is None and "not measured" in o["verdict"]["text"]
PY
then pass; else fail "json run: unexpected content: $(head -c 600 "$tmp/out.json")"; fi

for args in "--tiles 0" "--tiles 100000" "--tiles many" "--repeat 0" "--sweep 0" "--sweep 1,,x" "--sweep 4096" \
    "--memory fast" "--device 99" "--frobnicate" "extra"; do
    # shellcheck disable=SC2086
    "$strata" bench upload $args >"$tmp/out" 2>"$tmp/err"
    status=$?
    if [ "$status" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then pass; else
        fail "bench upload $args: status $status, stderr: $(head -c 300 "$tmp/err")"; fi
done

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
