#!/usr/bin/env python3
"""jit.py - a Node.js program (bench/js/split.js: hotA and hotB in turns,
3:1, each timed by the program) profiled through V8's perf map
(node --perf-basic-prof) and jitdump (node --perf-prof), ROUNDS times:

  - unprofiled;
  - profil record, each engine;
  - perf record -F 1000 -g (frame pointers: V8 keeps them), then
    perf report, which reads the same map (not with --perf-prof: perf
    needs `perf inject --jit` for jitdump, a second pass, left out).

Prints medians (quartiles beside) of the total CPU (program and
recorder, from the children's rusage) against the unprofiled run of the
same round, and of how far each profiler's hotA/(hotA+hotB) is from the
program's own measure, in points; and the share of hotA's samples whose
stack reaches node::Start.

usage: bench/jit.py [BUILD_DIR [ROUNDS [SECONDS]]]   (build 5 2)
"""
import csv as csvmod
import glob
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from common import children_cpu, quartiles

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 5
SECONDS = sys.argv[3] if len(sys.argv) > 3 else "2"
PROFIL = os.path.abspath(os.path.join(BUILD, "profil"))
SPLIT = os.path.abspath(os.path.join(os.path.dirname(__file__), "js",
                                     "split.js"))



def run(cmd, cwd):
    """(total CPU seconds of everything the command ran, its stdout)."""
    before = children_cpu()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         cwd=cwd).stdout
    return children_cpu() - before, out


def truth(out):
    w = out.split()
    a, b = float(w[w.index("hotA") + 1]), float(w[w.index("hotB") + 1])
    return a / (a + b)


def profil_share(prf, cwd):
    """hotA's samples of hotA's and hotB's, from the flat CSV."""
    csv = subprocess.run([PROFIL, "report", "--format", "csv", prf],
                         check=True, capture_output=True, text=True,
                         cwd=cwd).stdout
    a = b = 0.0
    for row in csvmod.reader(csv.splitlines()[1:]):
        # function,object,samples,...
        if "hotA" in row[0]:
            a += float(row[2])
        elif "hotB" in row[0]:
            b += float(row[2])
    return a / (a + b) if a + b else float("nan")


def reaching(prf, cwd):
    """hotA's samples whose folded stack reaches node::Start, of all."""
    out = os.path.join(cwd, "f.folded")
    subprocess.run([PROFIL, "export", "-f", "folded", "-o", out, prf],
                   check=True, capture_output=True, cwd=cwd)
    whole = every = 0.0
    with open(out) as f:
        for line in f:
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if "hotA" in stack.rsplit(";", 1)[-1]:
                every += float(n)
                whole += float(n) if "node::Start" in stack else 0
    return whole / every if every else float("nan")


def perf_share(data, cwd):
    rep = subprocess.run(["perf", "report", "-i", data, "--stdio",
                          "--no-children", "--sort", "sym", "-F",
                          "period,sym"], capture_output=True, text=True,
                         cwd=cwd).stdout
    a = b = 0.0
    for line in rep.splitlines():
        w = line.split()
        if len(w) < 2 or not w[0].isdigit():
            continue
        if "hotA" in line:
            a += float(w[0])
        elif "hotB" in line:
            b += float(w[0])
    return a / (a + b) if a + b else float("nan")



def main():
    have_perf = shutil.which("perf") is not None
    ratio = {}
    error = {}
    reach = {}
    for _ in range(ROUNDS):
        for flag in ("--perf-basic-prof", "--perf-prof"):
            began = time.time()
            cwd = tempfile.mkdtemp(prefix="profil-jit-")
            node = ["node", flag, SPLIT, SECONDS]
            base, _ = run(node, cwd)
            runs = [("profil perf", [PROFIL, "record", "-q", "-e", "perf",
                                     "-o", "p.prf"] + node),
                    ("profil timer", [PROFIL, "record", "-q", "-e", "timer",
                                      "-o", "t.prf"] + node)]
            if have_perf and flag == "--perf-basic-prof":
                runs.append(("perf record -g", ["perf", "record", "-q",
                             "-F", "1000", "-g", "-o", "perf.data"] + node))
            for name, cmd in runs:
                cpu, out = run(cmd, cwd)
                key = (name, flag)
                ratio.setdefault(key, []).append(cpu / base)
                if name.startswith("profil"):
                    prf = os.path.join(cwd, cmd[6])
                    share = profil_share(prf, cwd)
                    reach.setdefault(key, []).append(reaching(prf, cwd))
                else:
                    share = perf_share(os.path.join(cwd, "perf.data"), cwd)
                error.setdefault(key, []).append(100 * abs(share -
                                                           truth(out)))
            # node leaves its map in /tmp: ours, of this round
            for m in glob.glob("/tmp/perf-*.map"):
                if os.path.getmtime(m) >= began:
                    os.unlink(m)
            shutil.rmtree(cwd)
    print(f"{ROUNDS} rounds of {SECONDS} s; load average before: "
          f"{os.getloadavg()[0]:.2f}")
    print(f"{'profiler':16} {'names from':18} {'total CPU':>17} "
          f"{'|share - truth|':>22} {'hotA to node::Start':>20}")
    for key in ratio:
        r, e = ratio[key], error[key]
        rq, eq = quartiles(r), quartiles(e)
        reached = (f"{100 * statistics.median(reach[key]):.1f}%"
                   if key in reach else "-")
        print(f"{key[0]:16} {key[1]:18} {statistics.median(r):6.3f}x "
              f"({rq[0]:.3f}-{rq[1]:.3f}) {statistics.median(e):6.2f} pts "
              f"({eq[0]:.2f}-{eq[1]:.2f}) {reached:>20}")


main()
