#!/usr/bin/env python3
"""tests/mpi/check_coverage.py MPI_H WRAPPERS_W - every entry point that moves
a message or completes a request is wrapped.

Once messages carry a piggyback, one point-to-point call that bypasses the
wrappers would send a message without it (or misread one), so this checks
the MPI in use: every function of mpi.h that sends, receives or probes (by
name, or with an `int tag` parameter), starts or completes requests
(Start*, Wait*, Test*, Request_free, Request_get_status) or attaches the
buffered-mode buffer must have its %fn line in the template.  Prints what
is missing; exit 1 if anything is.
"""
import re
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    hdr = open(sys.argv[1]).read()
    decl = re.findall(r'int\s+(MPI_\w+)\s*\(([^;]*?)\)\s*;', hdr, re.S)
    need = set()
    for name, params in decl:
        if (re.search(r'send|recv|probe', name, re.I) or re.search(r'\bint\s+tag\b', params) or
                re.match(r'MPI_(Start|Startall|Wait\w*|Test\w*|Request_free|Request_get_status|'
                         r'Buffer_attach|Buffer_detach)$', name)):
            need.add(name)
    # completion calls that do not complete point-to-point requests
    need -= {"MPI_Test_cancelled"}
    tpl = open(sys.argv[2]).read()
    have = set(re.findall(r'^%fn\s+\w+\s+(?:nofortran\s+)?int\s+(MPI_\w+)\(', tpl, re.M))
    missing = sorted(need - have)
    for m in missing:
        print("FAIL: %s moves or completes messages but is not in %s" % (m, sys.argv[2]))
    print("%d entry points of %s checked, %d missing" % (len(need), sys.argv[1], len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
