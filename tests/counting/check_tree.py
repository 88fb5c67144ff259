#!/usr/bin/env python3
"""tests/counting/check_tree.py - check facts in `hyprof report --json`.

usage: check_tree.py REPORT.json FACT...
  PATH=N            calls on the call path (names joined by '/', summed over
                    merged nodes of that path), e.g. main/a/b=6; a path from
                    the root, or from the first instrumented function (the
                    frames a sample put above it left out)
  flat:NAME=N       calls of function NAME in the flat profile
  folded:PATH       the node is marked folded
  excluded:PATH     the node is marked excluded (or, if absent from the tree,
                    the function is listed as excluded in the counting section)
  absent:PATH       no such path
  mode=STR          the report's mode string
  nocalls:PATH      calls is null (no probe ran)
Prints every failed fact with what was found; exit 1 if any failed.
"""
import json
import sys


def walk(node, prefix, out, probe=None):
    """Each node under its path from the root, and also under its probe
    path: the path from its first instrumented ancestor (calls not null).
    In hybrid mode a thread that took a sample hangs its probe paths under
    the sampled frames above them (_start/.../main, start_thread/worker);
    one that took none has them at the root.  Which happens is chance, the
    counts are not: facts name probe paths."""
    for ch in node.get("children", []):
        p = prefix + [ch["name"]]
        q = probe + [ch["name"]] if probe is not None else ([ch["name"]] if ch.get("calls") is not None else None)
        out.setdefault("/".join(p), []).append(ch)
        if q is not None and q != p:
            out.setdefault("/".join(q), []).append(ch)
        walk(ch, p, out, q)


def main():
    rep = json.load(open(sys.argv[1]))
    paths = {}
    walk(rep["tree"], [], paths)
    flat = {f["name"]: f for f in rep.get("functions", [])}
    bad = 0
    for fact in sys.argv[2:]:
        ok, got = True, None
        if fact.startswith("flat:"):
            name, want = fact[5:].split("=")
            got = flat.get(name, {}).get("calls")
            ok = got == int(want)
        elif fact.startswith("folded:"):
            nodes = paths.get(fact[7:], [])
            got = [n.get("folded") for n in nodes]
            ok = any(n.get("folded") for n in nodes)
        elif fact.startswith("excluded:"):
            nodes = paths.get(fact[9:], [])
            got = [n.get("excluded") for n in nodes]
            ok = any(n.get("excluded") for n in nodes)
        elif fact.startswith("absent:"):
            got = fact[7:] in paths
            ok = not got
        elif fact.startswith("nocalls:"):
            nodes = paths.get(fact[8:], [])
            got = [n.get("calls") for n in nodes]
            ok = bool(nodes) and all(n.get("calls") is None for n in nodes)
        elif fact.startswith("mode="):
            got = rep.get("mode")
            ok = got == fact[5:]
        else:
            path, want = fact.rsplit("=", 1)
            nodes = paths.get(path)
            got = sum(n.get("calls") or 0 for n in nodes) if nodes else None
            ok = got == int(want)
        if not ok:
            bad += 1
            print("FAIL %-40s found %r" % (fact, got))
    if bad:
        print("%d of %d facts failed; paths seen:" % (bad, len(sys.argv) - 2))
        for p in sorted(paths):
            print("   %s calls=%s" % (p, [n.get("calls") for n in paths[p]]))
        return 1
    print("ok: %d facts" % (len(sys.argv) - 2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
