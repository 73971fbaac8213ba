#!/usr/bin/env python3
"""engines.py - the two engines side by side, as a container user gets the
timer engine (perf events refused), beside perf record and gperftools.

One run prints, from medians of ROUNDS alternating rounds (each profiler
and the unprofiled program in turn, ratios to the unprofiled run of the
same round):

  - syscall-heavy (tests/programs/workload.c `writes`: writer() pwrites
    to a memfd, half of it kernel time, and burner() computes, in turns
    of 7 and 3 ms of CPU; the program measures the true split itself):
    the distance of the measured split from it (|burner's share - its
    true share|: kernel time put under the wrong code moves it), and
    samples / (CPU s x rate);
  - a 30 ms program: wall x unprofiled;
  - 2 s single thread: CPU x unprofiled (program + profiler);
  - what a sample costs the 2 s program, in microseconds of extra CPU,
    against the floor: bench/bare-sampler, the same kernel sampling with
    every record thrown away unread (with and without the stack copy);
  - `profil record true` against `true`: the fixed cost, in ms.

profil-timer runs under tests/helper-noperf (perf_event_open refused, as
at perf_event_paranoid 3 or in Docker's default seccomp profile).

usage: bench/engines.py [BUILD_DIR [ROUNDS [RATE]]]   (build 5 1000)
"""
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record  # noqa: E402  (gperftools helpers; same argv)

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
RATE = sys.argv[3] if len(sys.argv) > 3 else "1000"
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
WL = os.path.abspath(os.path.join(BUILD, "tests", "workload"))
NOPERF = os.path.abspath(os.path.join(BUILD, "tests", "helper-noperf"))
BARE = os.path.abspath(os.path.join(BUILD, "bench", "bare-sampler"))

PROGRAMS = {
    "syscall-heavy": [WL, "writes", "1.5"],
    "30 ms program": [WL, "split", "0.022"],
    "2 s single thread": [WL, "split", "1.87"],
}


def run(cmd, env=None):
    """(wall s, CPU s of cmd and its children, its stdout)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    p = subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, env=env, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, ((after.ru_utime - before.ru_utime) +
                  (after.ru_stime - before.ru_stime)), p.stdout


def profilers(tmp):
    """name: (command prefix, environment or None, profile path)."""
    prf = os.path.join(tmp, "x.prf")
    pdata = os.path.join(tmp, "perf.data")
    gprof = os.path.join(tmp, "gperf.prof")
    out = {
        "unprofiled": ([], None, None),
        "profil-perf": ([PROFIL, "record", "-q", "-e", "perf", "-F", RATE,
                         "-o", prf], None, prf),
        "profil-perf flat": ([PROFIL, "record", "-q", "-e", "perf",
                              "--no-call-graph", "-F", RATE, "-o", prf],
                             None, prf),
        "profil-timer": ([NOPERF, PROFIL, "record", "-q", "-e", "timer", "-F",
                          RATE, "-o", prf], None, prf),
        "perf record": (["perf", "record", "-q", "-e", "cpu-clock", "-F", RATE,
                         "-o", pdata, "--"], None, pdata),
        "bare interrupt": ([BARE, "-F", RATE], None, None),
        "bare + 8 KiB stack": ([BARE, "-F", RATE, "-s", "8192"], None, None),
    }
    if record.gperf_missing() is None:
        out["gperftools"] = ([], record.gperf_env(gprof), gprof)
    return out


def profil_burner_share(prf):
    """burner's self share, and the samples, from profil's flat CSV."""
    out = subprocess.run([PROFIL, "report", "--format", "csv", prf],
                         check=True, capture_output=True, text=True).stdout
    total = burner = 0
    for line in out.splitlines()[1:]:
        f = line.split(",")
        total += int(f[2])
        if f[0] == "burner":
            burner += int(f[2])
    return burner / total, total


def perf_burner_share(pdata):
    out = subprocess.run(["perf", "report", "-i", pdata, "--stdio", "-q",
                          "--sort", "sym", "-F", "overhead,sample,sym"],
                         check=True, capture_output=True, text=True).stdout
    total = burner = 0
    for line in out.splitlines():
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+\[\S\]\s+(\S+)", line)
        if m:
            total += int(m.group(1))
            if m.group(2) == "burner":
                burner += int(m.group(1))
    return burner / total, total


def gperf_burner_share(path):
    shares = record.gperf_shares(path, "function")
    return shares.get("burner", 0.0), record.gperf_read(path)[0]


def main():
    for need in (PROFIL, WL, NOPERF, BARE):
        if not os.access(need, os.X_OK):
            sys.exit("engines.py: build first (make bench-engines): " + need)
    print("load average at start: %.2f %.2f %.2f" % os.getloadavg())
    rate = float(RATE)
    with tempfile.TemporaryDirectory() as tmp:
        profs = profilers(tmp)
        wall = {(p, w): [] for p in profs for w in PROGRAMS}
        cpu = {(p, w): [] for p in profs for w in PROGRAMS}
        dist = {p: [] for p in profs}
        hz = {p: [] for p in profs}
        per_sample = {p: [] for p in profs}
        fixed = {"true": [], "profil-perf": [], "profil-perf flat": [],
                 "profil-timer": []}
        for _ in range(ROUNDS):
            base = {}
            for w, prog in PROGRAMS.items():
                for p, (prefix, env, path) in profs.items():
                    if path and os.path.exists(path):
                        os.unlink(path)
                    wl, c, out = run(prefix + prog, env)
                    wall[p, w].append(wl)
                    cpu[p, w].append(c)
                    if p == "unprofiled":
                        base[w] = (wl, c)
                    if w == "syscall-heavy" and path:
                        m = re.search(r"writer ([\d.]+) burner ([\d.]+)", out)
                        truth = float(m.group(2)) / (float(m.group(1)) +
                                                     float(m.group(2)))
                        share, n = (perf_burner_share(path) if p == "perf record"
                                    else gperf_burner_share(path)
                                    if p == "gperftools"
                                    else profil_burner_share(path))
                        dist[p].append(abs(share - truth))
                        hz[p].append(n / (base[w][1] * rate))
                    if w == "2 s single thread" and p != "unprofiled":
                        # extra CPU per sample asked: the period is the unit
                        per_sample[p].append((c - base[w][1]) * 1e6 /
                                             (base[w][1] * rate))
            for p in fixed:
                prefix = profs[p][0] if p != "true" else []
                fixed[p].append(run(prefix + ["true"])[0] * 1000)
        med = statistics.median
        names = [p for p in profs if p != "unprofiled"]
        print("\nMedians of %d alternating rounds at %s Hz; load average at "
              "end: %.2f %.2f %.2f\n" % ((ROUNDS, RATE) + os.getloadavg()))
        print("| workload | what | " + " | ".join(names) + " |")
        print("|---|---|" + "---|" * len(names))

        def row(label, what, fn):
            print("| %s | %s | %s |" % (label, what, " | ".join(
                fn(p) for p in names)))

        row("syscall-heavy", "distance from the true split",
            lambda p: "%.3f" % med(dist[p]) if dist[p] else "-")
        row("syscall-heavy", "samples / (CPU s x rate)",
            lambda p: "%.2f" % med(hz[p]) if hz[p] else "-")
        for w, what, series in (("30 ms program", "wall x unprofiled", wall),
                                ("2 s single thread", "CPU x unprofiled", cpu)):
            b = med(series["unprofiled", w])
            row(w, what, lambda p, w=w, s=series, b=b: "%.3f" % (med(s[p, w]) / b))
        row("2 s single thread", "extra CPU per sample, us",
            lambda p: "%.1f" % med(per_sample[p]))
        floor = med(per_sample["bare interrupt"])
        floor_s = med(per_sample["bare + 8 KiB stack"])
        print("\nper-sample cost over the floor (bare interrupt %.1f us, with "
              "the stack copy %.1f us): profil-perf flat %.2fx, profil-perf "
              "%.2fx (against the floor with the stack copy)" % (
                  floor, floor_s, med(per_sample["profil-perf flat"]) / floor,
                  med(per_sample["profil-perf"]) / floor_s))
        t = med(fixed["true"])
        print("\n`true` %.1f ms; `profil record true`: %s" % (t, ", ".join(
            "%s +%.1f ms" % (p, med(v) - t) for p, v in fixed.items()
            if p != "true")))


if __name__ == "__main__":
    main()
