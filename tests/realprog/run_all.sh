#!/bin/bash
# Re-runs the real-program checks of README.md, one job at a time, each a few
# seconds.  Not part of ctest (it needs xz, python3, perl, node, gcc, g++,
# make, busybox-static and writes to $RP, default /tmp/rp).
# usage: bash tests/realprog/run_all.sh
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export RP=${RP:-/tmp/rp}
export H=${H:-$HERE/../../build-rb/bin/hyprof}
R=$HERE/rp.sh
mkdir -p "$RP/src"
cd "$RP" || exit 1
S=$RP/src

# inputs and programs
[ -f mid.bin ] || cat /usr/lib/x86_64-linux-gnu/*.so* 2>/dev/null | head -c 8000000 >mid.bin
[ -f nums.txt ] || seq 1 3000000 | shuf --random-source=mid.bin >nums.txt
gcc -O2 -g -fopenmp "$HERE/omp_split.c" -o $S/omp_split
gcc -O2 -g -fopenmp -finstrument-functions "$HERE/omp_split.c" -o $S/omp_split_fi
g++ -O1 -g "$HERE/cxx_exc.cc" -o $S/cxx_exc
g++ -O1 -g -finstrument-functions "$HERE/cxx_exc.cc" -o $S/cxx_exc_fi
gcc -O1 -g -pthread "$HERE/endings.c" -o $S/endings
gcc -O1 -g -pthread -finstrument-functions "$HERE/endings.c" -o $S/endings_fi
for r in repro_sigmask repro_blocked repro_fd2 repro_deepjson repro_waitfork; do
	gcc -O1 -g -pthread "$HERE/$r.c" -o $S/$r
done
gcc -O1 -g -finstrument-functions "$HERE/repro_measured_open.c" -o $S/repro_measured_open

echo "== passing checks (expect rc equal, stdout-same yes, report 0, json 0/ok)"
$R xz_def "" xz -6 -c mid.bin
$R xz_s2k "--mode sampled --freq 2000" xz -6 -c mid.bin
$R sort_par "--mode sampled --freq 2000" sort -n --parallel=2 -S 500M nums.txt
$R omp_def "" $S/omp_split 200
$R omp_s2k "--mode sampled --freq 2000" $S/omp_split 200
$R ompfi_meas "--mode measured" $S/omp_split_fi 200
$R cxxfi_hyb "" $S/cxx_exc_fi
$R cxxfi_meas "--mode measured" $S/cxx_exc_fi
for d in cxxfi_hyb cxxfi_meas; do
	python3 -c 'import json,sys
want = {"fib(int)": 21891, "deep(int)": 20002, "thrower(int)": 11000, "catcher(int)": 1000, "rethrower(int)": 500}
got = {f["name"]: f["calls"] for f in json.load(open(sys.argv[1]))["functions"] if f["name"] in want}
print("  %s calls %s" % (sys.argv[1].split("/")[-1], "exact" if got == want else "WRONG %s" % got))' $RP/$d.report.json
done
$R sh_pipe "" sh -c 'cat mid.bin | tr a-z A-Z | sort | md5sum'
$R py_s2k "--mode sampled --freq 2000" python3 -c 'print(sum(i*i%7 for i in range(3000000)))'
$R perl_s2k "--mode sampled --freq 2000" perl -e 'my $s=0; for my $i (1..3000000) { $s += $i*$i % 7 } print "$s\n"'
$R node_s2k "--mode sampled --freq 2000" node -e 'let s=0; for (let i=0;i<1e8;i++){ s=(s+i*i)%1000003 } console.log(s)'
for m in exit _exit abort segv raise-term; do $R end_$m "" $S/endings $m 2>/dev/null; done

echo "== failures (see README.md)"
echo "-- F1 worker thread created with signals blocked: 0 samples (xz -T2)"
$R xzT2 "" xz -T2 --block-size=2MiB -6 -c mid.bin
"$H" report --threads $RP/xzT2 | grep "== Thread"
$R sigmask "" $S/repro_sigmask
"$H" report --threads $RP/sigmask | grep "== Thread"
echo "-- F2 time of a signal-blocked section lands on pthread_sigmask"
$R blocked "" $S/repro_blocked
grep -A3 '^Flat' $RP/blocked.report.txt | tail -2
echo "-- F3 --freq 100000 (accepted) kills the program with SIGIO, no profile"
$R xz100k "--freq 100000" xz -6 -c mid.bin 2>/dev/null
echo "-- F5 report --json fails on a call path deeper than ~127 frames"
$R deepjson "" $S/repro_deepjson
cat $RP/deepjson.report.jerr
echo "-- F6 measured mode, main() never returns: total 0 s"
$R mopen "--mode measured" $S/repro_measured_open
grep -E '^total ' $RP/mopen.report.txt
echo "-- F7 hyprof's exit summary written into the program's data file"
rm -rf fd2o; "$H" run -o $RP/fd2o -- $S/repro_fd2 $RP/d1.txt >/dev/null; cat $RP/d1.txt
echo "-- F8 static: refused; setuid/setgid: silently unprofiled"
"$H" run -o $RP/st1 -- /bin/busybox true; echo "static rc=$?"
cp $S/endings $S/endings_suid && chown nobody $S/endings_suid && chmod 4755 $S/endings_suid
rm -rf $RP/suid; "$H" run -o $RP/suid -- $S/endings_suid exit >/dev/null; echo "setuid rc=$? files: $(ls $RP/suid)"
echo "-- F9 odd inputs"
"$H" run -o /proc -- $S/endings exit >/dev/null; echo "-o /proc rc=$?"
"$H" run -o $RP/f1 --freq 1000000 -- /bin/true; echo "--freq 1000000 rc=$?"
rm -rf $RP/envi; "$H" run -o $RP/envi -- env -i /bin/ls / >/dev/null; echo "env -i rc=$? files: $(ls $RP/envi)"
