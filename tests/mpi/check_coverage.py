#!/usr/bin/env python3
"""tests/mpi/check_coverage.py MPI_H WRAPPERS_W - every entry point that moves
a message or completes a request is wrapped.

Once messages carry a piggyback, one point-to-point call that bypasses the
wrappers would send a message without it (or misread one), so this checks
the MPI in use: every function of mpi.h that sends, receives or probes (by
name, or with an `int tag` parameter), starts or completes requests
(Start*, Wait*, Test*, Request_free, Request_get_status) or attaches the
buffered-mode buffer must have its %fn line in the template.  MPI-4's
(Isendrecv, partitioned, the large-count MPI_X_c) are checked where the MPI
declares them: MPICH 4 does.  Prints what is missing; exit 1 if anything is.
"""
import os
import re
import sys


def read_header(path, depth=0):
    """The header's text with the headers it includes from its own directory
    (MPICH's mpi.h has its prototypes in mpi_proto.h)."""
    text = open(path).read()
    if depth < 3:
        here = os.path.dirname(path)
        for inc in re.findall(r'^\s*#\s*include\s+["<]([^">]+)[">]', text, re.M):
            p = os.path.join(here, inc)
            if os.path.isfile(p):
                text += "\n" + read_header(p, depth + 1)
    return text


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    hdr = read_header(sys.argv[1])
    # a prototype may end in attributes (MPICH: MPICH_API_PUBLIC, ...)
    decl = re.findall(r'int\s+(MPI_\w+)\s*\(([^;]*?)\)(?:\s+\w+(?:\([^;()]*\))?)*\s*;', hdr, re.S)
    if not decl:
        print("FAIL: no MPI prototypes found in %s" % sys.argv[1])
        return 1
    need = set()
    for name, params in decl:
        if (re.search(r'send|recv|probe', name, re.I) or re.search(r'\bint\s+tag\b', params) or
                re.match(r'MPI_(Start|Startall|Wait\w*|Test\w*|Request_free|Request_get_status|'
                         r'Buffer_attach|Buffer_detach)$', name)):
            need.add(name)
    # completion calls that do not complete point-to-point requests
    need -= {"MPI_Test_cancelled"}
    tpl = open(sys.argv[2]).read()
    have = set(re.findall(r'^%fn\s+\w+\s+(?:nofortran\s+)?(?:if=\w+\s+)?int\s+(MPI_\w+)\(', tpl, re.M))
    missing = sorted(need - have)
    for m in missing:
        print("FAIL: %s moves or completes messages but is not in %s" % (m, sys.argv[2]))
    print("%d entry points of %s checked, %d missing" % (len(need), sys.argv[1], len(missing)))
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
