#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Write a 4 KiB zonefs super block (what mkzonefs would put in zone 0).

Layout (fs/zonefs/zonefs.h, struct zonefs_super): le32 magic, le32 crc,
64-byte label, 16-byte uuid, le64 features, le32 uid, gid, perm, padding to
4096 bytes. The kernel checks crc32(~0, block with crc = 0) without the final
inversion, which is binascii.crc32(...) ^ 0xffffffff.
"""
import binascii
import struct
import sys

ZONEFS_MAGIC = 0x5A4F4653


def super_block(label: bytes = b"npo2-test") -> bytes:
    body = struct.pack("<II64s16sQIII", ZONEFS_MAGIC, 0, label,
                       bytes(range(16)), 0, 0, 0, 0)
    block = body + bytes(4096 - len(body))
    crc = binascii.crc32(block) ^ 0xFFFFFFFF
    return block[:4] + struct.pack("<I", crc) + block[8:]


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: zonefs-sb.py OUTPUT")
    with open(sys.argv[1], "wb") as f:
        f.write(super_block())
