# SPDX-License-Identifier: GPL-2.0-or-later
"""A small PNG decoder (8-bit greyscale/RGB/RGBA, not interlaced), enough to
check the pixels rsvg-convert renders, without a third-party imaging library.
"""
import struct
import zlib


class Png:
    def __init__(self, width, height, channels, rows):
        self.width, self.height, self.channels, self.rows = width, height, channels, rows

    def rgb(self, x, y):
        """(r, g, b) at pixel x, y."""
        row, c = self.rows[y], self.channels
        px = row[x * c:(x + 1) * c]
        return tuple(px[:3]) if c >= 3 else (px[0],) * 3


def _paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c


def read(path):
    """Decode path; raises ValueError on what it does not handle."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError('%s: not a PNG file' % path)
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != struct.unpack('>I', data[pos + 8 + n:pos + 12 + n])[0]:
            raise ValueError('%s: bad CRC in %s chunk' % (path, kind))
        if kind == b'IHDR':
            ihdr = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
        pos += 12 + n
    if not ihdr:
        raise ValueError('%s: no IHDR' % path)
    w, h, depth, ctype, _, _, interlace = ihdr
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(ctype)
    if depth != 8 or channels is None or interlace:
        raise ValueError('%s: depth %d colour type %d interlace %d not handled' %
                         (path, depth, ctype, interlace))
    raw = zlib.decompress(b''.join(idat))
    stride, bpp = w * channels, channels
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + ((a + b) >> 1)) & 0xff
            elif ftype == 4:
                line[i] = (line[i] + _paeth(a, b, c)) & 0xff
            elif ftype != 0:
                raise ValueError('%s: filter type %d' % (path, ftype))
        rows.append(line)
        prev = line
    return Png(w, h, channels, rows)
