#!/usr/bin/env python3
"""bench/sampler/bench.py BUILD_DIR - the sampler benchmarks (run.sh).

Timing: the workload times its own compute region (wall and process CPU
time), so start-up costs (hyprof's calibration, perf's set-up) are not in
the figures.  The machine is shared: every run of a configuration is paired
with a plain run just before it, and each figure is the median over REPS
pairs of the difference (a burst of load hits both halves of a pair alike);
"+-" is half the interquartile range of those differences, the noise.

  slowdown            = T(config) / T(plain) - 1
  cost per sample     = (T(config) - T(plain)) / samples
  handler time        = hyprof's own in-handler TSC cycles per sample (from
                        the profile: thread kv handler_cycles)
  kernel              = hyprof --unwind kernel: kernel frame-pointer callchains
                        in a per-thread ring, drained by the handler once per
                        64 samples (--mode sampled), or per sample (kernel1:
                        hybrid mode)
  bare kernel path    = libbare.so: same event and delivery as hyprof's
                        default source, handler only releases the ring
  memory per thread   = (VmRSS with hyprof - VmRSS plain) / threads, with
                        64 threads alive
  bytes per call path = growth of the profile file per distinct sampled
                        call path (2^6 -> 2^10 leaf paths of depth 6/10)
"""
import glob
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

BUILD = sys.argv[1]
REPS = int(os.environ.get("REPS", "5"))
WL = os.path.join(BUILD, "bench", "hpbench_workload")
# The timed spin runs use the frame-pointer build, so that perf record -g and
# hyprof --unwind kernel (kernel frame-pointer walks) see the whole stack, as
# libunwind does; the plain run of each pair is the same binary.
WL_FP = os.path.join(BUILD, "bench", "hpbench_workload_fp")
BARE = os.path.join(BUILD, "bench", "libbare.so")
LIB = os.path.join(BUILD, "lib", "libhyprof.so")
SPIN = os.environ.get("SPIN", "600")  # millions of steps, ~1 s here
TMP = tempfile.mkdtemp(prefix="hyprof-bench-")


def hyp_threads(path):
    """(meta kv, [thread kv, n_sample nodes, leaves with samples]) of a .hyp."""
    b = open(path, "rb").read()

    def kv(p):
        out, i = {}, 0
        while i + 8 <= len(p):
            kl, t, _, vl = struct.unpack_from("<HBBI", p, i)
            i += 8
            k = p[i:i + kl].decode()
            i += kl
            v = p[i:i + vl]
            i += vl
            out[k] = (struct.unpack("<Q", v)[0] if t == 2 else struct.unpack("<d", v)[0] if t == 3
                      else struct.unpack("<q", v)[0] if t == 4 else v.decode(errors="replace"))
        return out

    off, meta, threads = 16, {}, []
    while off + 16 <= len(b):
        typ, _, ln = struct.unpack_from("<IIQ", b, off)
        p = b[off + 16:off + 16 + ln]
        if typ == 1:
            meta = kv(p)
        elif typ == 4:
            kl = struct.unpack_from("<I", p, 0)[0]
            t = kv(p[4:4 + kl])
            ns = struct.unpack_from("<I", p, 4 + kl)[0]
            base = 4 + kl + 8
            leaves = 0
            for i in range(ns):
                samples = struct.unpack_from("<Q", p, base + i * 128 + 32)[0]
                leaves += samples > 0
            threads.append((t, ns, leaves))
        off += 16 + ln
    return meta, threads


def run(cfg, args):
    """Run the workload under cfg; returns (wall_s, cpu_s, samples, handler_us)."""
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("HYPROF_") or k in ("LD_PRELOAD", "BARE_FREQ", "BARE_MODE"):
            del env[k]
    out = os.path.join(TMP, "p")
    shutil.rmtree(out, ignore_errors=True)
    cmd = [WL_FP if args[0] == "spin" else WL] + args
    kind, _, freq = cfg.partition(":")
    if kind == "bare":
        env.update(LD_PRELOAD=BARE, BARE_FREQ=freq)
    elif kind.startswith("hyprof"):
        env.update(LD_PRELOAD=LIB, HYPROF_OUTPUT=out, HYPROF_QUIET="1")
        if freq:
            env["HYPROF_FREQ"] = freq
        if kind == "hyprof-fp":
            env["HYPROF_UNWIND"] = "fp"
        if kind == "hyprof-kernel":  # batched: one signal per 64 samples
            env.update(HYPROF_UNWIND="kernel", HYPROF_MODE="sampled")
        if kind == "hyprof-kernel1":  # hybrid mode: one signal per sample
            env["HYPROF_UNWIND"] = "kernel"
    elif kind == "perf":
        cmd = ["perf", "record", "-g", "-e", "task-clock", "-F", freq, "-o",
               os.path.join(TMP, "perf.data"), "--"] + cmd
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if r.returncode:
        sys.exit("bench: %s failed: %s" % (cfg, r.stderr.strip()))
    wall, cpu = (int(x) / 1e9 for x in r.stdout.split()[:2])
    samples, hus = 0, None
    if kind == "bare":
        samples = int(re.search(r"bare: (\d+) samples", r.stderr).group(1))
    elif kind == "perf":
        samples = int(re.search(r"\((\d+) samples\)", r.stderr).group(1))
    elif kind.startswith("hyprof"):
        meta, ths = hyp_threads(glob.glob(os.path.join(out, "*.hyp"))[0])
        t = ths[0][0]
        samples = t["samples"] + t["meas_samples"]
        hus = t["handler_cycles"] / max(samples, 1) / meta["tsc_hz"] * 1e6
        LOST[cfg] = LOST.get(cfg, 0) + sum(v for k, v in t.items() if k.startswith("dropped."))
    return wall, cpu, samples, hus


LOST = {}  # samples dropped, by configuration, over all its runs


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def main():
    if shutil.which("perf") is None:
        sys.exit("bench: perf not found (apt-get install linux-perf)")
    load0 = os.getloadavg()[0]
    cfgs = ["bare:1000", "hyprof:1000", "hyprof-kernel:1000", "perf:1000", "bare:10000", "hyprof:10000",
            "hyprof-fp:10000", "hyprof-kernel:10000", "hyprof-kernel1:10000", "perf:10000",
            "hyprof"]  # "hyprof": the default rate
    # CONFIGS=a,b,... runs only those (and QUICK=1 skips the default-rate,
    # memory and size parts): more repetitions of the comparison in the time.
    if os.environ.get("CONFIGS"):
        cfgs = os.environ["CONFIGS"].split(",")
    pairs = {c: [] for c in cfgs}
    plain = []
    for rep in range(REPS):
        for c in cfgs:
            p = run("plain", ["spin", SPIN])
            r = run(c, ["spin", SPIN])
            plain.append(p)
            pairs[c].append((r[0] - p[0], r[1] - p[1], r[2], r[3], p[0], p[1]))

    def q(v, f):
        v = sorted(v)
        return v[min(len(v) - 1, int(f * len(v)))]

    load_mid = os.getloadavg()[0]
    pw, pc = median([p[0] for p in plain]), median([p[1] for p in plain])
    print("workload: %s M steps at depth ~12, plain %.3f s wall, %.3f s CPU (medians); %d pairs per config"
          % (SPIN, pw, pc, REPS))
    print("machine: %d CPUs, load average %.1f at the start, %.1f after these runs (other work adds noise)"
          % (os.cpu_count(), load0, load_mid))
    print()
    print("hyprof = libunwind (default); hyprof-kernel = --unwind kernel --mode sampled (one signal per 64 "
          "samples); hyprof-kernel1 = --unwind kernel in hybrid mode (one signal per sample)")
    print("%-20s %7s %14s %14s %14s %14s %9s" % ("config", "samples", "wall +%", "CPU +%",
                                                  "us/sample", "us/sample", "handler"))
    print("%-20s %7s %14s %14s %14s %14s %9s" % ("", "", "", "", "(wall)", "(CPU)", "us/sample"))
    best = {}
    for c in cfgs:
        dw = [x[0] for x in pairs[c]]
        dc = [x[1] for x in pairs[c]]
        s_ = median([x[2] for x in pairs[c]])
        h = median([x[3] for x in pairs[c]]) if pairs[c][0][3] is not None else None
        mw, mc = median(dw), median(dc)
        nw, nc = (q(dw, 0.75) - q(dw, 0.25)) / 2, (q(dc, 0.75) - q(dc, 0.25)) / 2
        best[c] = (mw, mc, s_, h)
        name = c if ":" in c else "hyprof default"
        print("%-20s %7d %6.1f%% +-%4.1f %6.1f%% +-%4.1f %6.1f +-%5.1f %6.1f +-%5.1f %9s" % (
            name, s_, mw / pw * 100, nw / pw * 100, mc / pc * 100, nc / pc * 100,
            mw / s_ * 1e6 if s_ else 0, nw / s_ * 1e6 if s_ else 0,
            mc / s_ * 1e6 if s_ else 0, nc / s_ * 1e6 if s_ else 0, "%.2f" % h if h is not None else "-"))
    print()
    print("ratios (wall slowdown, medians of paired differences):")
    nan = float("nan")
    for f in ("1000", "10000"):
        if not all(c + f in best for c in ("hyprof:", "perf:", "hyprof-kernel:")):
            continue
        for i, what in ((0, "wall"), (1, "CPU")):
            hs, ps = best["hyprof:" + f][i] / (pw, pc)[i], best["perf:" + f][i] / (pw, pc)[i]
            ks = best["hyprof-kernel:" + f][i] / (pw, pc)[i]
            bs = best["bare:" + f][i] / (pw, pc)[i] if "bare:" + f in best else nan
            print("  %5s Hz, %-4s: hyprof %.1f%%, hyprof --unwind kernel %.1f%%, perf record -g %.1f%% "
                  "(hyprof/perf %.2f, kernel/perf %.2f); bare kernel path %.1f%%"
                  % (f, what, hs * 100, ks * 100, ps * 100, hs / ps if ps > 0 else nan,
                     ks / ps if ps > 0 else nan, bs * 100))
    # The same ratios per pair of runs, median (a burst of load that hits one
    # configuration's runs shows here, not in the ratio of medians).
    # Per repetition, CPU: kernel minus perf, libunwind minus perf (points of
    # slowdown), sorted: how often hyprof is above perf, not only the median.
    for f in ("1000", "10000"):
        if not all(c + f in pairs for c in ("hyprof:", "perf:", "hyprof-kernel:")):
            continue
        dk = sorted((k[1] - p[1]) / pc * 100 for k, p in zip(pairs["hyprof-kernel:" + f], pairs["perf:" + f]))
        dh = sorted((k[1] - p[1]) / pc * 100 for k, p in zip(pairs["hyprof:" + f], pairs["perf:" + f]))
        print("  %5s Hz, CPU points above perf per repetition: kernel %s; libunwind %s" % (
            f, " ".join("%+.1f" % x for x in dk), " ".join("%+.1f" % x for x in dh)))
    print("  samples dropped over all runs: %s" % ", ".join(
        "%s %d" % (c, LOST.get(c, 0)) for c in cfgs if c.startswith("hyprof")))
    if os.environ.get("QUICK"):
        shutil.rmtree(TMP, ignore_errors=True)
        return
    # The default rate's cost is small against the noise of 1 s runs: it is
    # measured again on runs five times longer.
    dspin = os.environ.get("DEFAULT_SPIN", str(int(SPIN) * 5))
    dpairs = []
    for rep in range(REPS):
        p = run("plain", ["spin", dspin])
        r = run("hyprof", ["spin", dspin])
        dpairs.append((r[0] - p[0], r[1] - p[1], r[2], p[0], p[1]))
    dw, dc = [x[0] for x in dpairs], [x[1] for x in dpairs]
    lw, lc = median([x[3] for x in dpairs]), median([x[4] for x in dpairs])
    ds = median([x[2] for x in dpairs])
    print("  default rate (%d samples per CPU second), %s M steps (%.1f s): hyprof %.2f%% +- %.2f wall, "
          "%.2f%% +- %.2f CPU (target <= 1%%)"
          % (round(ds / lc), dspin, lw, median(dw) / lw * 100, (q(dw, 0.75) - q(dw, 0.25)) / 2 / lw * 100,
             median(dc) / lc * 100, (q(dc, 0.75) - q(dc, 0.25)) / 2 / lc * 100))
    hw, hc = best["hyprof:10000"][0] / best["hyprof:10000"][2], best["hyprof:10000"][1] / best["hyprof:10000"][2]
    print("  at the measured cost per sample (%.1f us wall, %.1f us CPU at 10 kHz), 1%% of a CPU buys "
          "%d samples/s" % (hw * 1e6, hc * 1e6, int(0.01 / max(hw, hc))))

    # memory per thread: the slope between 16 and 64 live threads, so the
    # fixed cost (libraries, the main thread) is not spread over the threads
    rss = {}
    for c in ("plain", "hyprof", "hyprof-fp", "hyprof-kernel"):
        for n in (16, 64):
            vals = []
            for rep in range(3):
                env = {k: v for k, v in os.environ.items() if not k.startswith("HYPROF_") and k != "LD_PRELOAD"}
                if c != "plain":
                    env.update(LD_PRELOAD=LIB, HYPROF_OUTPUT=os.path.join(TMP, "m"), HYPROF_QUIET="1")
                if c == "hyprof-fp":
                    env["HYPROF_UNWIND"] = "fp"
                if c == "hyprof-kernel":
                    env.update(HYPROF_UNWIND="kernel", HYPROF_MODE="sampled")
                r = subprocess.run([WL, "threads", str(n)], env=env, capture_output=True, text=True, check=True)
                vals.append(int(r.stdout.split()[0]))
            rss[(c, n)] = median(vals)
    def per_thread(c):
        return ((rss[(c, 64)] - rss[(c, 16)]) - (rss[("plain", 64)] - rss[("plain", 16)])) / 48.0
    print()
    print("memory per thread (VmRSS slope 16 -> 64 live threads, beyond the plain program's):")
    print("  hyprof (libunwind) %.0f kB, hyprof --unwind fp %.0f kB, --unwind kernel %.0f kB (its perf ring, 68 kB "
          "per thread, is also locked memory: perf_event_mlock_kb, then RLIMIT_MEMLOCK); fixed cost with 16 threads: %d kB"
          % (per_thread("hyprof"), per_thread("hyprof-fp"), per_thread("hyprof-kernel"),
             rss[("hyprof", 16)] - rss[("plain", 16)] - 16 * per_thread("hyprof")))

    # profile bytes per call path, and size against run time
    sizes = {}
    for depth, rounds in ((6, 150), (6, 300), (10, 10)):
        out = os.path.join(TMP, "s")
        shutil.rmtree(out, ignore_errors=True)
        env = {k: v for k, v in os.environ.items() if not k.startswith("HYPROF_") and k != "LD_PRELOAD"}
        env.update(LD_PRELOAD=LIB, HYPROF_OUTPUT=out, HYPROF_QUIET="1", HYPROF_FREQ="5000")
        subprocess.run([WL, "paths", str(depth), str(rounds)], env=env, check=True)
        f = glob.glob(os.path.join(out, "*.hyp"))[0]
        _, ths = hyp_threads(f)
        sizes[(depth, rounds)] = (os.path.getsize(f), ths[0][1], ths[0][2], ths[0][0]["samples"])
    (s6, n6, l6, x6), (s6b, n6b, l6b, x6b), (s10, n10, l10, _) = sizes[(6, 150)], sizes[(6, 300)], sizes[(10, 10)]
    print()
    print("profile size (a call path = the distinct PCs x the distinct stacks a sample saw):")
    print("  2^6 stacks: %d B, %d nodes, %d sampled leaf PCs (%d samples)" % (s6, n6, l6, x6))
    print("  same, twice the run time: %d B, %d nodes (%d samples): %+.1f%% size" % (s6b, n6b, x6b,
          (s6b - s6) * 100.0 / s6))
    print("  2^10 stacks: %d B, %d nodes, %d sampled leaf PCs: %.0f B per added call path, %.0f B per node"
          % (s10, n10, l10, (s10 - s6) / max(l10 - l6, 1), (s10 - s6) / max(n10 - n6, 1)))
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
