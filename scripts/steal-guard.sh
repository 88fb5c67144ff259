#!/bin/sh
# scripts/steal-guard.sh CMD... - run a test that judges timings, and do not
# let the hypervisor's load decide its verdict.
#
# On a VM whose host is overcommitted, /proc/stat's steal column grows (the
# host ran something else on our CPUs): timings, calibrations and the
# sampler's view of CPU time all move.  A test that passes passes.  A test
# that fails while the host took more than 3% of the CPUs is run again, up
# to three attempts; if it still fails only under steal it is skipped (exit
# 77) with the reason.  A failure on a quiet host is a failure.  Exit 77
# from the test itself (its own skip) is passed through.
steal() { awk '/^cpu / {print $9}' /proc/stat; }
hz=$(getconf CLK_TCK)
ncpu=$(getconf _NPROCESSORS_ONLN)
for attempt in 1 2 3; do
	s0=$(steal) t0=$(date +%s%3N)
	"$@"
	rc=$?
	s1=$(steal) t1=$(date +%s%3N)
	[ $rc = 0 ] || [ $rc = 77 ] && exit $rc
	steal_ms=$(( (s1 - s0) * 1000 / hz )) wall_ms=$(( t1 - t0 ))
	if [ $(( steal_ms * 100 )) -le $(( wall_ms * ncpu * 3 )) ]; then
		echo "steal-guard: failed with the host quiet ($steal_ms ms of steal in $ncpu x $wall_ms ms): the verdict stands"
		exit $rc
	fi
	echo "steal-guard: attempt $attempt failed while the host took $steal_ms ms of $ncpu x $wall_ms ms (steal); running it again"
done
echo "SKIP: failed three times, each while the host took more than 3% of the CPUs (steal): not judged here"
exit 77
