#!/bin/bash
# Helper for the real-program checks in README.md.
# usage: rp.sh NAME "HYPROF OPTS" CMD ARGS...
#   runs CMD once bare and once under `hyprof run -q -o $RP/NAME OPTS`,
#   compares exit status and stdout (after $RP_FILTER, a sed script, if set),
#   counts profiles, runs report / report --json on them.
# Environment: RP (work dir, default /tmp/rp), H (hyprof binary),
#   RP_FILTER (sed expression applied to both stdouts), RP_STDIN (file fed to both).
RP=${RP:-/tmp/rp}
H=${H:-/work/main/build-rb/bin/hyprof}
name=$1; opts=$2; shift 2
d=$RP/$name
rm -rf "$d" "$d.base.out" "$d.prof.out"
in=${RP_STDIN:-/dev/null}
timeout 120 "$@" <"$in" >"$d.base.out" 2>"$d.base.err"; brc=$?
# shellcheck disable=SC2086
timeout 120 "$H" run -q -o "$d" $opts -- "$@" <"$in" >"$d.prof.out" 2>"$d.prof.err"; prc=$?
f=${RP_FILTER:-}
if [ -n "$f" ]; then
	sed -i -e "$f" "$d.base.out" "$d.prof.out"
fi
same=yes
cmp -s "$d.base.out" "$d.prof.out" || same=NO
n=$(ls "$d"/*.hyp 2>/dev/null | wc -l)
"$H" report "$d" >"$d.report.txt" 2>"$d.report.err"; rrc=$?
"$H" report --json "$d" >"$d.report.json" 2>"$d.report.jerr"; jrc=$?
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$d.report.json" 2>/dev/null && jok=ok || jok=BAD
printf '%-28s rc %s/%s stdout-same %s profiles %s report %s json %s/%s stderr-lines %s\n' \
	"$name" "$brc" "$prc" "$same" "$n" "$rrc" "$jrc" "$jok" "$(wc -l <"$d.prof.err")"
