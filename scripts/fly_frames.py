#!/usr/bin/env python3
"""What makes a flight's slow frames slow: reads a fly.json (strata fly) and prints, for the GPU and the whole
frame, the median and p99, the p99 of each frame over the median of the 61 frames around it (a hitch shows there;
a stretch of costlier views does not), and how often the slow frames (over 1.5x the median) had uploads, missing
pages or a dig against all frames; then the 12 slowest frames. Usage: fly_frames.py FLY.json"""
import json
import sys


def pct(xs, q):
    s = sorted(xs)
    return s[min(len(s) - 1, int(q * (len(s) - 1) + 0.5))] if s else float("nan")


def main():
    doc = json.load(open(sys.argv[1]))
    f = doc["per_frame"]
    n = len(f["gpu_ms"])
    col = lambda k: [(v if v is not None else float("nan")) for v in f.get(k, [0] * n)]
    up, holes, edit = col("uploads"), col("hole_pages"), col("edit_ms")
    for name in ("gpu_ms", "frame_ms", "cpu_ms"):
        xs = col(name)
        ok = [x for x in xs if x == x]
        if not ok:
            continue
        med = pct(ok, 0.5)
        rel = []
        for i in range(n):
            w = [x for x in xs[max(0, i - 30):i + 31] if x == x]
            if xs[i] == xs[i] and w:
                rel.append(xs[i] / pct(w, 0.5))
        slow = [i for i in range(n) if xs[i] == xs[i] and xs[i] > 1.5 * med]
        share = lambda idx, c: sum(1 for i in idx if c[i] and c[i] == c[i]) / max(1, len(idx))
        print(f"{name}: median {med:.3f} p99 {pct(ok, 0.99):.3f} ({pct(ok, 0.99) / med:.2f}x); "
              f"p99 over the local median {pct(rel, 0.99):.2f}x; {len(slow)} frames over 1.5x the median")
        print(f"  with uploads: slow {share(slow, up):.2f} / all {share(range(n), up):.2f}; "
              f"with missing pages: slow {share(slow, holes):.2f} / all {share(range(n), holes):.2f}")
        top = sorted(range(n), key=lambda i: -(xs[i] if xs[i] == xs[i] else 0))[:12]
        print("  slowest: " + "; ".join(f"#{i} {xs[i]:.3f} up {up[i]:.0f} holes {holes[i]:.0f}" for i in top))


main()
