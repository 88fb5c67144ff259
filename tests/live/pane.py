#!/usr/bin/env python3
"""tests/live/pane.py - what a captured `hyprof watch` screen shows, as JSON.

Usage: pane.py FILE   (the output of `tmux capture-pane -p`)
Prints {"headers": N (frame headers on the screen), "counts": {...} or null,
"procs": [{"rank", "pid", "program", "state", "elapsed" (seconds),
"samples", "dropped", "top": [{"pct", "path", "leaf"}...]}...]}."""
import json
import re
import sys

ROW = re.compile(r"^(?:rank (\d+)  )?pid (\d+)  (\S+)  (running|ended|gone|exec'd)(?: \([^)]*\))?"
                 r"  elapsed (.+?)  samples (\d+) \((\d+) dropped\)")
PATH = re.compile(r"^\s+([\d.]+)%\s+\S+(?: \S+)?\s{2}(.+?)\s*$")
COUNTS = re.compile(r"^(\d+) process(?:es)?: (\d+) running, (\d+) ended, (\d+) gone")


def seconds(s):
    s = s.strip()
    m = re.fullmatch(r"([\d.]+) ms", s)
    if m:
        return float(m.group(1)) / 1e3
    m = re.fullmatch(r"([\d.]+) s", s)
    if m:
        return float(m.group(1))
    m = re.fullmatch(r"(\d+)m([\d.]+)s", s)
    if m:
        return int(m.group(1)) * 60 + float(m.group(2))
    m = re.fullmatch(r"(\d+)h(\d+)m(\d+)s", s)
    if m:
        return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    raise ValueError(f"elapsed '{s}'")


def parse(text):
    out = {"headers": 0, "counts": None, "procs": []}
    cur = None
    for line in text.splitlines():
        if line.startswith("hyprof watch  "):
            out["headers"] += 1
            continue
        m = COUNTS.match(line)
        if m:
            out["counts"] = dict(zip(("processes", "running", "ended", "gone"),
                                     map(int, m.groups())))
            continue
        m = ROW.match(line)
        if m:
            cur = {"rank": int(m.group(1)) if m.group(1) else -1, "pid": int(m.group(2)),
                   "program": m.group(3), "state": m.group(4), "elapsed": seconds(m.group(5)),
                   "samples": int(m.group(6)), "dropped": int(m.group(7)), "top": []}
            out["procs"].append(cur)
            continue
        m = PATH.match(line)
        if m and cur is not None:
            path = m.group(2)
            cur["top"].append({"pct": float(m.group(1)), "path": path,
                               "leaf": path.split(" > ")[-1]})
    return out


if __name__ == "__main__":
    print(json.dumps(parse(open(sys.argv[1]).read())))
