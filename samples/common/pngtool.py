#!/usr/bin/env python3
"""Screenshot checks for ./dev test's samples suite, standard library only
(zlib): reads the 8-bit RGB/RGBA non-interlaced PNGs the samples write.

  pngtool.py check FILE          prints "WxH, N colours, luma stddev S";
                                 exit 1 when the image is blank (one colour,
                                 or a luma standard deviation below 2)
  pngtool.py shrink FILE OUT K   writes OUT: FILE scaled down by K (box
                                 average), RGB, best-effort small (README images)
"""
import struct
import sys
import zlib


def read_png(path):
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(path + ': not a PNG')
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise ValueError('%s: only 8-bit RGB/RGBA non-interlaced PNGs (got depth %d type %d)'
                         % (path, depth, ctype))
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(b''.join(idat))
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
        rows.append(bytes(line))
        prev = line
    # RGB triples per row
    px = [[tuple(r[x * bpp:x * bpp + 3]) for x in range(w)] for r in rows]
    return w, h, px


def write_png(path, w, h, px):
    raw = bytearray()
    for row in px:
        raw.append(0)
        for p in row:
            raw.extend(p)
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + struct.pack('>I', zlib.crc32(kind + body))
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b'IDAT', zlib.compress(bytes(raw), 9)))
        f.write(chunk(b'IEND', b''))


def check(path):
    w, h, px = read_png(path)
    colours, n, s, s2 = set(), 0, 0.0, 0.0
    for row in px:
        for r, g, b in row:
            colours.add((r, g, b))
            y = 0.299 * r + 0.587 * g + 0.114 * b
            n += 1
            s += y
            s2 += y * y
    sd = max(0.0, s2 / n - (s / n) ** 2) ** 0.5
    print('%s: %dx%d, %d colours, luma stddev %.1f' % (path, w, h, len(colours), sd))
    return 0 if len(colours) > 1 and sd >= 2 else 1


def shrink(path, out, k):
    w, h, px = read_png(path)
    ow, oh = w // k, h // k
    res = []
    for oy in range(oh):
        row = []
        for ox in range(ow):
            acc = [0, 0, 0]
            for dy in range(k):
                src = px[oy * k + dy]
                for dx in range(k):
                    p = src[ox * k + dx]
                    acc[0] += p[0]; acc[1] += p[1]; acc[2] += p[2]
            row.append(tuple(v // (k * k) for v in acc))
        res.append(row)
    write_png(out, ow, oh, res)
    return 0


if __name__ == '__main__':
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == 'check':
        sys.exit(check(a[1]))
    if len(a) == 4 and a[0] == 'shrink':
        sys.exit(shrink(a[1], a[2], int(a[3])))
    sys.exit(__doc__)
