#!/bin/sh
# scripts/ctest-skips.sh BUILD - after ctest: why each skipped test skipped.
# ctest --output-on-failure prints nothing for a skip (exit 77); a test that
# skips says why on a line starting with "skip" or "SKIP", which this prints
# next to the test's name.  Never fails.
log="${1:-build}/Testing/Temporary/LastTest.log"
[ -r "$log" ] || exit 0
awk '
/^[0-9]+\/[0-9]+ Testing: / { name = $3; reason = "" }
/^(skip|SKIP)[: ]/ { reason = reason (reason ? " | " : "") $0 }
/^Test Passed\./ && reason != "" { last[name] = reason }
/^"[^"]+" end time/ { reason = "" }
END {
	n = 0
	for (t in last) n++
	if (n == 0) exit
	print "Why tests were skipped:"
	for (t in last) printf "  %s: %s\n", t, last[t]
}' "$log"
exit 0
