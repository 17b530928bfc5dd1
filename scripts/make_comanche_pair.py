#!/usr/bin/env python3
"""Makes data/comanche/height.png and color.png, a Comanche-style height map + colour map pair, from the shipped
public-domain Puget Sound DEM (data/dem/ps_height_1k.png). Deterministic: the same bytes on every run (no
randomness but a fixed integer hash, no libraries but zlib). See data/comanche/README.md for what it does.

usage: scripts/make_comanche_pair.py [SOURCE.png] [OUT_DIR]
"""
import struct
import sys
import zlib

SIDE = 256      # the pair's side: the source's first 1024x1024 samples in 4x4 blocks
BLOCK = 4
TOP_STEP = 64   # the highest point's height step: a Comanche map's relief for its side (255 over 1024)
GAMMA = 0.7     # lifts the lowlands, as hand-made Comanche maps do


def read_png(path):
    """A non-interlaced 8- or 16-bit greyscale PNG: width, height, rows of samples."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat = 8, []
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if ctype != 0 or interlace or depth not in (8, 16):
                raise SystemExit(f"{path}: want a non-interlaced 8/16-bit grey PNG")
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    bpp = depth // 8
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if bpp == 2:
            rows.append([(line[2 * i] << 8) | line[2 * i + 1] for i in range(w)])
        else:
            rows.append(list(line))
    return w, h, rows


def write_png(path, w, h, channels, pixels):
    """pixels: bytes, rows top first; 8-bit grey (1) or RGB (3); filter 0 on every row."""
    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)
    stride = w * channels
    raw = b"".join(b"\x00" + pixels[y * stride:(y + 1) * stride] for y in range(h))
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0 if channels == 1 else 2, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) +
                chunk(b"IEND", b""))


def hash01(x, y, salt):
    """A fixed integer hash of a texel, in [0, 1)."""
    v = (x * 374761393 + y * 668265263 + salt * 2246822519) & 0xFFFFFFFF
    v = ((v ^ (v >> 13)) * 1274126177) & 0xFFFFFFFF
    return ((v ^ (v >> 16)) & 0xFFFF) / 65536.0


def mix(a, b, t):
    return tuple(a[k] + (b[k] - a[k]) * t for k in range(3))


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else "data/dem/ps_height_1k.png"
    out = sys.argv[2] if len(sys.argv) > 2 else "data/comanche"
    w, h, rows = read_png(src)
    n = SIDE * BLOCK
    if w < n or h < n:
        raise SystemExit(f"{src}: {w}x{h} is smaller than {n}x{n}")
    means = [[sum(rows[by * BLOCK + j][bx * BLOCK + i] for j in range(BLOCK) for i in range(BLOCK)) / BLOCK ** 2
              for bx in range(SIDE)] for by in range(SIDE)]
    top = max(max(r) for r in means)
    # height steps: 0 only where the whole block is sea (the DEM's 0), the rest 1..TOP_STEP
    steps = [[0 if m == 0 else max(1, round(TOP_STEP * (m / top) ** GAMMA)) for m in r] for r in means]
    height = bytes(steps[y][x] for y in range(SIDE) for x in range(SIDE))
    # texels to the nearest land (a two-pass city-block distance)
    far = 2 * SIDE
    shore = [[0 if steps[y][x] else far for x in range(SIDE)] for y in range(SIDE)]
    for y in range(SIDE):
        for x in range(SIDE):
            if y: shore[y][x] = min(shore[y][x], shore[y - 1][x] + 1)
            if x: shore[y][x] = min(shore[y][x], shore[y][x - 1] + 1)
    for y in reversed(range(SIDE)):
        for x in reversed(range(SIDE)):
            if y < SIDE - 1: shore[y][x] = min(shore[y][x], shore[y + 1][x] + 1)
            if x < SIDE - 1: shore[y][x] = min(shore[y][x], shore[y][x + 1] + 1)
    colour = bytearray()
    for y in range(SIDE):
        for x in range(SIDE):
            s = steps[y][x]
            if s == 0:  # the sea: darker away from the shore
                c = mix((40, 92, 120), (14, 38, 70), min(8, shore[y][x]) / 8)
            else:
                # slope from the neighbours' steps; a baked light from the north-west, as Comanche maps have
                gx = steps[y][min(x + 1, SIDE - 1)] - steps[y][max(x - 1, 0)]
                gy = steps[min(y + 1, SIDE - 1)][x] - steps[max(y - 1, 0)][x]
                slope = min(1.0, (gx * gx + gy * gy) ** 0.5 / 4.0)
                t = s / TOP_STEP
                ground = (mix((96, 128, 58), (70, 104, 44), hash01(x // 3, y // 3, 1)) if t < 0.35 else
                          mix((70, 104, 44), (122, 106, 78), (t - 0.35) / 0.3) if t < 0.65 else
                          mix((122, 106, 78), (236, 238, 242), min(1.0, (t - 0.65) / 0.15)))
                c = mix(ground, (118, 112, 104), slope * (1.0 if t < 0.8 else 0.4))
                shade = max(0.55, min(1.15, 0.9 + (-gx - gy) / 12.0))
                grain = 0.92 + 0.16 * hash01(x, y, 2)
                c = tuple(v * shade * grain for v in c)
            colour += bytes(max(0, min(255, round(v))) for v in c)
    write_png(f"{out}/height.png", SIDE, SIDE, 1, height)
    write_png(f"{out}/color.png", SIDE, SIDE, 3, bytes(colour))
    print(f"{out}/height.png, {out}/color.png: {SIDE}x{SIDE}, height steps 0..{max(height)}")


if __name__ == "__main__":
    main()
