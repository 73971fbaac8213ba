#!/usr/bin/env python3
"""report.py - how long `profil report` and `profil export` take, against
`perf report --stdio` and `gprof -b -p` on the same programs.

Each workload is recorded once by each tool: `profil record` (its default
rate, 1000 Hz), `perf record -e cpu-clock -F 1000`, and a -pg build of the
same program run for gprof (gmon.out, 100 Hz).  Then, after one warm-up
run of each, every reading command runs ROUNDS times, alternating (one run
of each per round), output to files or /dev/null; the tables give the
median wall time and CPU time (user + system, os.wait4) of each, and the
median peak RSS of three more runs under GNU time (a child Python forks
inherits Python's RSS as its high-water mark: GNU time forks from a
small process).

A profil option this build does not know yet (exit 2 with "unknown
option" or "unknown format") makes its cell "n/a"; any other failure
makes it "fail" and its message is printed.

The big workload is bench/gen-big.py's program (50,000 functions; every
1000th one is heavy): the script also checks that the report names the
heavy functions as the top of the profile.

usage: bench/report.py [BUILD_DIR [ROUNDS]]   (build 7)
"""
import csv
import io
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 7
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
WL = os.path.abspath(os.path.join(BUILD, "tests", "workload"))
WL_PG = os.path.abspath(os.path.join(BUILD, "bench", "workload-pg"))
BIG = os.path.abspath(os.path.join(BUILD, "bench", "big", "big"))
BIG_PG = os.path.abspath(os.path.join(BUILD, "bench", "big", "big-pg"))
BIG_FUNCTIONS, BIG_HEAVY_EVERY = 50000, 1000   # gen-big.py's defaults
TARGET_MS = 50           # the bench workloads
BIG_TARGET_MS = 1000     # "well under a second" for the big one

# name: (program, its -pg build, arguments)
WORKLOADS = {
    "6:3:1 split": (WL, WL_PG, ["split", "1.32"]),
    "32 small functions": (WL, WL_PG, ["many", "1.68"]),
    "half in libm": (WL, WL_PG, ["libm", "1"]),
    "50,000 functions": (BIG, BIG_PG, ["5"]),
}

# column: header
COLUMNS = {
    "flat": "profil report",
    "annotate": "profil report --annotate",
    "html": "profil report --html",
    "gmon": "profil export gmon",
    "pprof": "profil export pprof",
    "perf": "perf report --stdio",
    "gprof": "gprof -b -p",
}


def run(cmd, cwd=None):
    """Run cmd, output discarded; return (wall seconds, CPU seconds, status)."""
    start = time.monotonic()
    child = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_utime + usage.ru_stime, child.returncode


def peak_rss(cmd, cwd=None):
    """Peak RSS of cmd in KiB, from GNU time; None if that is missing."""
    gnu_time = shutil.which("time", path="/usr/bin:/bin")
    if gnu_time is None:
        return None
    with tempfile.NamedTemporaryFile(mode="r") as out:
        subprocess.run([gnu_time, "-f", "%M", "-o", out.name] + cmd, cwd=cwd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return int(out.read().split()[-1])


def probe(cmd, cwd=None):
    """Run cmd once: None if it works, "n/a" if this build lacks the option
    or format, else "fail" (and the message is printed)."""
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode == 0:
        return None
    if r.returncode == 2 and re.search(r"unknown (option|format)", r.stderr):
        return "n/a"
    print("report.py: %s: exit %d: %s" % (" ".join(cmd), r.returncode,
                                          r.stderr.strip()), file=sys.stderr)
    return "fail"


def flat_rows(prf):
    out = subprocess.run([PROFIL, "report", "--format", "csv", prf], check=True,
                         capture_output=True, text=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def check_big_names(rows):
    """The heavy functions f0, f1000, ... must be the top gen-big functions
    of the report, named as in the program; returns a line saying so."""
    width = len(str(BIG_FUNCTIONS - 1))
    heavy = {"f%0*d" % (width, i) for i in range(0, BIG_FUNCTIONS, BIG_HEAVY_EVERY)}
    pattern = re.compile(r"f\d{%d}" % width)
    ours = [r for r in rows if pattern.fullmatch(r["function"])]
    strays = [r["function"] for r in rows if r["object"] == "big" and
              not pattern.fullmatch(r["function"]) and
              r["function"] not in ("main", "[big]")]
    top = [r["function"] for r in ours[:len(heavy)]]
    wrong_object = [r["function"] for r in ours if r["object"] != "big"]
    missing = sorted(heavy - set(top))
    ok = not missing and not wrong_object
    line = ("names: %s: top %d of %d sampled gen-big functions are %s"
            % ("ok" if ok else "WRONG", len(heavy), len(ours),
               "exactly the heavy ones" if not missing else
               "missing heavy " + ", ".join(missing[:10])))
    if wrong_object:
        line += "; in another object: " + ", ".join(wrong_object[:10])
    if strays:
        line += "; other functions of big: " + ", ".join(strays[:10])
    return line, ok


def record(name, prog, prog_pg, args, tmp):
    """Record the workload with each tool; return the paths involved."""
    d = os.path.join(tmp, re.sub(r"\W+", "-", name))
    os.makedirs(d)
    prf = os.path.join(d, "w.prf")
    pdata = os.path.join(d, "perf.data")
    subprocess.run([PROFIL, "record", "-q", "-o", prf, prog] + args, check=True)
    subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-F", "1000",
                    "-o", pdata, "--", prog] + args, check=True,
                   stderr=subprocess.DEVNULL)
    subprocess.run([prog_pg] + args, cwd=d, check=True)
    return d, prf, pdata, os.path.join(d, "gmon.out")


def commands(d, prf, pdata, prog_pg, hottest):
    """column: (command, working directory) for one workload."""
    return {
        "flat": ([PROFIL, "report", prf], None),
        "annotate": ([PROFIL, "report", "--annotate", hottest, prf], None),
        "html": ([PROFIL, "report", "--html", os.path.join(d, "r.html"), prf], None),
        "gmon": ([PROFIL, "export", "--format", "gmon", "-o",
                  os.path.join(d, "gmon"), prf], None),
        "pprof": ([PROFIL, "export", "--format", "pprof", "-o",
                   os.path.join(d, "w.pb.gz"), prf], None),
        "perf": (["perf", "report", "--stdio", "-i", pdata], None),
        "gprof": (["gprof", "-b", "-p", prog_pg, "gmon.out"], d),
    }


def main():
    for path in (PROFIL, WL, WL_PG, BIG, BIG_PG):
        if not os.access(path, os.X_OK):
            sys.exit("report.py: %s missing: make bench-report BUILD=%s" % (path, BUILD))
    for tool in ("perf", "gprof"):
        if shutil.which(tool) is None:
            sys.exit("report.py: %s is not installed" % tool)
    tmp = tempfile.mkdtemp(prefix="profil-bench-report-")
    results, notes = [], []
    for name, (prog, prog_pg, args) in WORKLOADS.items():
        d, prf, pdata, gmon = record(name, prog, prog_pg, args, tmp)
        os.makedirs(os.path.join(d, "gmon"))
        rows = flat_rows(prf)
        samples = sum(int(r["samples"]) for r in rows)
        hottest = next(r["function"] for r in rows if not r["function"].startswith("["))
        if prog == BIG:
            line, ok = check_big_names(rows)
            notes.append(line)
        cmds = commands(d, prf, pdata, prog_pg, hottest)
        state = {col: probe(cmd, cwd) for col, (cmd, cwd) in cmds.items()}
        walls = {col: [] for col in cmds}
        cpus = {col: [] for col in cmds}
        for _ in range(ROUNDS):
            for col, (cmd, cwd) in cmds.items():
                if state[col] is not None:
                    continue
                wall, cpu, status = run(cmd, cwd)
                if status != 0:
                    state[col] = "fail"
                    print("report.py: %s: exit %d" % (" ".join(cmd), status),
                          file=sys.stderr)
                    continue
                walls[col].append(wall)
                cpus[col].append(cpu)
        med = {}
        for col, (cmd, cwd) in cmds.items():
            if state[col] is not None:
                med[col] = state[col]
                continue
            rss = [peak_rss(cmd, cwd) for _ in range(3)]
            med[col] = (statistics.median(walls[col]), statistics.median(cpus[col]),
                        None if None in rss else statistics.median(rss))
        sizes = (os.path.getsize(prf), os.path.getsize(pdata), os.path.getsize(gmon))
        results.append((name, samples, hottest, med, sizes))
        print("done: %s" % name, file=sys.stderr)
    shutil.rmtree(tmp)

    def ms(cell, i):
        return cell if isinstance(cell, str) else "%.1f" % (cell[i] * 1000)

    def mib(cell):
        return (cell if isinstance(cell, str) else "-" if cell[2] is None
                else "%.1f" % (cell[2] / 1024))

    misses = []
    for name, _, _, med, _ in results:
        target = BIG_TARGET_MS if name == "50,000 functions" else TARGET_MS
        for col in ("flat", "annotate", "html", "gmon", "pprof"):
            cell = med[col]
            if isinstance(cell, str):
                continue
            if cell[0] * 1000 > target:
                misses.append("%s, %s: %.1f ms > %d ms" % (name, COLUMNS[col],
                                                         cell[0] * 1000, target))
            if not isinstance(med["perf"], str) and cell[0] >= med["perf"][0]:
                misses.append("%s, %s: not faster than perf report" %
                              (name, COLUMNS[col]))

    print("Medians of %d alternating runs after a warm-up. perf report: "
          "default options (the profiles have no call chains, so --children "
          "changes nothing); profil report: text." % ROUNDS)
    for title, i in (("Wall milliseconds", 0), ("CPU milliseconds (user + system)", 1)):
        print("\n%s:\n" % title)
        print("| workload | samples | " + " | ".join(COLUMNS.values()) +
              " | perf / profil report |")
        print("|---" * (len(COLUMNS) + 3) + "|")
        for name, samples, _, med, _ in results:
            ratio = "-"
            if not isinstance(med["flat"], str) and not isinstance(med["perf"], str):
                ratio = "%.1fx" % (med["perf"][i] / med["flat"][i])
            print("| %s | %d | %s | %s |" % (name, samples, " | ".join(
                ms(med[c], i) for c in COLUMNS), ratio))
    print("\nPeak RSS in MiB (median of 3), and the size of each tool's profile:\n")
    print("| workload | profil report | profil report --html | perf report "
          "| gprof | .prf | perf.data | gmon.out |")
    print("|---|---|---|---|---|---|---|---|")
    for name, _, _, med, sizes in results:
        print("| %s | %s | %s | %s | %s | %d B | %d B | %d B |" % (
            name, mib(med["flat"]), mib(med["html"]), mib(med["perf"]),
            mib(med["gprof"]), sizes[0], sizes[1], sizes[2]))
    print("\nAnnotated: " + ", ".join("%s (%s)" % (h, n) for n, _, h, _, _ in results))
    for line in notes:
        print(line)
    print("targets (<= %d ms on the small workloads, <= %d ms on the big one, "
          "faster than perf report): %s" % (TARGET_MS, BIG_TARGET_MS, "met" if not
                                            misses else "MISSED: " + "; ".join(misses)))


if __name__ == "__main__":
    main()
