#!/usr/bin/env python3
"""record.py - `profil record` against `perf record` and gperftools.

For each workload of tests/programs/workload.c whose true CPU split is known,
runs the program unprofiled, under profil (both engines), under perf and under
gperftools' CPU profiler (preloaded), all at the same rate, alternating,
ROUNDS times, and reports medians of:
  - CPU and wall time of the whole run (profiler included) over unprofiled;
  - accuracy: total-variation distance between the measured shares and
    the true split (0 = exact; 0.5 * sum |measured - true|, where samples
    outside the known functions count as error);
  - profile size, and the size for a run 4x as long (profil and perf).

gperftools is optional: without libprofiler.so.0 or google-pprof its
columns are "-" and a note says why.

usage: bench/record.py [BUILD_DIR [ROUNDS [RATE]]]   (build 7 1000)
"""
import csv
import io
import os
import re
import resource
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
RATE = sys.argv[3] if len(sys.argv) > 3 else "1000"
PROFIL = os.path.join(BUILD, "profil")
WL = os.path.join(BUILD, "tests", "workload")
SPLIT = {"six": 0.6, "three": 0.3, "one": 0.1}
MANY = {"f%d" % i: (i + 1) / 528 for i in range(32)}
GPERF_LIB = "/usr/lib/x86_64-linux-gnu/libprofiler.so.0"
GPPROF = shutil.which("google-pprof")

# name: (command, truth, truth is over "function" or "object")
WORKLOADS = {
    "single-thread 6:3:1": ([WL, "split", "1.65"], SPLIT, "function"),
    "4 threads 6:3:1": ([WL, "threads", "4", "0.44"], SPLIT, "function"),
    "32 small functions": ([WL, "many", "2.24"], MANY, "function"),
    "half in libm": ([WL, "libm", "0.25"], {"workload": 0.5, "libm.so.6": 0.5}, "object"),
    "syscall-heavy": ([WL, "syscalls", "0.5"], None, None),
    "40 ms program": ([WL, "split", "0.044"], SPLIT, "function"),
}


def timed(cmd, env=None):
    """Run cmd; return (wall seconds, CPU seconds of it and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env=env)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def profil_shares(path, by):
    out = subprocess.run([PROFIL, "report", "--format", "csv", path],
                         check=True, capture_output=True, text=True).stdout
    shares = {}
    for row in csv.DictReader(io.StringIO(out)):
        key = row[by]
        shares[key] = shares.get(key, 0.0) + float(row["percent"]) / 100
    return shares


def perf_shares(path, by):
    sort = "sym" if by == "function" else "dso"
    out = subprocess.run(["perf", "report", "-i", path, "--stdio", "-q",
                          "--sort", sort, "-F", "overhead," + sort],
                         check=True, capture_output=True, text=True).stdout
    shares = {}
    for line in out.splitlines():
        m = re.match(r"\s*([\d.]+)%\s+(?:\[\S\]\s+)?(\S+)", line)
        if m:
            key = m.group(2)
            shares[key] = shares.get(key, 0.0) + float(m.group(1)) / 100
    return shares


def gperf_missing():
    """Why gperftools cannot run here, or None: CI does not install it."""
    if not os.path.exists(GPERF_LIB):
        return "%s not found" % GPERF_LIB
    if GPPROF is None:
        return "google-pprof not found"
    return None


def gperf_env(path):
    """The environment that profiles the unmodified program with gperftools.

    Preloading libprofiler starts the profiler from its constructor
    (CPUPROFILE names the file, which its destructor writes at exit), as
    linking -lprofiler would.  The timer is the default process-wide
    ITIMER_PROF: CPUPROFILE_PER_THREAD_TIMERS arms a timer only in threads
    that call ProfilerRegisterThread(), which an unmodified program's
    threads never do (4 threads 6:3:1 then gets no sample at all).
    """
    env = dict(os.environ)
    env.update(LD_PRELOAD=GPERF_LIB, CPUPROFILE=path,
               CPUPROFILE_FREQUENCY=RATE)
    env.pop("CPUPROFILE_PER_THREAD_TIMERS", None)
    env.pop("CPUPROFILE_TIMER_SIGNAL", None)
    return env


def gperf_read(path):
    """(samples, [(start, end, object) of each mapping]) of a profile.

    A gperftools profile is 64-bit words (a 5-word header, then per stack
    count, depth, PCs; a 0 1 0 trailer) followed by the program's
    /proc/self/maps at exit, which is how google-pprof finds the objects.
    The samples say the rate gperftools really took (the header only has
    the one asked for).  No profile (the profiler did not start, or the
    program died before its destructor) is an error, not a perfect score.
    """
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        raise RuntimeError("gperftools wrote no profile: " + path)
    with open(path, "rb") as f:
        data = f.read()

    def words(i, n):
        return struct.unpack_from("<%dQ" % n, data, 8 * i)

    i = 2 + words(1, 1)[0]          # header: 0, count of header words, ...
    samples = 0
    while True:
        count, depth = words(i, 2)
        if count == 0 and depth == 1 and words(i + 2, 1)[0] == 0:
            break
        samples += count
        i += 2 + depth
    maps = []
    for line in data[8 * (i + 3):].decode("latin-1").splitlines():
        f = line.split(None, 5)
        if len(f) == 6 and "-" in f[0]:
            lo, hi = f[0].split("-")
            maps.append((int(lo, 16), int(hi, 16), os.path.basename(f[5])))
    return samples, maps


def gperf_shares(path, by):
    """Shares of self samples per function or object, from google-pprof.

    The flat --text report's self column gives functions (every node:
    pprof drops those under 0.5% by default).  Per object, --addresses
    gives each sample's own address, and the maps recorded in the profile
    say which object holds it.  A profile without samples is an error.
    """
    samples, maps = gperf_read(path)
    if samples == 0:
        raise RuntimeError("gperftools profile without samples: " + path)
    cmd = [GPPROF, "--text", "--nodecount=1000000", "--nodefraction=0",
           "--edgefraction=0"] + (["--addresses"] if by == "object" else [])
    out = subprocess.run(cmd + [WL, path], check=True, capture_output=True,
                         text=True).stdout
    m = re.search(r"^Total: (\d+) samples", out, re.M)
    if not m or int(m.group(1)) != samples:
        raise RuntimeError("google-pprof did not read all of " + path)
    shares = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+[\d.]+%\s+[\d.]+%\s+\d+\s+[\d.]+%\s+(.+)", line)
        if not m or m.group(1) == "0":
            continue
        key = m.group(2).strip()
        if by == "object":
            addr = int(key.split()[0], 16)
            key = next((o for lo, hi, o in maps if lo <= addr < hi), "?")
        shares[key] = shares.get(key, 0.0) + int(m.group(1)) / samples
    return shares


def tv_distance(shares, truth):
    err = sum(abs(shares.get(k, 0.0) - v) for k, v in truth.items())
    other = sum(v for k, v in shares.items() if k not in truth)
    return 0.5 * (err + other)


def main():
    if not os.access(PROFIL, os.X_OK) or not os.access(WL, os.X_OK):
        sys.exit("record.py: build first (make all build/tests/workload)")
    no_gperf = gperf_missing()
    tmp = tempfile.mkdtemp(prefix="profil-bench-")
    rows = []
    for name, (cmd, truth, by) in WORKLOADS.items():
        res = {k: [] for k in ("cpu_p", "wall_p", "cpu_t", "wall_t", "cpu_f",
                               "wall_f", "cpu_g", "wall_g", "tv_p", "tv_t",
                               "tv_f", "tv_g", "hz_g", "size_p", "size_f")}
        for r in range(ROUNDS):
            wall0, cpu0 = timed(cmd)
            prf = os.path.join(tmp, "a.prf")
            pdata = os.path.join(tmp, "a.data")
            wall1, cpu1 = timed([PROFIL, "record", "-q", "-F", RATE, "-o", prf] + cmd)
            tprf = os.path.join(tmp, "t.prf")
            wall3, cpu3 = timed([PROFIL, "record", "-q", "-e", "timer", "-F", RATE,
                                 "-o", tprf] + cmd)
            wall2, cpu2 = timed(["perf", "record", "-q", "-F", RATE, "-e", "cpu-clock",
                                 "-o", pdata, "--"] + cmd)
            if not no_gperf:
                gprof = os.path.join(tmp, "g.prof")
                if os.path.exists(gprof):  # a stale one would hide a failure
                    os.unlink(gprof)
                wall4, cpu4 = timed(cmd, env=gperf_env(gprof))
                res["cpu_g"].append(cpu4 / cpu0)
                res["wall_g"].append(wall4 / wall0)
                res["hz_g"].append(gperf_read(gprof)[0] / cpu0)
            res["cpu_p"].append(cpu1 / cpu0)
            res["wall_p"].append(wall1 / wall0)
            res["cpu_t"].append(cpu3 / cpu0)
            res["wall_t"].append(wall3 / wall0)
            res["cpu_f"].append(cpu2 / cpu0)
            res["wall_f"].append(wall2 / wall0)
            res["size_p"].append(os.path.getsize(prf))
            res["size_f"].append(os.path.getsize(pdata))
            if truth:
                res["tv_p"].append(tv_distance(profil_shares(prf, by), truth))
                res["tv_t"].append(tv_distance(profil_shares(tprf, by), truth))
                res["tv_f"].append(tv_distance(perf_shares(pdata, by), truth))
                if not no_gperf:
                    res["tv_g"].append(tv_distance(gperf_shares(gprof, by), truth))
        rows.append((name, {k: statistics.median(v) if v else None
                            for k, v in res.items()}))
        print("done: %s" % name, file=sys.stderr)

    # file size for a run 4x as long
    sizes = {}
    for mult in (1, 4):
        cmd = [WL, "split", "%g" % (0.44 * mult)]
        prf = os.path.join(tmp, "s%d.prf" % mult)
        pdata = os.path.join(tmp, "s%d.data" % mult)
        subprocess.run([PROFIL, "record", "-q", "-F", RATE, "-o", prf] + cmd, check=True)
        subprocess.run(["perf", "record", "-q", "-F", RATE, "-e", "cpu-clock", "-o",
                        pdata, "--"] + cmd, check=True, stderr=subprocess.DEVNULL)
        sizes[mult] = (os.path.getsize(prf), os.path.getsize(pdata))
    subprocess.run(["rm", "-rf", tmp])

    def pct(x):
        return "-" if x is None else "%+.1f%%" % ((x - 1) * 100)

    def tv(x):
        return "-" if x is None else "%.4f" % x

    print("Medians of %d alternating runs at %s Hz. profil-perf and "
          "profil-timer are `profil record` with each engine; perf is "
          "`perf record -e cpu-clock`; gperftools is the unmodified program "
          "with libprofiler preloaded (CPUPROFILE_FREQUENCY=%s).\n"
          % (ROUNDS, RATE, RATE))
    print("| workload | CPU profil-perf | CPU profil-timer | CPU perf "
          "| CPU gperftools | wall profil-perf | wall profil-timer | wall perf "
          "| wall gperftools | TV profil-perf | TV profil-timer | TV perf "
          "| TV gperftools |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, m in rows:
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s "
              "| %s |" % (
                  name, pct(m["cpu_p"]), pct(m["cpu_t"]), pct(m["cpu_f"]),
                  pct(m["cpu_g"]), pct(m["wall_p"]), pct(m["wall_t"]),
                  pct(m["wall_f"]), pct(m["wall_g"]), tv(m["tv_p"]),
                  tv(m["tv_t"]), tv(m["tv_f"]), tv(m["tv_g"])))
    if no_gperf:
        print("\ngperftools not run (%s): install google-perftools and "
              "libgoogle-perftools4." % no_gperf)
    else:
        hz = statistics.median(m["hz_g"] for _, m in rows)
        print("\ngperftools took %.0f samples per second of the program's "
              "CPU (median), asked for %s." % (hz, RATE))
    print("\n| run length | profil .prf | perf.data |")
    print("|---|---|---|")
    for mult in (1, 4):
        print("| %dx | %d bytes | %d bytes |" % (mult, sizes[mult][0], sizes[mult][1]))


if __name__ == "__main__":
    main()
