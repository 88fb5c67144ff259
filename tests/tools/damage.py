#!/usr/bin/env python3
"""tests/tools/damage.py - damage a hyprof profile behind a valid checksum.

    damage.py FILE OP...

Rewrites FILE's sections (docs/FORMAT.md) and writes a new trailer (CRC and
length), so the damage reaches the parts of the readers that run after the
checksum: the inputs a bug in a writer, or a hand-made file, would give.
OPs, applied in order:

    add TYPE FMT V...          append a section: struct.pack("<" + FMT, V...)
    addkv TYPE KEY=I64...      append a key-value section of i64 values
    set TYPE OFF FMT V...      overwrite the first TYPE section at OFF
    drop TYPE                  remove every TYPE section
    chain 4 N sample|probe     the first THREAD's trees become one path of
                               N nodes in that tree (keys: the thread's
                               first sample key, +0/+1/+2)

Numbers are Python literals (0x80000000, -1, 1e308, nan).
"""
import struct
import sys
import zlib

HDR, SEC, TRL = 16, 16, 32
TRAILER = 0x7FFFFFFF
NODE = 128  # struct cct_node
NONE = 0xFFFFFFFF  # CCT_NONE


def parse(b):
    secs, off, end = [], HDR, len(b) - TRL
    while off < end:
        typ, flags, ln = struct.unpack_from("<IIQ", b, off)
        secs.append([typ, flags, bytearray(b[off + SEC : off + SEC + ln])])
        off += SEC + ln
    return bytearray(b[:HDR]), secs


def build(hdr, secs):
    out = bytearray(hdr)
    for typ, flags, data in secs:
        out += struct.pack("<IIQ", typ, flags, len(data)) + data
    crc = zlib.crc32(bytes(out)) & 0xFFFFFFFF
    return out + struct.pack("<IIQIIQ", TRAILER, 0, 16, crc, 0, len(out) + TRL)


def num(s):
    return float(s) if any(c in s for c in ".en") and not s.startswith("0x") else int(s, 0)


def kv_i64(key, v):
    k = key.encode()
    return struct.pack("<HBBI", len(k), 4, 0, 8) + k + struct.pack("<q", v)


def chain(d, n, tree):
    kvlen = struct.unpack_from("<I", d, 0)[0]
    ns = struct.unpack_from("<I", d, 4 + kvlen)[0]
    at = 4 + kvlen + 8
    key = struct.unpack_from("<Q", d, at + NODE)[0] if ns > 1 else 0x1000
    out = bytearray(d[: 4 + kvlen])
    out += struct.pack("<II", n, 0) if tree == "sample" else struct.pack("<II", 0, n)
    flags = 0 if tree == "sample" else 1  # CCT_F_PROBE
    for i in range(n):
        parent = NONE if i == 0 else i - 1
        child = i + 1 if i + 1 < n else NONE
        k = 0 if i == 0 else key + i % 3
        node = struct.pack("<QIIIIII", k, parent, child, NONE, flags, 0, 0)
        node += struct.pack("<QQQ", 1, 1000000, flags)
        out += node + bytes(NODE - len(node))
    return out


def main(argv):
    path, ops = argv[1], argv[2:]
    with open(path, "rb") as f:
        hdr, secs = parse(f.read())
    i = 0
    while i < len(ops):
        op, typ = ops[i], int(ops[i + 1], 0)
        i += 2
        if op in ("add", "set"):
            off = 0
            if op == "set":
                off = int(ops[i], 0)
                i += 1
            fmt = "<" + ops[i]
            n = len(struct.unpack(fmt, bytes(struct.calcsize(fmt))))
            data = struct.pack(fmt, *[num(v) for v in ops[i + 1 : i + 1 + n]])
            i += 1 + n
            if op == "add":
                secs.append([typ, 0, bytearray(data)])
            else:
                d = next(s[2] for s in secs if s[0] == typ)
                d[off : off + len(data)] = data
        elif op == "addkv":
            data = bytearray()
            while i < len(ops) and "=" in ops[i]:
                k, v = ops[i].split("=", 1)
                data += kv_i64(k, int(v, 0))
                i += 1
            secs.append([typ, 0, data])
        elif op == "chain":
            n, tree = int(ops[i], 0), ops[i + 1]
            i += 2
            s = next(s for s in secs if s[0] == typ)
            s[2] = chain(s[2], n, tree)
        elif op == "drop":
            secs = [s for s in secs if s[0] != typ]
        else:
            sys.exit("damage.py: unknown op " + op)
    with open(path, "wb") as f:
        f.write(build(hdr, secs))


main(sys.argv)
