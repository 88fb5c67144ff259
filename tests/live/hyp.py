#!/usr/bin/env python3
"""tests/live/hyp.py - facts from one hyprof profile file (docs/FORMAT.md),
read with a minimal reader of the documented format (magic, trailer, CRC,
sections, key-value blocks), for the live tests' shell scripts.

Usage: hyp.py FILE FACT...   prints one line per fact:
  meta.KEY, live.KEY, cost.KEY   a key of META, LIVE (9) or COST (6), "" if absent
  threads                        THREAD sections
  thread_names                   their names, comma-separated
  samples                        samples summed over threads
  dropped.REASON                 summed over threads
  sections                       section types, comma-separated
  sample_nodes                   sample-tree nodes summed over threads
Exits 1 with a one-line reason if the file is not a whole profile."""
import struct
import sys
import zlib

SEC_META, SEC_THREAD, SEC_COST, SEC_LIVE, TRAILER = 1, 4, 6, 9, 0x7FFFFFFF


def kv(d):
    out, o = {}, 0
    while o < len(d):
        kl, t, _, vl = struct.unpack_from("<HBBI", d, o)
        k = d[o + 8:o + 8 + kl].decode()
        v = d[o + 8 + kl:o + 8 + kl + vl]
        if t == 1:
            out[k] = v.decode(errors="replace")
        elif t == 2:
            out[k] = struct.unpack("<Q", v)[0]
        elif t == 3:
            out[k] = struct.unpack("<d", v)[0]
        elif t == 4:
            out[k] = struct.unpack("<q", v)[0]
        o += 8 + kl + vl
    return out


def read(path):
    b = open(path, "rb").read()
    if b[:8] != b"HYPROF\r\n":
        raise ValueError("bad magic")
    typ, _, ln, crc, _, flen = struct.unpack("<IIQIIQ", b[-32:])
    if typ != TRAILER or ln != 16 or flen != len(b):
        raise ValueError("no trailer or wrong length")
    if zlib.crc32(b[:-32]) != crc:
        raise ValueError("checksum mismatch")
    secs, off = [], 16
    while off < len(b) - 32:
        typ, _, ln = struct.unpack_from("<IIQ", b, off)
        secs.append((typ, b[off + 16:off + 16 + ln]))
        off += 16 + ln
    return secs


def facts(path):
    secs = read(path)
    f = {"sections": ",".join(str(t) for t, _ in secs), "threads": 0, "samples": 0,
         "sample_nodes": 0}
    names = []
    firsts = {}
    for t, d in secs:
        if t in (SEC_META, SEC_COST, SEC_LIVE) and t not in firsts:
            firsts[t] = kv(d)
        if t == SEC_THREAD:
            kl = struct.unpack_from("<I", d, 0)[0]
            k = kv(d[4:4 + kl])
            ns, _np = struct.unpack_from("<II", d, 4 + kl)
            f["threads"] += 1
            f["samples"] += k.get("samples", 0)
            f["sample_nodes"] += ns
            names.append(k.get("name", ""))
            for key, v in k.items():
                if key.startswith("dropped."):
                    f[key] = f.get(key, 0) + v
    f["thread_names"] = ",".join(names)
    for t, prefix in ((SEC_META, "meta."), (SEC_COST, "cost."), (SEC_LIVE, "live.")):
        for key, v in firsts.get(t, {}).items():
            f[prefix + key] = v
    return f


def main():
    if len(sys.argv) < 3:
        print(__doc__.splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        f = facts(sys.argv[1])
    except (OSError, ValueError, struct.error) as e:
        print(f"hyp.py: {sys.argv[1]}: {e}", file=sys.stderr)
        return 1
    for name in sys.argv[2:]:
        print(f.get(name, ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
