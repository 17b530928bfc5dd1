#!/usr/bin/env bash
# strata bench lod --table on lavapipe at a tiny size: the lab's table of a generated store (triangles against τ with
# the fitted exponent, skirts, resident tiles at cruise within the derived bound, the hitch flights without holes,
# the depth-precision onsets near their predictions) in Markdown and JSON, and bad input for it.
source "$(dirname "${BASH_SOURCE[0]}")/lib_cli.sh" "$1"

world=gen:4:513x513
printf 'start 0.4 0.4\nheading 45\nfps 20\nspeed 300\nheight 60\nfly 1\n' >"$tmp/cruise.flight"
"$strata" bench lod --table --world "$world" --size 64x40 --path "$tmp/cruise.flight" --slow-load 20 \
    -o "$tmp/table.md" >"$tmp/out" 2>"$tmp/err"
check "table: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "table: both files" test -s "$tmp/table.md" -a -s "$tmp/table.json"
for section in "Triangles against τ" "Skirts" "Resident tiles at cruise" "Hitch with slow loads" "Depth precision"; do
    check "table: section $section" grep -q "## $section" "$tmp/table.md"
done
check "table: figures" python3 -c "
import json, math, sys
r = json.load(open(sys.argv[1]))
assert r['kind'] == 'lod-lab'
t = r['triangles_vs_tau']
assert [x['tau_px'] for x in t] == [0.5, 1, 2, 4, 8]
assert all(x['triangles'] > 0 for x in t)
assert t[-1]['triangles'] <= t[0]['triangles']
assert math.isfinite(r['exponent']) and r['exponent'] < 0
s = r['skirts']
assert 0 < s['ratio_mean'] <= 8 / r['grid'] + 1e-9 and s['predicted'] == 4 / r['grid']
c = r['cruise']
assert 0 < c['resident_median'] <= c['bound'], c
assert all(h['hole_px'] == 0 for h in r['hitch'])
assert [h['slow_load_ms'] for h in r['hitch']] == [0, 20]
d = r['depth_precision']
for o in d['onsets']:
    s = o['gap_m']
    std, rev = o['standard_onset_m'], o['reverse_onset_m']
    assert 0.5 < std / math.sqrt(s * d['near_m'] * 2**24) < 2, o
    assert 0.5 < rev / (s * 2**23) < 2, o
    assert rev > 100 * std
assert r['validation_messages'] == 0
" "$tmp/table.json"
"$strata" bench lod --table --world "$world" --size 64x40 --no-flights --no-depth --taus 1,2,4 -o "$tmp/cpu.md" \
    >"$tmp/out" 2>"$tmp/err"
check "table on the CPU alone: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "table on the CPU alone: no flight sections" sh -c "! grep -q 'Resident tiles' '$tmp/cpu.md' && ! grep -q 'Depth' '$tmp/cpu.md'"

# the clipmap's CPU frame: per view its levels, footprints and triangles, and the flight's update
"$strata" bench lod --world "$world" --method clipmap --size 64x40 --repeat 2 --frames 20 >"$tmp/out" 2>"$tmp/err"
check "bench lod --method clipmap: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "bench lod --method clipmap: every view" sh -c "test \$(grep -c 'footprints .* M triangles: median' '$tmp/out') -eq 12"
check "bench lod --method clipmap: the flight" grep -q "flight at 300 m/s (20 frames): median .* samples updated per frame" "$tmp/out"
check "bench lod --method clipmap: the verdict" grep -q "^target: median clipmap CPU frame" "$tmp/out"
# the selection on the CPU, then on the GPU (cdlod --lod-select gpu): every view and the flight, its nodes those of
# the CPU's selection of the same view
"$strata" bench lod --world "$world" --size 64x40 --repeat 2 --frames 4 --validate >"$tmp/out" 2>"$tmp/err"
check "bench lod, both selections: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
check "bench lod: the CPU's verdict" grep -q "^target: median CDLOD selection" "$tmp/out"
check "bench lod: the GPU selection of every view" sh -c "test \$(grep -c ' nodes (CPU [0-9]*) .* GPU median' '$tmp/out') -eq 12"
check "bench lod: the GPU's nodes are the CPU's" awk '/ nodes \(CPU / { n++; c = $5; sub(/\)/, "", c); if ($2 != c) bad++ }
    END { exit !(n == 12 && !bad) }' "$tmp/out"
check "bench lod: the GPU's widenings are the CPU's" awk '/ nodes \(CPU / { n++; c = $12; sub(/\):/, "", c);
    if ($9 != "widened" || $10 != c) bad++ } END { exit !(n == 12 && !bad) }' "$tmp/out"
check "bench lod: the GPU selection's flight" grep -q "flight at 300 m/s (4 frames): GPU median" "$tmp/out"
check "bench lod: the coarse levels the CPU walks for the pass, per view" \
    sh -c "test \$(grep -c 'GPU median .*; CPU levels [0-9]*\\.\\.[0-9]*, the pass [0-9]*\\.\\.0, their walk [0-9.]* ms; pass + walk' '$tmp/out') -eq 12"
check "bench lod: the coarse walk timed on the CPU, per view" \
    sh -c "test \$(grep -c \"the GPU selection's coarse walk, levels [0-9]*\\.\\.[0-9]* on the CPU: median\" '$tmp/out') -eq 12"
check "bench lod: the flight's frames by widenings" grep -Eq "^    frames by widenings:( [0-8]: [0-9]+)+$" "$tmp/out"
check "bench lod: the GPU's verdict" grep -q "^target: median GPU CDLOD selection" "$tmp/out"
"$strata" render --world "$world" --size 64x40 --skirts --lod-select gpu -o "$tmp/gpu.png" >/dev/null 2>"$tmp/err"
check "render --lod-select gpu: exit 0 ($(head -c 300 "$tmp/err"))" test $? -eq 0
"$strata" render --world "$world" --size 64x40 --skirts --lod-select cpu -o "$tmp/cpu.png" >/dev/null 2>"$tmp/err"
check "render with either selection: the same picture" cmp -s "$tmp/gpu.png" "$tmp/cpu.png"
expect_error "--lod-select gpu for cdlod-compute" render --world "$world" --size 64x40 --method cdlod-compute \
    --lod-select gpu -o "$tmp/x.png"
expect_error "--lod-select gpu for the clipmap" view --world "$world" --headless --frames 1 --method clipmap --lod-select gpu
expect_error "--lod-select for the table" bench lod --table --world "$world" --lod-select gpu -o "$tmp/t.md"
expect_error "a bad --lod-select" bench lod --world "$world" --lod-select fpga
expect_error "a bad --lod-cpu-levels" bench lod --world "$world" --lod-cpu-levels 2,99
expect_error "--lod-cpu-levels for the clipmap" bench lod --world "$world" --method clipmap --lod-cpu-levels 2
expect_error "an unknown view" bench lod --world "$world" --views horizon-1,nowhere
expect_error "GPU options for the CPU selection alone" bench lod --world "$world" --lod-select cpu --gpu-slots 64
expect_error "clipmap options for cdlod's selection" bench lod --world "$world" --clip-n 63
expect_error "a method of levels" bench lod --world "$world" --method ray

expect_error "table without -o" bench lod --table --world "$world"
expect_error "table into a non-Markdown file" bench lod --table --world "$world" -o "$tmp/t.txt"
expect_error "table into a missing folder" bench lod --table --world "$world" -o "$tmp/none/t.md"
expect_error "one τ" bench lod --table --world "$world" --taus 1 -o "$tmp/t.md"
expect_error "a bad τ" bench lod --table --world "$world" --taus 1,x -o "$tmp/t.md"
expect_error "table options without --table" bench lod --world "$world" --slow-load 5
expect_error "a flight that is not there" bench lod --table --world "$world" --path "$tmp/none.flight" -o "$tmp/t.md"
check "nothing written by failures" test ! -e "$tmp/t.md" -a ! -e "$tmp/t.json"

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
