#!/usr/bin/env python3
"""tests/export/svg_check.py FLAME.svg EXPECT.JSON
   tests/export/svg_check.py FLAME.svg --names NAME...   (a real profile)

Check the flame graph SVG of the synthetic model's merged tree: it is
well-formed XML (parsed by Python's XML parser), self-contained (no external
reference), has the zoom/search script, and its frames are the model's call
paths at least 0.05% wide (the default pruning threshold), each as wide as
its inclusive time (to 0.02 px), stacked root at the bottom, children inside
their parent.  Prints one line per failure and "N passed, N failed".
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
fails = checks = 0


def check(ok, what):
    global fails, checks
    checks += 1
    if not ok:
        fails += 1
        print("FAIL: " + what)


def main():
    svg, expect = sys.argv[1], sys.argv[2]
    E = None if expect == "--names" else json.load(open(expect))
    text = open(svg, encoding="utf-8").read()
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        check(False, "well-formed XML: %s" % e)
        print("%d passed, %d failed" % (checks - fails, fails))
        return 1
    check(root.tag == NS + "svg", "root element is svg")
    check(not re.search(r'(href|src)\s*=\s*"(https?:|//)', text), "no external reference")
    check(root.find(NS + "script") is not None and "function zoom" in text, "zoom script present")
    width = float(root.get("width"))
    height = float(root.get("height"))
    pxw = width - 20

    if E is None:  # a real profile: structure only, and these names drawn
        names = set(g.get("data-n") for g in root.iter(NS + "g") if g.get("class") == "f")
        for want in sys.argv[3:]:
            check(want in names, "frame %s drawn (%d frames)" % (want, len(names)))
        print("%d passed, %d failed" % (checks - fails, fails))
        return 1 if fails else 0
    nodes = E["nodes"]
    kids = {}
    for n in nodes:
        kids.setdefault(tuple(n["path"][:-1]), []).append(n)

    def isamples(n):
        return n["samples"] + sum(isamples(k) for k in kids.get(tuple(n["path"]), []))

    total = sum(isamples(n) for n in nodes if len(n["path"]) == 1)
    keep = {}
    for n in sorted(nodes, key=lambda n: len(n["path"])):
        p = tuple(n["path"])
        if isamples(n) >= 0.0005 * total and (len(p) == 1 or p[:-1] in keep):
            keep[p] = isamples(n) / total * pxw

    frames = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        r = g.find(NS + "rect")
        t = g.find(NS + "title").text
        frames.append({"name": g.get("data-n"), "x": float(r.get("x")), "w": float(r.get("width")),
                       "y": float(r.get("y")), "title": t})
    ys = sorted(set(f["y"] for f in frames), reverse=True)
    for f in frames:
        f["depth"] = ys.index(f["y"])
        check(f["title"].startswith(f["name"]), "title of %s names it" % f["name"])
    # rebuild paths: the parent is the frame one row below whose span holds x
    paths = {}
    for f in sorted(frames, key=lambda f: f["depth"]):
        if f["depth"] == 0:
            f["path"] = (f["name"],)
        else:
            par = [q for q in frames if q["depth"] == f["depth"] - 1 and q["x"] - 0.02 <= f["x"]
                   and f["x"] + f["w"] <= q["x"] + q["w"] + 0.05]
            check(len(par) == 1, "frame %s at depth %d has one parent (%d)" % (f["name"], f["depth"], len(par)))
            if len(par) != 1:
                continue
            f["path"] = par[0]["path"] + (f["name"],)
        check(f["path"] not in paths, "path %s drawn once" % ";".join(f["path"]))
        paths[f["path"]] = f
    check(set(paths) == set(keep), "frames drawn = paths of at least 0.05%%: extra %s missing %s" % (
        sorted(set(paths) - set(keep))[:5], sorted(set(keep) - set(paths))[:5]))
    for p, w in keep.items():
        f = paths.get(p)
        if f:
            check(abs(f["w"] - w) <= 0.02, "%s width %.3f want %.3f" % (";".join(p), f["w"], w))
    print("%d passed, %d failed" % (checks - fails, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
