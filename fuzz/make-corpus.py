#!/usr/bin/env python3
"""make-corpus.py [--record BUILD] - the seed corpus of the fuzz targets.

    tests/corpus/prf/     .prf files: recorded ones (ok-rec-*, with call stacks
                          where perf took them), and ones made here from them
                          and from scratch (every record, the optional kernel,
                          kept-names and stacks ones too), valid (ok-*) and
                          malformed (bad-*)
    tests/corpus/report/  the recorded .prf files, made ones with stacks, and
                          some naming real files
    tests/corpus/elf/     small ELF files compiled here (ok-*), and damaged
                          copies of them (odd-*)
    tests/corpus/perfmap/ perf maps (/tmp/perf-PID.map) as runtimes write them
                          (ok-*), with malformed lines (bad-*), and lines too
                          long, binary and cut (odd-*)
    tests/corpus/jitdump/ jitdump files (jit-PID.dump) of every record kind
                          (ok-*), malformed ones (bad-*), and ones cut short
                          or claiming huge records (odd-*)

With --record BUILD it first records fresh ok-rec-* files with
BUILD/profil and BUILD/tests/workload (not reproducible: sampling); without,
it only remakes the derived files, which are the same on every run given the
same recorded files, compilers and system libraries.  The names are the
promise the corpus replay of `make check` checks (fuzz/fuzz.h): ok-* must be
accepted, bad-* refused; odd-* only must not break anything.  They have no
.prf suffix: the repository ignores *.prf files.
"""
import glob
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "tests", "corpus")

# ---- the .prf format (docs/prf-format.md) --------------------------------

MAGIC = b"\x89PRF\r\n\x1a\n"
HEADER, OBJECT, THREAD, PROCESS, END = 1, 2, 3, 4, 0xFFFF
KERNEL, SYMBOLS, STACKS = 5, 6, 7
WALL, LINES, TIMELINE = 9, 10, 13
U64 = (1 << 64) - 1


def u8(v): return struct.pack("<B", v)
def u16(v): return struct.pack("<H", v)
def u32(v): return struct.pack("<I", v & 0xFFFFFFFF)
def u64(v): return struct.pack("<Q", v & U64)


def string(s):
    b = s.encode() if isinstance(s, str) else s
    return u32(len(b)) + b


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def record(tag, payload, flags=0, length=None):
    return u16(tag) + u16(flags) + u32(len(payload) if length is None
                                       else length) + payload


def header(samples, kernel=0, unknown=0, lost=0, engine="perf",
           argv=("./app", "--flag"), bucket=1, interval=1000000):
    p = u64(interval) + u32(bucket) + string(engine) + u32(len(argv))
    for a in argv:
        p += string(a)
    p += u64(1763700000000000000) + u64(2500000000) + u64(2400000000)
    return record(HEADER, p + u64(samples) + u64(kernel) + u64(unknown) +
                  u64(lost))


def histogram(counts, lowpc, bucket, encoding=None):
    """counts: {addr: count}.  Sparse unless encoding says dense (0)."""
    index = sorted((a - lowpc) // bucket for a in counts)
    by_index = {(a - lowpc) // bucket: c for a, c in counts.items()}
    if encoding == 0:
        span = index[-1] + 1 if index else 0
        return u8(0) + u64(span) + b"".join(
            varint(by_index.get(i, 0)) for i in range(span))
    out, prev = u8(1) + u64(len(index)), 0
    for i in index:
        out += varint(i - prev) + varint(by_index[i])
        prev = i
    return out


def obj(path, counts, lowpc=0x1000, highpc=0x9000, bucket=1, build_id=b"",
        samples=None, encoding=None, hist=None):
    if samples is None:
        samples = sum(counts.values())
    p = string(path) + u8(len(build_id)) + build_id + u64(lowpc) + \
        u64(highpc) + u32(bucket) + u64(samples)
    return record(OBJECT, p + (hist if hist is not None else
                               histogram(counts, lowpc, bucket, encoding)))


def thread(pid, tid, name, samples):
    return record(THREAD, u32(pid) + u32(tid) + string(name) + u64(samples))


def process(pid, ppid, command, status, samples):
    return record(PROCESS, u32(pid) + u32(ppid) + string(command) +
                  u32(status) + u64(samples))


def finish(records, version=1, crc=None):
    body = MAGIC + u32(version) + b"".join(records)
    return body + record(END, u32(zlib.crc32(body) if crc is None else crc))


def records_of(data):
    """[(offset, tag, flags, length)] of a well-formed file."""
    out, at = [], 12
    while at + 8 <= len(data):
        tag, flags, length = struct.unpack_from("<HHI", data, at)
        out.append((at, tag, flags, length))
        at += 8 + length
    return out


def refresh_crc(data):
    return data[:-4] + u32(zlib.crc32(data[:-12]))


def set_u32(data, at, v):
    return data[:at] + u32(v) + data[at + 4:]


def prf_files(recorded):
    """name -> bytes: valid and malformed profiles."""
    f = {}
    # -- valid, made here: each feature of the format at least once
    exe = {0x1000: 5, 0x1004: 7, 0x2000: 1, 0x8ffc: 1000000}
    lib = {0x20000: 3, 0x20001: 4, 0x20002: 5, 0x20004: 6}
    total = sum(exe.values()) + sum(lib.values()) + 11 + 2
    full = [header(total, kernel=11, unknown=2, lost=9),
            obj("/usr/bin/app", exe, bucket=4, build_id=bytes(range(1, 21))),
            obj("/lib/libm.so.6", lib, lowpc=0x20000, highpc=0x20010,
                encoding=0),
            thread(10, 10, "app", total - 1), thread(10, 11, "worker", 1),
            process(10, 1, "./app --flag", 0, total)]
    f["ok-made-full"] = finish(full)
    f["ok-made-zero-objects"] = finish([header(5, kernel=3, unknown=2)])
    f["ok-made-empty"] = finish([header(0, argv=())])
    f["ok-made-lines"] = finish(full + [lines(
        ["gen.js", "lib.js"], [(0, 0x1000, 0, 10), (0, 0x1004, 1, 7),
                               (1, 0x20000, 0, 12)])])
    f["ok-made-unknown-optional-record"] = finish(
        full[:2] + [record(77, b"future", flags=1)] + full[2:])
    # records the timer engine's recorder refused (tag 12, optional)
    f["ok-made-refused"] = finish(full + [record(12, u64(37), flags=1)])
    f["ok-made-refused-most"] = finish(full + [record(12, u64(U64), flags=1)])
    f["bad-made-refused-none"] = finish(full + [record(12, u64(0), flags=1)])
    f["bad-made-refused-twice"] = finish(
        full + [record(12, u64(1), flags=1), record(12, u64(2), flags=1)])
    f["bad-made-refused-short"] = finish(full + [record(12, u32(1), flags=1)])
    f["bad-made-refused-long"] = finish(
        full + [record(12, u64(1) + b"\0", flags=1)])
    f["ok-made-top-of-address-space"] = finish([
        header(3), obj("[vdso]", {U64 - 15: 1, U64 - 1: 2}, lowpc=U64 - 15,
                       highpc=U64, bucket=1)])
    f["ok-made-dense-trailing-zeros"] = finish([
        header(1), obj("/a", {}, samples=1,
                       hist=u8(0) + u64(4) + varint(1) + b"\0\0\0")])
    f["ok-made-big-counts"] = finish([
        header(U64, unknown=1), obj("/a", {0x1000: U64 - 1})])
    f["ok-made-odd-strings"] = finish([
        header(1, engine="", argv=("", "\u00e9\u00e8", "a,b\"c\n")),
        obj("", {0x1000: 1}), thread(0, 0, "", 1),
        process(0xFFFFFFFF, 0, "", -1, 1)])
    # -- malformed, made here
    bad = {
        "empty": b"",
        "magic-only": MAGIC,
        "bad-magic": b"\x89PRF\n\n\x1a\n" + finish(full)[8:],
        "version-3": finish(full, version=3),   # 2: a wall profile's
        "no-end-record": finish(full)[:-12],
        "checksum": finish(full, crc=0x1A2B3C4D),
        "end-record-length-5": finish(full)[:-12] + record(END, u32(0) + b"x"),
        "bytes-after-end": finish(full) + b"\0",
        "first-record-not-header": finish(full[1:2] + full[:1]),
        "second-header": finish(full[:1] + full),
        "unknown-record": finish(full[:2] + [record(77, b"x")] + full[2:]),
        "unknown-flags": finish([record(HEADER, full[0][8:], flags=2)]
                                + full[1:]),
        "header-length-past-end": finish([full[0][:4] + u32(0xFFFFFFFF) +
                                          full[0][8:]] + full[1:]),
        "object-length-past-end": finish(full[:1] + [full[1][:4] +
                                         u32(0x7FFFFFFF) + full[1][8:]]),
        "object-length-short": finish(full[:1] + [full[1][:4] + u32(len(
            full[1]) - 9) + full[1][8:]] + full[2:]),
        "object-bytes-left-over": finish(full[:1] + [record(OBJECT, full[1][
            8:] + b"\0")] + full[2:]),
        "argc-huge": finish([record(HEADER, u64(1) + u32(1) + string("perf") +
                                    u32(0xFFFFFFFF))]),
        "header-bucket-size-0": finish([header(1, kernel=1, bucket=0)]),
        "header-bucket-size-2^24": finish([header(1, kernel=1,
                                                  bucket=1 << 24)]),
        "string-length-huge": finish([record(HEADER, u64(1) + u32(1) +
                                             u32(0xFFFFFFF0) + b"perf")]),
        "string-with-nul": finish([header(1), obj("/a\0b", {0x1000: 1})]),
        "path-too-long": finish([header(1), obj("/" + "a" * 5000,
                                                {0x1000: 1})]),
        "build-id-65-bytes": finish([header(1), obj("/a", {0x1000: 1},
                                                    build_id=bytes(65))]),
        "bucket-size-0": finish([header(1), obj("/a", {}, bucket=0, samples=1,
                                 hist=u8(1) + u64(1) + varint(0) +
                                 varint(1))]),
        "bucket-size-2M": finish([header(1), obj("/a", {0x1000: 1},
                                                 bucket=1 << 21)]),
        "empty-range": finish([header(1), obj("/a", {0x1000: 1},
                                              lowpc=0x1000, highpc=0x1000)]),
        "bucket-beyond-highpc": finish([header(1), obj("/a", {0x9000: 1})]),
        "bucket-beyond-2^64": finish([header(1), obj(
            "/a", {}, lowpc=U64 - 15, highpc=U64, bucket=1 << 20, samples=1,
            hist=u8(1) + u64(1) + varint(1 << 40) + varint(1))]),
        "histogram-encoding-2": finish([header(1), obj(
            "/a", {}, samples=1, hist=u8(2) + u64(1) + varint(1))]),
        "dense-count-huge": finish([header(1), obj(
            "/a", {}, samples=1, hist=u8(0) + u64(1 << 62) + varint(1))]),
        "sparse-count-huge": finish([header(1), obj(
            "/a", {}, samples=1, hist=u8(1) + u64(U64) + varint(0) +
            varint(1))]),
        "sparse-delta-0": finish([header(2), obj(
            "/a", {}, samples=2, hist=u8(1) + u64(2) + varint(0) + varint(1) +
            varint(0) + varint(1))]),
        "sparse-index-overflow": finish([header(2), obj(
            "/a", {}, lowpc=0, highpc=U64, samples=2, hist=u8(1) + u64(2) +
            varint(U64) + varint(1) + varint(U64) + varint(1))]),
        "sparse-empty-bucket": finish([header(0), obj(
            "/a", {}, samples=0, hist=u8(1) + u64(1) + varint(0) +
            varint(0))]),
        "varint-11-bytes": finish([header(1), obj(
            "/a", {}, samples=1, hist=u8(0) + u64(1) + b"\x81" + b"\x80" * 9 +
            b"\x00")]),
        "varint-65-bits": finish([header(1), obj(
            "/a", {}, samples=1, hist=u8(0) + u64(1) + b"\xff" * 9 +
            b"\x02")]),
        "bucket-counts-overflow": finish([header(0), obj(
            "/a", {0x1000: 1 << 63, 0x1001: 1 << 63}, samples=0)]),
        "object-samples-overflow": finish([
            header(0), obj("/a", {0x1000: 1 << 63}),
            obj("/b", {0x1000: 1 << 63})]),
        "bucket-counts-not-object-samples": finish([header(2), obj(
            "/a", {0x1000: 1}, samples=2)]),
        "totals-header": finish([header(3), obj("/a", {0x1000: 1})]),
        "totals-kernel-overflow": finish([header(0, kernel=1 << 63,
                                                 unknown=1 << 63)]),
        "totals-threads": finish(full[:3] + [thread(1, 1, "a", 1)]),
        "totals-threads-overflow": finish([
            header(0), thread(1, 1, "a", 1 << 63), thread(1, 2, "b", 1 << 63)]),
        "totals-processes": finish(full[:5] + [process(1, 0, "a", 0, 1)]),
        "thread-truncated": finish([header(1, kernel=1),
                                    record(THREAD, u32(1) + u32(1))]),
        "process-truncated": finish([header(1, kernel=1),
                                     record(PROCESS, u32(1) + u32(1) +
                                            string("a"))]),
    }
    for name, data in bad.items():
        f["bad-made-" + name + ""] = data
    f.update(stacks_files())
    f.update(timeline_files())
    # -- malformed, from a recorded file: cut at every record boundary
    # (and inside every record header and payload), a damaged checksum
    base = recorded[0] if recorded else finish(full)
    cuts = {0, 4, 8, 11}
    for at, tag, flags, length in records_of(base):
        cuts |= {at, at + 3, at + 8 + length // 2}
    for cut in sorted(c for c in cuts if c < len(base)):
        f["bad-cut-at-%04d" % cut] = base[:cut]
    f["bad-rec-checksum"] = base[:-1] + bytes([base[-1] ^ 0x01])
    f["bad-rec-payload-flipped"] = base[:30] + bytes([base[30] ^ 0x40]) + \
        base[31:]
    for at, tag, flags, length in records_of(base)[:-1]:
        f["bad-rec-length-past-end-%d" % at] = set_u32(
            base, at + 4, len(base))
        f["bad-rec-length-plus-1-%d" % at] = refresh_crc(set_u32(
            base, at + 4, length + 1))
        if tag == OBJECT:
            # the histogram's n (after path, build-id, lowpc, highpc,
            # bucket_bytes, samples and the encoding byte), claimed huge
            pathlen = struct.unpack_from("<I", base, at + 8)[0]
            idlen = base[at + 12 + pathlen]
            n_at = at + 12 + pathlen + 1 + idlen + 8 + 8 + 4 + 8 + 1
            for claim in (1 << 32, 1 << 62, U64):
                f["bad-rec-bucket-count-%x" % claim] = refresh_crc(
                    base[:n_at] + u64(claim) + base[n_at + 8:])
    return f


# ---- the optional records: kernel (5), kept names (6), stacks (7) --------

KERNEL_ID = bytes(range(0x40, 0x54))
KBASE = 0xFFFFFFFF81000000
CUT_OBJ, UNKNOWN_OBJ, KERNEL_OBJ = 0xFFFFFFFD, 0xFFFFFFFE, 0xFFFFFFFF
FLAG_OPTIONAL = 1


def kernel(counts, boot=b"\x11" * 16, text=KBASE, release="6.1.0-test",
           samples=None):
    """A kernel record: counts {addr: count} at that boot's addresses."""
    lo = min(counts) if counts else KBASE
    hi = max(counts) + 1 if counts else KBASE + 1
    body = obj("[kernel.kallsyms]", counts, lowpc=lo, highpc=hi, bucket=1,
               build_id=KERNEL_ID, samples=samples)[8:]
    return record(KERNEL, string(release) + boot + u64(text) + body,
                  flags=FLAG_OPTIONAL)


def symbols(entries, n=None):
    """entries: [(object, start, size, name)] as written."""
    p = varint(len(entries) if n is None else n)
    for o, start, size, name in entries:
        p += varint(o) + varint(start) + varint(size) + string(name)
    return record(SYMBOLS, p, flags=FLAG_OPTIONAL)


def lines(files, entries):
    """files: names; entries: [(object, addr, file, line)] as written."""
    p = varint(len(files)) + b"".join(string(n) for n in files)
    p += varint(len(entries))
    for o, addr, fi, line in entries:
        p += varint(o) + varint(addr) + varint(fi) + varint(line)
    return record(LINES, p, flags=FLAG_OPTIONAL)


def stacks_payload(frames, nodes, stacks, counts=None, raw_frames=None):
    """frames: [(object, addr)] in order; nodes: [(parent+1 or 0, frame)];
    stacks: [(leaf, pid, tid, count)].  Addresses are written as the
    format wants (deltas within an object) unless raw_frames gives the
    (object, written value) pairs themselves."""
    p = varint(len(frames) if counts is None else counts[0])
    if raw_frames is not None:
        for o, v in raw_frames:
            p += varint(o) + varint(v)
    else:
        prev = None
        for o, a in frames:
            p += varint(o) + varint(a - prev[1] if prev and prev[0] == o
                                    else a)
            prev = (o, a)
    p += varint(len(nodes) if counts is None else counts[1])
    for up, fr in nodes:
        p += varint(up) + varint(fr)
    p += varint(len(stacks) if counts is None else counts[2])
    for leaf, pid, tid, count, *wall in stacks:
        # a wall profile's (version 2): off_ns, sampled_ns, observations
        p += varint(leaf) + varint(pid) + varint(tid) + varint(count)
        p += b"".join(varint(v) for v in wall)
    return p


def stacks_record(*args, **kw):
    return record(STACKS, stacks_payload(*args, **kw), flags=FLAG_OPTIONAL)


def chain(frames_outermost_first, nodes, index):
    """Append a path of frame numbers (outermost first) to nodes, sharing
    the nodes it has in common with what is there (index: (parent + 1,
    frame) -> node); its leaf node."""
    parent = 0
    for fr in frames_outermost_first:
        if (parent, fr) not in index:
            nodes.append((parent, fr))
            index[(parent, fr)] = len(nodes) - 1
        parent = index[(parent, fr)] + 1
    return parent - 1


def stacks_profile(stack_list, objects, extra=(), tail=(), kernel_rec=None,
                   header_kw=None, record_kw=None):
    """A whole valid profile from stacks [(pid, tid, count, [(object, addr)]
    leaf first)] over objects [(path, lowpc, highpc)]: each object's
    histogram, the header's totals and the threads are the stacks' leaves.
    extra: records after the objects; tail: after the stacks."""
    frames = sorted({fr for _, _, _, fs in stack_list for fr in fs})
    number = {fr: i for i, fr in enumerate(frames)}
    nodes, stacks, index = [], [], {}
    hists = [dict() for _ in objects]
    kernel_n = unknown_n = 0
    threads = {}
    for pid, tid, count, fs in stack_list:
        leaf = chain([number[fr] for fr in reversed(fs)], nodes, index)
        stacks.append((leaf, pid, tid, count))
        o, a = fs[0]
        if o == KERNEL_OBJ:
            kernel_n += count
        elif o == UNKNOWN_OBJ:
            unknown_n += count
        else:
            hists[o][a] = hists[o].get(a, 0) + count
        threads[(pid, tid)] = threads.get((pid, tid), 0) + count
    total = sum(c for _, _, c, _ in stack_list)
    recs = [header(total, kernel=kernel_n, unknown=unknown_n,
                   **(header_kw or {}))]
    for (path, lo, hi), h in zip(objects, hists):
        recs.append(obj(path, h, lowpc=lo, highpc=hi,
                        build_id=hashlib.sha1(path.encode()).digest()))
    recs += list(extra)
    for (pid, tid), n in sorted(threads.items()):
        recs.append(thread(pid, tid, "t%d" % tid, n))
    if kernel_rec is not None:
        recs.append(kernel_rec)
    recs.append(stacks_record(frames, nodes, stacks, **(record_kw or {})))
    recs += list(tail)
    return recs


APP = ("/usr/bin/app", 0x1000, 0x9000)
LIBC = ("/lib/x86_64-linux-gnu/libc.so.6", 0x20000, 0x40000)
MAIN, CALL_F, F, G, LIBC_START = (0, 0x1100), (0, 0x1210), (0, 0x1300), \
    (0, 0x1400), (1, 0x20100)


def stacks_files():
    """name -> bytes: profiles with kernel, kept-names and stacks records,
    valid (ok-made-*) and malformed (bad-made-*).  Not here: a tree that
    expands past the 2^24 frames a reader takes (test-prf builds one).
    Its mutants are valid profiles of millions of frames, each taking a
    second to read and write back, and held fuzz-prf to 400 runs a
    second."""
    f = {}
    kcounts = {KBASE + 0x10: 3, KBASE + 0x2000: 1}
    base = [
        (10, 10, 40, [F, CALL_F, MAIN, LIBC_START]),
        (10, 10, 25, [G, MAIN, LIBC_START]),
        (10, 11, 7, [F, CALL_F, MAIN, LIBC_START]),
        (10, 10, 3, [(KERNEL_OBJ, KBASE + 0x10), (KERNEL_OBJ, KBASE + 0x800),
                     G, MAIN, LIBC_START]),
        (10, 10, 1, [(KERNEL_OBJ, KBASE + 0x2000), (1, 0x20300)]),
        (10, 10, 2, [(UNKNOWN_OBJ, 0x7F0000001234), MAIN, LIBC_START]),
        (10, 10, 4, [(0, 0x1500), (CUT_OBJ, 1)]),
        (10, 10, 5, [(0, 0x1504), (0, 0x1600), (CUT_OBJ, 2)]),
        (10, 11, 6, [(1, 0x20400), (CUT_OBJ, 3)]),
        (10, 11, 1, [(0, 0x1508), (CUT_OBJ, 4)]),
        (10, 11, 1, [(0, 0x150C), (CUT_OBJ, 5)]),
        (10, 11, 1, [(0, 0x1510), (CUT_OBJ, 99)]),
    ]
    kept = symbols([(0, 0x1100, 0x100, "main"), (0, 0x1200, 0x80, "call_f"),
                    (0, 0x1300, 0x100, "f"), (0, 0x1400, 0x100, "g"),
                    (1, 0x20100, 0x40, "__libc_start_main"),
                    (KERNEL_OBJ, KBASE, 0x100, "entry_SYSCALL_64"),
                    (KERNEL_OBJ, KBASE + 0x800, 0x1000, "do_syscall_64")])
    full = stacks_profile(base, [APP, LIBC], kernel_rec=kernel(kcounts),
                          tail=[kept])
    f["ok-made-stacks"] = finish(full)
    f["ok-made-kernel"] = finish([
        header(5, kernel=4, unknown=1), kernel(kcounts)])
    f["ok-made-symbols"] = finish([
        header(5, kernel=4, unknown=1), obj("/usr/bin/app", {}, samples=0),
        kernel(kcounts), symbols([(0, 0x1000, 1, "a"), (0, 0x1001, 0x7FFF,
                                  "_ZN2ns1bEv"), (KERNEL_OBJ, U64 - 1, 1,
                                  "at_the_top")])])
    # stacks before the objects: the totals are checked at the end
    f["ok-made-stacks-before-objects"] = finish(
        full[:1] + [full[-2]] + full[1:-2] + full[-1:])
    # the same stack (node and thread) written twice: counts add up
    f["ok-made-stacks-repeated"] = finish(stacks_profile(
        [(1, 1, 2, [F, MAIN]), (1, 1, 3, [F, MAIN])], [APP]))
    f["ok-made-stacks-empty-record"] = finish([
        header(0, argv=()), stacks_record([], [], [])])
    f["ok-made-stacks-unused-frames"] = finish([
        header(1), obj("/a", {0x1000: 1}),
        stacks_record([(0, 0x1000), (0, 0x1001), (0, 0x5000),
                       (KERNEL_OBJ, 7)], [(0, 0)], [(0, 1, 1, 1)])])
    f["ok-made-stacks-big-counts"] = finish(stacks_profile(
        [(1, 1, U64 - 2, [F, MAIN]), (0xFFFFFFFF, 0xFFFFFFFF, 2,
                                       [G, MAIN])], [APP]))
    # recursion 4096 deep: one frame, 4096 nodes (small for the fuzzer)
    deepest = [(0, 0x1000)] * 4096
    f["ok-made-stacks-deepest"] = finish(stacks_profile(
        [(1, 1, 1, deepest)], [("/a", 0x1000, 0x3000)]))
    f["ok-made-stacks-empty-record-with-samples"] = finish([
        header(5), obj("/a", {0x1000: 5}), stacks_record([], [], [])])
    f["ok-made-stacks-top-of-address-space"] = finish(stacks_profile(
        [(1, 1, 1, [(0, U64 - 1), (0, U64 - 2), (KERNEL_OBJ, U64)])],
        [("[vdso]", U64 - 15, U64)]))
    # -- malformed
    one = [header(5), obj("/a", {0x1000: 5})]
    leaf = [(0, 0x1000)]
    bad = {
        "stacks-leaves-short": one + [stacks_record(leaf, [(0, 0)],
                                                    [(0, 1, 1, 4)])],
        "stacks-leaves-in-another-object": [
            header(5), obj("/a", {0x1000: 3}), obj("/b", {0x1000: 2}),
            stacks_record([(0, 0x1000), (1, 0x1000)], [(0, 0), (0, 1)],
                          [(0, 1, 1, 2), (1, 1, 1, 3)])],
        "stacks-kernel-leaves": [
            header(5, kernel=2), obj("/a", {0x1000: 3}),
            stacks_record([(0, 0x1000), (KERNEL_OBJ, KBASE)],
                          [(0, 0), (0, 1)], [(0, 1, 1, 4), (1, 1, 1, 1)])],
        "stacks-unknown-leaves": [
            header(5, unknown=2), obj("/a", {0x1000: 3}),
            stacks_record([(0, 0x1000), (UNKNOWN_OBJ, 5)],
                          [(0, 0), (0, 1)], [(0, 1, 1, 3), (1, 1, 1, 1),
                                             (0, 1, 2, 1)])],
        "stacks-cut-in-the-middle": one + [stacks_record(
            [(0, 0x1000), (0, 0x1100), (CUT_OBJ, 1)],
            [(0, 1), (1, 2), (2, 0)], [(2, 1, 1, 5)])],
        "stacks-leaf-is-a-cut": [header(5, unknown=5), stacks_record(
            [(CUT_OBJ, 3)], [(0, 0)], [(0, 1, 1, 5)])],
        "stacks-parent-later": one + [stacks_record(
            [(0, 0x1000), (0, 0x1100)], [(2, 0), (0, 1)], [(0, 1, 1, 5)])],
        "stacks-parent-itself": one + [stacks_record(
            leaf, [(1, 0)], [(0, 1, 1, 5)])],
        "stacks-frames-objects-out-of-order": [
            header(5), obj("/a", {0x1000: 5}), obj("/b", {}, samples=0),
            stacks_record(None, [(0, 0), (1, 1)], [(1, 1, 1, 5)],
                          raw_frames=[(1, 0x1000), (0, 0x1000)],
                          counts=(2, 2, 1))],
        "stacks-frames-same-address": one + [stacks_record(
            None, [(0, 0)], [(0, 1, 1, 5)], raw_frames=[(0, 0x1000), (0, 0)],
            counts=(2, 1, 1))],
        "stacks-frame-address-past-2^64": one + [stacks_record(
            None, [(0, 0)], [(0, 1, 1, 5)],
            raw_frames=[(0, 0x1000), (0, U64 - 0x800)], counts=(2, 1, 1))],
        "stacks-counts-overflow": [
            header(U64), obj("/a", {0x1000: U64}),
            stacks_record(leaf, [(0, 0)], [(0, 1, 1, 1 << 63),
                                           (0, 1, 2, 1 << 63)])],
        "stacks-count-0": one + [stacks_record(leaf, [(0, 0)],
                                               [(0, 1, 1, 5), (0, 1, 2, 0)])],
        "stacks-deeper-than-4096": stacks_profile(
            [(1, 1, 1, deepest + [(0, 0x2000)])], [("/a", 0x1000, 0x3000)]),
        "stacks-frame-of-no-object": one + [stacks_record(
            [(0, 0x1000), (2, 0x1000)], [(0, 1), (1, 0)], [(1, 1, 1, 5)])],
        "stacks-frame-object-2^32": one + [stacks_record(
            [(0, 0x1000), (1 << 32, 0x1000)], [(0, 1), (1, 0)],
            [(1, 1, 1, 5)])],
        "stacks-node-frame-out-of-range": one + [stacks_record(
            leaf, [(0, 1)], [(0, 1, 1, 5)])],
        "stacks-leaf-out-of-range": one + [stacks_record(
            leaf, [(0, 0)], [(1, 1, 1, 5)])],
        "stacks-pid-2^32": one + [stacks_record(leaf, [(0, 0)],
                                                [(0, 1 << 32, 1, 5)])],
        "stacks-second-record": one + [stacks_record(
            leaf, [(0, 0)], [(0, 1, 1, 5)])] * 2,
        "stacks-nframes-huge": one + [stacks_record(
            leaf, [(0, 0)], [(0, 1, 1, 5)], counts=(1 << 40, 1, 1))],
        "stacks-nnodes-huge": one + [stacks_record(
            leaf, [(0, 0)], [(0, 1, 1, 5)], counts=(1, 1 << 40, 1))],
        "stacks-nstacks-huge": one + [stacks_record(
            leaf, [(0, 0)], [(0, 1, 1, 5)], counts=(1, 1, U64))],
        "stacks-bytes-left-over": one + [record(STACKS, stacks_payload(
            leaf, [(0, 0)], [(0, 1, 1, 5)]) + b"\0", flags=FLAG_OPTIONAL)],
        "stacks-truncated": one + [record(STACKS, stacks_payload(
            leaf, [(0, 0)], [(0, 1, 1, 5)])[:-1], flags=FLAG_OPTIONAL)],
        "kernel-second-record": [header(4, kernel=4), kernel(kcounts),
                                 kernel(kcounts)],
        "kernel-samples-not-the-header's": [header(5, kernel=5),
                                            kernel(kcounts)],
        "kernel-record-samples-not-its-buckets": [
            header(5, kernel=5), kernel(kcounts, samples=5)],
        "kernel-truncated": [header(4, kernel=4), record(
            KERNEL, string("6.1") + b"\x11" * 10, flags=FLAG_OPTIONAL)],
        "lines-out-of-order": [header(0), obj("/a", {}, samples=0), lines(
            ["a.js"], [(0, 0x20, 0, 1), (0, 0x10, 0, 2)])],
        "lines-file-out-of-range": [header(0), obj("/a", {}, samples=0),
                                    lines(["a.js"], [(0, 0x10, 1, 1)])],
        "lines-of-no-object": [header(0), obj("/a", {}, samples=0), lines(
            ["a.js"], [(1, 0x10, 0, 1)])],
        "symbols-overlap": [header(0), obj("/a", {}, samples=0), symbols(
            [(0, 0x1000, 0x10, "a"), (0, 0x100F, 0x10, "b")])],
        "symbols-out-of-order": [header(0), obj("/a", {}, samples=0),
                                 obj("/b", {}, samples=0), symbols(
            [(1, 0x1000, 0x10, "a"), (0, 0x2000, 0x10, "b")])],
        "symbols-size-0": [header(0), obj("/a", {}, samples=0), symbols(
            [(0, 0x1000, 0, "a")])],
        "symbols-end-past-2^64": [header(0), obj("/a", {}, samples=0),
                                  symbols([(0, U64 - 1, 2, "a")])],
        "symbols-of-no-object": [header(0), obj("/a", {}, samples=0),
                                 symbols([(1, 0x1000, 1, "a")])],
        "symbols-kernel-without-its-record": [header(0), symbols(
            [(KERNEL_OBJ, KBASE, 1, "a")])],
        "symbols-second-record": [header(0), obj("/a", {}, samples=0),
                                  symbols([(0, 1, 1, "a")]),
                                  symbols([(0, 2, 1, "b")])],
        "symbols-n-huge": [header(0), symbols([(0, 1, 1, "a")], n=1 << 40)],
        "symbols-name-with-nul": [header(0), obj("/a", {}, samples=0),
                                  symbols([(0, 1, 1, "a\0b")])],
    }
    for name, recs in bad.items():
        f["bad-made-" + name] = finish(recs)
    return f


# ---- the timeline (13): when each stack's samples came -------------------

OFFCPU_OBJ = 0xFFFFFFFC
RUNNABLE, BLOCKED = 0x100000001, 0x100000003


def timeline(slice_ns, nslices, entries, n=None, raw=None):
    """A timeline record: entries [(stack, slice, value)] sorted, written
    as the format wants (stack gaps, slice distances within a stack), or
    raw [(gap, slice, value)] as given; n: the count claimed."""
    p = varint(slice_ns) + varint(nslices)
    p += varint(len(entries if raw is None else raw) if n is None else n)
    if raw is None:
        raw, prev = [], None
        for st, sl, v in entries:
            same = prev is not None and prev[0] == st
            raw.append((st - (prev[0] if prev else 0),
                        sl - prev[1] if same else sl, v))
            prev = (st, sl)
    for gap, sl, v in raw:
        p += varint(gap) + varint(sl) + varint(v)
    return record(TIMELINE, p, flags=FLAG_OPTIONAL)


def spread(stack, first, count, per_slice):
    """stack's count over slices from first, per_slice a slice at most."""
    out, sl = [], first
    while count > 0:
        v = min(count, per_slice)
        out.append((stack, sl, v))
        count -= v
        sl += 1
    return out


def wall_timeline_profile(tl):
    """A wall profile (version 2) of two threads: thread 7 with 10 samples
    at f under main then 500 ms asleep in clock_nanosleep, thread 8 3 ms
    preempted and 1 ms blocked where is not known; tl: the timeline
    record, or a function of the stacks record's position (None: none)."""
    frames = [MAIN, F, (OFFCPU_OBJ, 230), (OFFCPU_OBJ, RUNNABLE),
              (OFFCPU_OBJ, BLOCKED), (CUT_OBJ, 5)]
    nodes = [(0, 0), (1, 1), (1, 2), (2, 3), (0, 5), (5, 4)]
    stacks = [(1, 7, 7, 10, 0, 0, 0), (2, 7, 7, 0, 500000000, 0, 0),
              (3, 7, 8, 0, 3000000, 3000000, 4),
              (5, 7, 8, 0, 1000000, 1000000, 0)]
    recs = [header(10), obj(APP[0], {F[1]: 10}, lowpc=APP[1], highpc=APP[2]),
            thread(7, 7, "app", 10), thread(7, 8, "waiter", 0),
            stacks_record(frames, nodes, stacks),
            record(WALL, u64(5000000) + u64(12) + u64(3) + u64(0))]
    if tl is not None:
        recs.append(tl)
    return finish(recs, version=2)


def timeline_files():
    """name -> bytes: profiles with a timeline, CPU and wall, valid
    (ok-made-timeline*) and each way the record can be wrong
    (bad-made-timeline-*)."""
    f = {}
    # the stacks of stacks_files' base, flat: 12 stacks of two threads
    base = [(10, 10, 40, [F, CALL_F, MAIN]), (10, 10, 25, [G, MAIN]),
            (10, 11, 7, [F, CALL_F, MAIN]), (10, 10, 3, [(KERNEL_OBJ, KBASE),
                                                         G, MAIN]),
            (10, 10, 2, [(UNKNOWN_OBJ, 0x7F0000001234), MAIN]),
            (10, 11, 4, [(0, 0x1500), (CUT_OBJ, 1)])]
    # 2^21 ns slices (2.5 s: 1193), each stack spread from its own start
    ok = []
    for i, (_, _, count, _) in enumerate(base):
        ok += spread(i, 3 * i, count, 6)
    ns, n = 1 << 21, 1193

    def cpu(tl):
        return finish(stacks_profile(base, [APP], tail=tl))

    f["ok-made-timeline"] = cpu([timeline(ns, n, ok)])
    f["ok-made-timeline-one-slice"] = cpu([timeline(1 << 32, 1, [
        (i, 0, c) for i, (_, _, c, _) in enumerate(base)])])
    # the most slices a reader takes, entries at both ends
    f["ok-made-timeline-most-slices"] = cpu([timeline(1, 1 << 24, [
        (i, k, c // 2 if k == 0 else c - c // 2)
        for i, (_, _, c, _) in enumerate(base)
        for k in (0, (1 << 24) - 1)])])
    f["ok-made-timeline-big-counts"] = finish(stacks_profile(
        [(1, 1, U64 - 2, [F, MAIN]), (2, 2, 2, [G, MAIN])], [APP],
        tail=[timeline(1 << 20, 4, [(0, 0, 1 << 63), (0, 3, (1 << 63) - 3),
                                    (1, 1, 2)])]))
    # a wall profile's: samples and ns off the CPU, 2^22 ns slices (121)
    wall = [(0, 0, 4), (0, 1, 6)] + spread(1, 1, 500000000, 1 << 22)
    wall += [(2, 0, 3000000), (3, 120, 1000000)]
    f["ok-made-timeline-wall"] = wall_timeline_profile(
        timeline(1 << 22, 121, wall))
    short = [(st, sl, v - 1 if (st, sl) == (0, 1) else v)
             for st, sl, v in wall]
    f["bad-made-timeline-wall-samples-short"] = wall_timeline_profile(
        timeline(1 << 22, 121, short))
    late = [(st, sl, v + 1 if st == 3 else v) for st, sl, v in wall]
    f["bad-made-timeline-wall-ns-long"] = wall_timeline_profile(
        timeline(1 << 22, 121, late))

    def changed(i, field, v):
        e = list(ok)
        e[i] = tuple(v if k == field else x for k, x in enumerate(e[i]))
        return e

    first_of_1 = next(k for k, e in enumerate(ok) if e[0] == 1)
    stacks_only = stacks_profile(base, [APP])
    bad = {
        "second-record": [timeline(ns, n, ok)] * 2,
        "slice-ns-0": [timeline(0, n, ok)],
        "nslices-0": [timeline(ns, 0, ok)],
        "nslices-2^24+1": [timeline(1, (1 << 24) + 1, ok)],
        "slices-past-2^64": [timeline(1 << 41, 1 << 23, ok)],
        "past-the-last-slice": [timeline(ns, 12, ok)],
        "slice-distance-past-the-last": [timeline(ns, n, None, raw=[
            (0, 0, 20), (0, n - 1, 10), (0, 1, 10)])],
        "slice-distance-0": [timeline(ns, n, changed(1, 1, ok[0][1]))],
        "empty-entry": [timeline(ns, n, changed(first_of_1, 2, 0))],
        "stack-past-the-stacks": [timeline(ns, n, ok + [(6, 0, 1)])],
        "sums-short": [timeline(ns, n, ok[1:])],
        "sums-long": [timeline(ns, n, changed(0, 2, ok[0][2] + 1))],
        "counts-overflow": [timeline(ns, n, [(0, 0, 1 << 63),
                                             (0, 1, 1 << 63)] + ok[7:])],
        "n-huge": [timeline(ns, n, ok, n=1 << 40)],
        "n-short": [timeline(ns, n, ok, n=len(ok) - 1)],
        "truncated": [timeline(ns, n, ok)[:-1]],
    }
    for name, tail in bad.items():
        recs = stacks_only + tail
        if name == "truncated":	# the record's length made its bytes'
            t = tail[0]
            recs = stacks_only + [t[:4] + u32(len(t) - 8) + t[8:]]
        f["bad-made-timeline-" + name] = finish(recs)
    f["bad-made-timeline-before-the-stacks"] = finish(
        stacks_only[:-1] + [timeline(ns, n, ok)] + stacks_only[-1:])
    f["bad-made-timeline-of-no-stacks"] = finish([
        header(5), obj("/a", {0x1000: 5}), stacks_record([], [], []),
        timeline(ns, n, [])])
    f["bad-made-timeline-without-stacks"] = finish([
        header(5), obj("/a", {0x1000: 5}), timeline(ns, n, [])])
    return f


def libc_stacks_file():
    """A profile with stacks through libc's own functions (named from the
    file here) and the kernel, for the report target; None without nm's
    answer."""
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    funcs = functions_of(libc, True)
    if len(funcs) < 8:
        return None
    step = max(1, len(funcs) // 8)
    picked = [a + min(s, 8) // 2 for a, s in funcs[::step]][:8]
    lo = min(picked) - min(picked) % 16
    objects = [APP, (libc, lo, max(picked) + 16)]
    lib = [(1, a) for a in picked]
    st = [(7, 7, 5 + i, [lib[i], lib[(i + 1) % 8], MAIN])
          for i in range(8)]
    st.append((7, 8, 3, [(KERNEL_OBJ, KBASE + 0x10), lib[0], MAIN]))
    st.append((7, 8, 2, [lib[3], (CUT_OBJ, 3)]))
    return finish(stacks_profile(st, objects,
                                 kernel_rec=kernel({KBASE + 0x10: 3})))


# ---- ELF files -----------------------------------------------------------

TINY_C = r"""
#include <stdio.h>
#include <stdlib.h>
static volatile unsigned long sink;
__attribute__((noinline)) static void burn(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void six(void) { burn(600); }
__attribute__((noinline, cold)) void rarely(void) { burn(1); abort(); }
int main(int argc, char **argv)
{ six(); if (argc > 5) rarely(); printf("%s\n", argv[0]); return 0; }
"""

# The file the damaged copies are made from: small (no libc, packed
# segments) but with all a real one has: symtab, dynsym, build-id, DWARF.
SMALL_C = r"""
static volatile unsigned long sink;
__attribute__((noinline)) static void burn(unsigned long n)
{ for (unsigned long i = 0; i < n; i++) sink += i * i; }
__attribute__((noinline)) void six(void) { burn(600); }
__attribute__((noinline)) void three(void) { burn(300); }
void _start(void) { six(); three(); for (;;); }
"""

TINY_CC = r"""
namespace ns {
template <typename T> struct box {
	T v;
	__attribute__((noinline)) T get() const { return v; }
};
__attribute__((noinline)) int work(const char *s) { return s[0]; }
}
int main(int argc, char **argv)
{
	ns::box<long> b{argc};
	return ns::work(argv[0]) + (int)b.get();
}
"""

# Symbols a compiler does not make: nested, overlapping, zero-size, at the
# end of the section, sized past it, with a wrapping size, aliases, an
# ifunc, a mangled name.
ODD_S = r"""
	.text
	.globl outer
	.type outer, @function
outer:	.fill 16, 1, 0x90
	.type inner, @function
inner:	.fill 8, 1, 0x90
	.size inner, 8
	.type zero_size, @function
zero_size:
	.fill 8, 1, 0x90
	.type overlap, @function
overlap: .fill 32, 1, 0x90
	.size outer, 48
	.size overlap, 32
	.globl alias
	.type alias, @function
	.set alias, outer
	.size alias, 16
	.type _ZN2ns5thingEv, @function
_ZN2ns5thingEv:
	.fill 8, 1, 0xc3
	.size _ZN2ns5thingEv, 4096
	.type resolver, @function
resolver: lea outer(%rip), %rax
	ret
	.size resolver, .-resolver
	.type chooser, @gnu_indirect_function
	.set chooser, resolver
	.type wraps, @function
wraps:	.fill 4, 1, 0x90
	.size wraps, 0xfffffffffffffff0
	.globl _start
	.type _start, @function
_start:	.fill 4, 1, 0xc3
	.type at_end, @function
at_end:
"""

EHDR = "<16sHHIQQQIHHHHHH"
SHDR = "<IIQQQQIIQQ"
PHDR = "<IIQQQQQQ"
SYM = "<IBBHQQ"


def run(*cmd, cwd=None):
    subprocess.run(cmd, check=True, cwd=cwd)


def build_elf_seeds(tmp):
    """name -> path of the valid ELF files compiled in tmp."""
    def src(name, text):
        p = os.path.join(tmp, name)
        with open(p, "w") as fp:
            fp.write(text)
        return p

    c, cc, s = src("tiny.c", TINY_C), src("tiny.cc", TINY_CC), \
        src("odd.s", ODD_S)
    small_c = src("small.c", SMALL_C)
    out = {}

    def cmd(name, *args):
        path = os.path.join(tmp, name)
        # the same bytes whatever the temporary directory was
        prefix = {"gcc": ["-ffile-prefix-map=%s=/corpus" % tmp],
                  "g++": ["-ffile-prefix-map=%s=/corpus" % tmp],
                  "as": ["--debug-prefix-map", "%s=/corpus" % tmp]}
        run(args[0], *prefix.get(args[0], []),
            *[a.replace("@", path) for a in args[1:]], cwd=tmp)
        out[name] = path

    small = "-Wl,-z,noseparate-code"	# half the size, the same to us
    cmd("ok-c-Os-g", "gcc", "-Os", "-g", small, "-o", "@", c)
    cmd("ok-c-O2-nopie", "gcc", "-O2", "-no-pie", small, "-o", "@", c)
    cmd("ok-c-stripped", "gcc", "-Os", "-s", small, "-o", "@", c)
    cmd("ok-small-static-pie", "gcc", "-Os", "-g", "-nostdlib", "-static-pie",
        "-Wl,--build-id,-z,noseparate-code,-z,max-page-size=16,"
        "-z,common-page-size=16", "-o", "@", small_c)
    cmd("ok-c-object.o", "gcc", "-Os", "-g", "-c", "-o", "@", c)
    cmd("ok-c-shared.so", "gcc", "-Os", "-g", "-shared", "-fPIC", small, "-o",
        "@", c)
    cmd("ok-c-gdwarf4", "gcc", "-Og", "-gdwarf-4", small, "-o", "@", c)
    cmd("ok-cc-Os-g", "g++", "-Os", "-g", small, "-o", "@", cc)
    cmd("ok-odd-symbols.o", "as", "-g", "-o", "@", s)
    # (ld 2.40 fails on the ifunc with debug information: link it without)
    run("as", "-o", "nodebug.o", s, cwd=tmp)	# (no debug: no tmp path)
    cmd("ok-odd-symbols", "ld", "-o", "@", "nodebug.o")
    # a stripped file with a .gnu_debuglink to a debug file not there
    cmd("ok-c-debuglink", "objcopy", "--strip-debug",
        "--add-gnu-debuglink=tiny.c", "ok-c-Os-g", "@")
    return out


def sections(data):
    e = struct.unpack_from(EHDR, data, 0)
    shoff, shentsize, shnum = e[6], e[11], e[12]
    return [(shoff + i * shentsize,) + struct.unpack_from(
        SHDR, data, shoff + i * shentsize) for i in range(shnum)]


def patch(data, at, fmt, *values):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, *values)
    return bytes(b)


def damaged_elf(data):
    """name -> bytes: copies of a valid ELF executable, damaged."""
    f = {}
    e = list(struct.unpack_from(EHDR, data, 0))
    phoff, shoff, phentsize, phnum, shentsize = e[5], e[6], e[9], e[10], e[11]
    for name, cut in (("ehdr", 40), ("64", 64), ("phdrs", phoff + phentsize
                      + phentsize // 2), ("half", len(data) // 2),
                      ("before-shdrs", shoff), ("mid-shdrs",
                      shoff + 5 * shentsize + 7)):
        f["odd-cut-" + name] = data[:cut]

    def ehdr(**kw):
        fields = ["ident", "type", "machine", "version", "entry", "phoff",
                  "shoff", "flags", "ehsize", "phentsize", "phnum",
                  "shentsize", "shnum", "shstrndx"]
        v = list(e)
        for k, x in kw.items():
            v[fields.index(k)] = x
        return struct.pack(EHDR, *v) + data[64:]

    f["odd-shnum-huge"] = ehdr(shnum=0xFEFF)
    f["odd-shoff-past-end"] = ehdr(shoff=len(data) + 4096)
    f["odd-shoff-top"] = ehdr(shoff=U64 - 63)
    f["odd-phnum-huge"] = ehdr(phnum=0xFFFF)
    f["odd-phoff-past-end"] = ehdr(phoff=len(data) - 10)
    f["odd-shstrndx-bogus"] = ehdr(shstrndx=0xFEF0)
    f["odd-entsize-0"] = ehdr(shentsize=0, phentsize=0)
    # extended numbering: the counts live in section 0, claimed huge
    ext = ehdr(shnum=0, shstrndx=0xFFFF, phnum=0xFFFF)
    f["odd-extended-counts-huge"] = patch(
        ext, shoff, SHDR, 0, 0, 0, 0, 0, 0xFFFFFFFF, 0xFFFFFFF, 0xFFFFFFFF,
        0, 0)
    f["odd-class32"] = data[:4] + b"\x01" + data[5:]
    f["odd-bigendian"] = data[:5] + b"\x02" + data[6:]
    f["odd-type-core"] = ehdr(type=4)
    secs = sections(data)
    symtabs = [s for s in secs if s[2] in (2, 11)]	# SYMTAB, DYNSYM
    for at, name, typ, flags, addr, off, size, link, info, align, ent in \
            symtabs:
        kind = "symtab" if typ == 2 else "dynsym"
        own = secs.index(next(s for s in secs if s[0] == at))
        f["odd-%s-size-huge" % kind] = patch(
            data, at, SHDR, name, typ, flags, addr, off, 1 << 40, link, info,
            align, ent)
        f["odd-%s-entsize-1" % kind] = patch(
            data, at, SHDR, name, typ, flags, addr, off, size, link, info,
            align, 1)
        f["odd-%s-link-self" % kind] = patch(
            data, at, SHDR, name, typ, flags, addr, off, size, own, info,
            align, ent)
        f["odd-%s-offset-past-end" % kind] = patch(
            data, at, SHDR, name, typ, flags, addr, len(data) - 30, size, link,
            info, align, ent)
        syms = []
        for i in range(size // 24):
            sym = list(struct.unpack_from(SYM, data, off + 24 * i))
            syms.append((off + 24 * i, sym))

        def each_func(tag, change):
            b = bytearray(data)
            for where, sym in syms:
                if sym[1] & 0xF in (2, 10):	# FUNC, GNU_IFUNC
                    struct.pack_into(SYM, b, where, *change(list(sym)))
            f["odd-%s-%s" % (kind, tag)] = bytes(b)

        each_func("names-past-strtab", lambda s: [0x7FFFFFF0] + s[1:])
        each_func("zero-size", lambda s: s[:5] + [0])
        each_func("all-overlap", lambda s: s[:5] + [0x100000])
        each_func("size-wraps", lambda s: s[:4] + [U64 - 15, 1000])
        each_func("value-0", lambda s: s[:4] + [0, s[5]])
        each_func("shndx-xindex", lambda s: s[:3] + [0xFFFF] + s[4:])
        each_func("shndx-bogus", lambda s: s[:3] + [0xFEF0] + s[4:])
    # program headers: executable segments at the top of the address space,
    # huge, or past the end of the file
    for i in range(phnum):
        at = phoff + i * phentsize
        ph = list(struct.unpack_from(PHDR, data, at))
        if ph[0] != 1 or not ph[1] & 1:	# PT_LOAD, PF_X
            continue
        f["odd-load-vaddr-top"] = patch(data, at, PHDR, *ph[:3],
                                        U64 - 0xFFF, U64 - 0xFFF, *ph[5:])
        # the segment's addresses run past 2^64 and wrap; the file offset
        # the elf target samples second lands on the last address
        top = U64 - len(data) // 48
        f["odd-load-vaddr-wraps"] = patch(data, at, PHDR, *ph[:3], top, top,
                                          *ph[5:])
        f["odd-load-memsz-huge"] = patch(data, at, PHDR, *ph[:6], U64, ph[7])
        f["odd-load-offset-past-end"] = patch(data, at, PHDR, *ph[:2],
                                              len(data) * 2, *ph[3:])
        break
    # notes: the build-id note with a huge, and a too-long, descriptor
    for s in secs:
        if s[2] == 7 and s[6] >= 16:	# SHT_NOTE
            namesz, descsz, typ = struct.unpack_from("<III", data, s[5])
            if typ == 3:	# NT_GNU_BUILD_ID
                f["odd-build-id-huge"] = patch(data, s[5] + 4, "<I",
                                               0xFFFFFFF0)
                f["odd-build-id-100"] = patch(data, s[5] + 4, "<I", 100)
    return f


# ---- the files JIT runtimes write: perf maps and jitdump ----------------

def perfmap_files():
    """name -> bytes: perf maps, as V8, the JVM agents and CPython write
    them, and damaged ones."""
    f = {}
    f["ok-node"] = (
        b"3ef414c0a000 60 Builtin:ArgumentsAdaptorTrampoline\n"
        b"3ef414c0a0a0 1e0 LazyCompile:*hot /srv/app.js:2:14\n"
        b"3ef414c0a2c0 48 Function:~<anonymous> node:internal/main:1:1\n"
        b"3ef414c0a340 1c RegExp:[a-z]+\n")
    f["ok-prefixes-tabs-crlf"] = (
        b"0x7f0000001000 0x40 java.lang.String::hashCode\r\n"
        b"0X7F0000002000\t0X10\t[stub] call_stub\r\n"
        b"  7f0000003000   8   py::<module>:/srv/x.py  \n"
        b"\n"
        b"7f0000004000 1 last line without newline")
    f["ok-top-of-address-space"] = b"fffffffffffffff0 f top\n0 1 zero\n"
    f["ok-longest-line"] = b"1000 10 " + b"n" * (4096 - 8) + b"\n"
    bad = {
        "no-start": b"zz 10 name\n",
        "no-size": b"1000\n1000 zz name\n",
        "size-0": b"1000 0 name\n",
        "wraps": b"ffffffffffffffff 1 name\nfffffffffffffff0 11 name\n",
        "65-bits": b"10000000000000000 1 name\n",
        "no-name": b"1000 10\n1000 10  \t\n",
        "nul": b"1000 10 na\0me\n",
        "no-blank": b"1000,10 name\n1000 10,name\n",
        "line-too-long": b"1000 10 " + b"n" * 4089 + b"\n2000 10 ok\n",
    }
    for name, data in bad.items():
        f["bad-" + name] = b"1000 10 good\n" + data
    # lines about PERFMAP_LINE_MAX long, some with their newline in a later
    # read than their start; bytes of anything; a line cut by the end
    long_lines = b""
    for n in (4095, 4096, 4097, 10000, 70000):
        long_lines += b"%x 10 " % n + b"x" * n + b"\n" + b"%x 1 ok\n" % n
    f["odd-long-lines"] = long_lines
    rand = random_bytes(3000, 18)
    f["odd-binary"] = rand
    f["odd-binary-lines"] = b"1 1 a\n".join(rand[i:i + 100]
                                            for i in range(0, 3000, 100))
    f["odd-empty"] = b""
    f["odd-newlines"] = b"\n" * 100 + b"\r\n" * 10
    f["odd-cut"] = b"1000 10 name\n2000 1"
    return f


def random_bytes(n, seed):
    """n bytes that are the same on every run."""
    out, state = bytearray(), seed
    while len(out) < n:
        state = (state * 6364136223846793005 + 1442695040888963407) & U64
        out.append(state >> 56)
    return bytes(out)


JITD_MAGIC = 0x4A695444


def jit_header(magic=JITD_MAGIC, version=1, size=40, pid=4242):
    return (u32(magic) + u32(version) + u32(size) + u32(62) + u32(0) +
            u32(pid) + u64(1763700000000000000) + u64(1) +
            b"\0" * max(0, min(size, 4096) - 40))


def jit_record(rid, body, timestamp=1763700000000001000, size=None):
    return (u32(rid) + u32(16 + len(body) if size is None else size) +
            u64(timestamp) + body)


def jit_load(name, addr, code, code_size=None, index=1, nul=True):
    return jit_record(0, u32(4242) + u32(4243) + u64(addr) + u64(addr) +
                      u64(len(code) if code_size is None else code_size) +
                      u64(index) + name + (b"\0" if nul else b"") + code)


def jit_move(old, new, size, index=1):
    return jit_record(1, u32(4242) + u32(4243) + u64(new) + u64(old) +
                      u64(new) + u64(size) + u64(index))


def jit_debug(addr, entries, nr=None, pad=True):
    """entries: [(addr, line, discrim, file)]; padded to 8 as perf's
    agent writes them."""
    body = u64(addr) + u64(len(entries) if nr is None else nr)
    for a, line, discrim, name in entries:
        body += u64(a) + u32(line) + u32(discrim) + name + b"\0"
    if pad:
        body += b"\0" * ((8 - (16 + len(body)) % 8) % 8)
    return jit_record(2, body)


def jit_unwind(eh_frame, hdr, mapped=4096, sizes=None):
    usize, hsize = sizes or (len(eh_frame) + len(hdr), len(hdr))
    data = eh_frame + hdr
    return jit_record(4, u64(usize) + u64(hsize) + u64(mapped) + data +
                      b"\0" * ((8 - len(data) % 8) % 8))


def jit_close():
    return jit_record(3, b"")


def jitdump_files():
    """name -> bytes: jitdump files of every record kind, and damaged ones."""
    f = {}
    code = b"\x55\x48\x89\xe5\x48\x83\xec\x10\x90\x90\xc9\xc3"
    base = 0x7f3c00001000
    load = jit_load(b"JS:*hot /srv/app.js:2", base, code)
    debug = jit_debug(base, [(base, 2, 0, b"/srv/app.js"),
                             (base + 4, 3, 1, b"\xff"),
                             (base + 8, 7, 0, b"/srv/lib.js"),
                             (base + 10, 8, 0, b"\xff")])
    unwind = jit_unwind(b"\x14\0\0\0\0\0\0\0\x01zR\0" + b"\0" * 12,
                        b"\x01\x1b\x03\x3b" + b"\0" * 8)
    every = [load, debug, unwind, jit_move(base, base + 0x1000, len(code)),
             jit_record(77, b"a later kind"), jit_close()]
    f["ok-every-kind"] = jit_header() + b"".join(every)
    f["ok-header-64"] = jit_header(size=64) + load + jit_close()
    f["ok-many-loads"] = jit_header() + b"".join(
        jit_load(b"Function:~f%d" % i, base + 0x100 * i, code[:1 + i % 12],
                 index=i) for i in range(40))
    f["ok-empty-name"] = jit_header() + jit_load(b"", base, code)
    f["ok-unwind-empty"] = jit_header() + jit_unwind(b"", b"")
    f["ok-debug-no-entries"] = jit_header() + jit_debug(base, [])
    bad = {
        "magic": jit_header(magic=0x12345678) + load,
        "byte-swapped": jit_header(magic=0x4454694A) + load,
        "version-2": jit_header(version=2) + load,
        "header-39": jit_header(size=39) + load,
        "header-4097": jit_header(size=4097) + load,
        "record-size-8": jit_header() + load + jit_record(0, b"", size=8) +
        load,
        "record-size-0": jit_header() + jit_record(0, b"", size=0),
        "load-no-nul": jit_header() + jit_load(b"name", base, b"", 1,
                                              nul=False),
        "load-name-4097": jit_header() + jit_load(b"n" * 4097, base, code),
        "load-code-size-0": jit_header() + jit_load(b"f", base, b"", 0),
        "load-code-size-short": jit_header() + jit_load(b"f", base, code,
                                                        len(code) - 1),
        "load-code-size-huge": jit_header() + jit_load(b"f", base, code,
                                                       U64),
        "load-short": jit_header() + jit_record(0, b"\0" * 40),
        "move-short": jit_header() + jit_record(1, b"\0" * 47),
        "debug-short": jit_header() + jit_record(2, b"\0" * 8),
        "debug-nr-more": jit_header() + jit_debug(
            base, [(base, 1, 0, b"/a.js")], nr=2, pad=False),
        "debug-nr-huge": jit_header() + jit_debug(
            base, [(base, 1, 0, b"/a.js")], nr=U64),
        "debug-xff-first": jit_header() + jit_debug(
            base, [(base, 1, 0, b"\xff"), (base, 2, 0, b"/a.js")]),
        "debug-file-no-nul": jit_header() + jit_debug(
            base, [(base, 1, 0, b"/a.js")], pad=False)[:-1] + b"x",
        "unwind-past-record": jit_header() + jit_unwind(
            b"abcd", b"ef", sizes=(100, 2)),
        "unwind-hdr-past-unwinding": jit_header() + jit_unwind(
            b"abcd", b"ef", sizes=(6, 7)),
        "unwind-huge": jit_header() + jit_unwind(b"", b"",
                                                 sizes=(U64, U64)),
    }
    for name, data in bad.items():
        f["bad-" + name] = data
    # cut short, at every record boundary and inside records; records
    # claiming more than the reader holds; the header alone
    whole = f["ok-every-kind"]
    at, cuts = 40, {0, 3, 11, 39, 40}
    while at + 8 <= len(whole):
        size = struct.unpack_from("<I", whole, at + 4)[0]
        cuts |= {at + 7, at + size // 2, at + size - 1}
        at += size
    for cut in sorted(c for c in cuts if c < len(whole)):
        f["odd-cut-at-%04d" % cut] = whole[:cut]
    f["odd-record-huge"] = jit_header() + load + jit_record(
        0, b"", size=0xFFFFFFFF) + load
    f["odd-record-past-max"] = jit_header() + jit_record(
        0, b"", size=(64 << 20) + 1) + load
    f["odd-binary"] = jit_header() + random_bytes(2000, 20)
    return f


# ---- report seeds: profiles naming real files ----------------------------

def functions_of(path, dynamic):
    """[(addr, size)] of the defined functions nm lists in path."""
    out = subprocess.run(["nm", "-S", "--defined-only"] +
                         (["-D"] if dynamic else []) + [path],
                         capture_output=True, text=True).stdout
    funcs = []
    for line in out.splitlines():
        m = re.match(r"([0-9a-f]+) ([0-9a-f]+) [TtWi] ", line)
        if m:
            funcs.append((int(m.group(1), 16), int(m.group(2), 16)))
    return sorted(set(funcs))


def report_files(tmp, elf_seeds):
    """name -> bytes: valid profiles whose objects name real files."""
    f = {}
    libc = "/lib/x86_64-linux-gnu/libc.so.6"
    objects, total = [], 0
    funcs = functions_of(libc, True)
    if funcs:
        step = max(1, len(funcs) // 24)
        counts = {}
        for addr, size in funcs[::step]:
            for k in range(0, max(size, 1), max(size // 3, 1)):
                counts[addr + k] = counts.get(addr + k, 0) + 1 + k % 5
        lo = min(counts) - min(counts) % 16
        objects.append(obj(libc, counts, lowpc=lo, highpc=max(counts) + 1))
        total += sum(counts.values())
    # files whose symbols are no use, and names that are not files
    for path in ("/", "/dev/null", "/etc/hostname", "/proc/self/status",
                 "relative/path", "//anon", "[heap]", "[vdso]"):
        objects.append(obj(path, {0x1000: 2, 0x1001: 1}))
        total += 3
    f["ok-libc-and-odd-paths"] = finish(
        [header(total + 3, kernel=2, unknown=1)] + objects +
        [thread(7, 7, "main", total + 3),
         process(7, 1, "app", 0, total + 3)])
    # our own seed ELF files, by the path they have in this checkout
    objects, total = [], 0
    for name in ("ok-c-Os-g", "ok-odd-symbols", "ok-cc-Os-g"):
        path = os.path.join(CORPUS, "elf", name)
        funcs = functions_of(elf_seeds[name], False)
        counts = {}
        for addr, size in funcs:
            size = min(size, 4096)	# odd-symbols has one of 2^64 - 16
            for k in range(0, max(size, 1) + 2, max(size // 4, 1)):
                counts[addr + k] = counts.get(addr + k, 0) + 1
        if counts:
            objects.append(obj(path, counts, lowpc=min(counts),
                               highpc=max(counts) + 1))
            total += sum(counts.values())
    f["ok-seed-elf-files"] = finish([header(total)] + objects)
    # 1 MiB buckets past libc's code: each is 4096 made-up functions of 256
    # bytes (no symbol, no FDE); grown one name at a time, they took the
    # sanitized report target minutes (a timeout of the fuzzing run)
    mib = 1 << 20
    f["ok-libc-wide-buckets"] = finish([header(8), obj(
        libc, {0x40000000 + i * mib: 1 for i in range(8)}, lowpc=0x40000000,
        highpc=0x40000000 + 64 * mib, bucket=mib)])
    return f


# ---- the /proc parsers, the kernel symbol tables, the timer engine's
# ---- region and the perf engine's records ---------------------------------
def procfs_files():
    """Task stat and schedstat files, as this kernel writes them and
    damaged (fuzz-procfs: ok-stat-*, ok-schedstat-*, bad-*)."""
    tail = b" 0 0 0 -1 4194304 100 0 0 0 5 7 2 3 20 0 1 0 83898 3133440 " \
        b"361 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0\n"
    f = {}
    f["ok-stat-cat"] = b"17307 (cat) R 17304" + tail
    f["ok-stat-spaces-parens"] = b"42 (a (b) c) ) S 1" + tail
    f["ok-stat-empty-name"] = b"42 () Z 0" + tail
    f["ok-stat-long-name"] = b"42 (" + b"x" * 200 + b") D 7" + tail
    f["ok-stat-no-newline"] = (b"42 (sh) S 1" + tail).rstrip(b"\n")
    f["ok-stat-at-starttime"] = b"9 (kw) I 2 0 0 0 -1 0 0 0 0 0 1 2 3 4 " \
        b"20 0 1 0 77"
    f["ok-stat-biggest"] = (b"1 (m) R 2147483647 0 0 0 -1 0 0 0 0 0 " +
                            b" ".join([b"18446744073709551615"] * 4) +
                            b" 20 0 1 0 18446744073709551615\n")
    f["bad-stat-no-paren"] = b"42 sh S 1" + tail
    f["bad-stat-no-state"] = b"42 (sh)"
    f["bad-stat-short"] = b"42 (sh) S 1 0 0 0 -1 0 0 0 0 0 1 2 3 4 20 0 1 0"
    f["bad-stat-negative-time"] = b"42 (sh) S 1 0 0 0 -1 0 0 0 0 0 1 2 -3 " \
        b"4 20 0 1 0 77\n"
    f["bad-stat-ppid-too-big"] = b"42 (sh) S 2147483648" + tail
    f["bad-stat-overflow"] = b"42 (sh) S 1 0 0 0 -1 0 0 0 0 0 " \
        b"18446744073709551616 2 3 4 20 0 1 0 77\n"
    f["bad-stat-letters"] = b"42 (sh) S 1 0 0 0 -1 0 0 0 0 0 1x 2 3 4 " \
        b"20 0 1 0 77\n"
    f["bad-stat-two-spaces"] = b"42 (sh)  S 1" + tail
    f["ok-schedstat-thread"] = b"1376287 3898682 2\n"
    f["ok-schedstat-zeros"] = b"0 0 0"
    f["ok-schedstat-biggest"] = b"18446744073709551615 0 1\n"
    f["bad-schedstat-two"] = b"1376287 3898682\n"
    f["bad-schedstat-overflow"] = b"18446744073709551616 0 1\n"
    f["bad-schedstat-negative"] = b"-1 0 1\n"
    f["bad-schedstat-trailing"] = b"1 2 3 4\n"
    f["bad-schedstat-empty"] = b""
    return f


def ksyms_files():
    """Kernel symbol tables: /proc/kallsyms text and profil's cache file
    (fuzz-ksyms: ok-/bad-kallsyms-*, ok-/bad-cache-*)."""
    f = {}
    f["ok-kallsyms-text"] = (
        b"ffffffff81000000 T _text\n"
        b"ffffffff81000010 t helper\n"
        b"ffffffff81000010 T __helper\n"
        b"ffffffff81000100 D some_data\n"
        b"ffffffff81000200 W weak_fn\n"
        b"ffffffffc0000000 t mod_fn\t[mymod]\n"
        b"ffffffffc0000040 T mod_other\t[mymod]\n")
    f["ok-kallsyms-one"] = b"ffffffff81000000 T _text\n"
    f["ok-kallsyms-long-name"] = (b"ffffffff81000000 T " + b"n" * 600 +
                                  b"\nffffffff81000100 T after\n")
    f["bad-kallsyms-hidden"] = (b"0000000000000000 T _text\n"
                                b"0000000000000000 t helper\n")
    f["bad-kallsyms-no-text"] = b"ffffffff81000100 D some_data\n"
    f["bad-kallsyms-garbage"] = b"not a kallsyms line\n\x00\xff\n"

    def cache(syms, names, count=None, magic=b"PRFKSYM1"):
        head = magic + u64(len(syms) if count is None else count) + \
            u64(0xffffffff81000000) + b"\0" * 16
        return head + b"".join(u64(a) + u32(n) + u32(m)
                               for a, n, m in syms) + names
    names = b"_text\0helper\0mod_fn [mymod]\0"
    good = [(0xffffffff81000000, 0, 0), (0xffffffff81000010, 6, 0),
            (0xffffffffc0000000, 13, 1)]
    f["ok-cache-three"] = cache(good, names)
    f["ok-cache-one"] = cache(good[:1], b"_text\0")
    f["bad-cache-magic"] = cache(good, names, magic=b"PRFKSYM0")
    f["bad-cache-count-zero"] = cache(good, names, count=0)
    f["bad-cache-count-huge"] = cache(good, names, count=U64)
    f["bad-cache-count-past"] = cache(good, names, count=5)
    f["bad-cache-unsorted"] = cache([good[1], good[0]], names)
    f["bad-cache-same-address"] = cache([good[0], good[0]], names)
    f["bad-cache-name-past"] = cache([(0x1000, 1000, 0)], names)
    f["bad-cache-name-unended"] = cache([(0x1000, 0, 0)], b"_text")
    f["bad-cache-short"] = b"PRFKSYM1" + u64(1)
    return f


# struct agent_region and struct stackring_slot (lib/agent/agent.h,
# lib/sampler/stackring.h) as fuzz-region sees them, by anchor
REGION_NEXT_SLOT, REGION_LOST, REGION_TLOST = 88, 48, 80
REGION_TAKEN, REGION_WEIGHT_SQ = 120, 128
SLOT_TAG, SLOT_TID, SLOT_WEIGHT, SLOT_KW, SLOT_TIME = 8, 12, 16, 24, 32
SLOT_REGS, SLOT_STACK_ADDR, SLOT_SIZE, SLOT_DATA = 40, 176, 184, 192
SLOT_BYTES = 448		# STACKRING_SLOT_BYTES(256)
GONE_PID = 4194303		# (2^22 - 1: no process has it)


def region_files():
    """fuzz-region: a region as an agent leaves it (ok-*: nothing to
    refuse) and written over (bad-*: something refused), then odd-*."""
    def write(anchor, off, data):
        out = b""
        while data:
            piece, data = data[:255], data[255:]
            out += u8(anchor) + u16(off) + u8(len(piece)) + piece
            off += len(piece)
        return out

    def region(elapsed_ms, flags, *writes):
        return u16(elapsed_ms) + u8(flags) + b"".join(writes)

    def capture(seq, tag=1, tid=GONE_PID, weight=2, kw=0, size=64,
                stack_addr=0x7ffc0000):
        regs = [0] * 17
        regs[7] = stack_addr + 128          # sp
        regs[16] = 0x401000                 # pc
        # time 0: none a handler wrote, taken as the drain's
        return (u64(seq) + u32(tag) + u32(tid) + u64(weight) + u64(kw) +
                u64(0) + b"".join(u64(r) for r in regs) + u64(stack_addr) +
                u64(size) + bytes(range(64)))

    slot = write(0, REGION_NEXT_SLOT, u32(2)) + \
        write(1, 0, u32(GONE_PID) + u32(1) + u64(0x7f0000001000))
    pc = write(2, 0, u64((1 << 48) | 0x401000)) + write(3, 0, u64(5))
    thread = write(4, 0, u64((1 << 32) | GONE_PID)) + write(5, 0, u64(7))
    f = {}
    f["ok-empty"] = region(100, 0)
    f["ok-slot-pc-thread-capture"] = region(
        100, 0, slot, pc, thread, write(7, 0, capture(1)))
    f["ok-no-stacks"] = region(100, 2, slot, pc, thread)
    f["ok-no-children"] = region(100, 1, slot, pc, thread,
                                 write(7, 0, capture(1)))
    f["ok-kernel-share"] = region(
        100, 0, slot, thread, write(7, 0, capture(1, weight=3, kw=2)))
    f["ok-lost-counted"] = region(100, 0, slot, pc, write(0, REGION_LOST,
                                                           u64(3)))
    f["bad-count-huge"] = region(100, 0, slot, write(2, 0, u64(
        (1 << 48) | 0x401000)), write(3, 0, u64(1 << 62)))
    f["bad-counts-add-past"] = region(1, 0, slot, b"".join(
        write(2, 8 * i, u64((1 << 48) | (0x401000 + i))) +
        write(3, 8 * i, u64(1000)) for i in range(8)))
    f["bad-slot-never-filled"] = region(100, 0, slot, write(2, 0, u64(
        (5 << 48) | 0x401000)), write(3, 0, u64(1)))
    f["bad-slot-init"] = region(100, 0, write(0, REGION_NEXT_SLOT, u32(2)),
                                write(1, 0, u32(1)), pc)
    f["bad-thread-tid-zero"] = region(100, 0, slot, write(
        4, 0, u64(1 << 32)), write(5, 0, u64(1)))
    f["bad-capture-size"] = region(100, 0, slot, write(
        7, 0, capture(1, size=1 << 40)))
    f["bad-capture-slot"] = region(100, 0, slot, write(
        7, 0, capture(1, tag=4095)))
    f["bad-capture-weight"] = region(1, 0, slot, write(
        7, 0, capture(1, weight=1 << 50)))
    f["bad-lost-huge"] = region(100, 0, slot, write(0, REGION_LOST, u64(U64)))
    f["bad-taken-huge"] = region(100, 0, slot, pc, write(
        0, REGION_TAKEN, u64(U64)))
    f["bad-header-bumped"] = region(
        100, 0, slot, pc, write(0, 16, u64(U64) + u64(1 << 62) + u64(U64)),
        write(6, 0, u64(1 << 40) + u64(12345) + u64(1 << 62) +
              u64(U64 // 3) + u64(U64)),
        write(7, 0, capture(1, size=U64, weight=U64)))
    for i in range(4):
        f["odd-random-%d" % i] = region(
            100, i, b"".join(write(j % 8, (i * 977 + j * 131) % 4096,
                                   random_bytes(64, i * 8 + j))
                             for j in range(8)))
    return f


def perfrec_files():
    """fuzz-perfrec: side-band records and samples as the kernel writes
    them for the perf engine (ok-*), and damaged (odd-*)."""
    def rec(rtype, payload, misc=0):
        return u32(rtype) + u16(misc) + u16(8 + len(payload)) + payload

    def trailer(pid=100, tid=100, time=1000):
        return u32(pid) + u32(tid) + u64(time)

    def mmap2(name, addr=0x400000, length=0x1000, pgoff=0, prot=5):
        name = name + b"\0" * (8 - len(name) % 8)
        return rec(10, u32(100) + u32(100) + u64(addr) + u64(length) +
                   u64(pgoff) + b"\0" * 24 + u32(prot) + u32(2) + name +
                   trailer())

    def sample(ip, misc=2, period=1000000, extra=b""):
        return rec(9, u64(ip) + u32(100) + u32(100) + u64(2000) +
                   u64(period) + extra, misc)

    def regs_stack(sp=0x7ffc0000, pc=0x400100, stack=b"\0" * 64):
        regs = [0] * 17
        regs[7] = sp
        regs[8] = pc        # perf's order: arch_perf_reg_at maps it
        return (u64(2) + b"".join(u64(r) for r in regs) +
                u64(len(stack)) + stack + u64(len(stack)))

    side = (mmap2(b"/bin/true") + rec(3, u32(100) + u32(100) +
            b"true\0".ljust(16, b"\0") + trailer(), 0x2000) +
            rec(7, u32(101) + u32(100) + u32(101) + u32(100) + u64(1500) +
                trailer(101, 101)))
    end = (rec(4, u32(101) + u32(100) + u32(101) + u32(100) + u64(3000) +
               trailer(101, 101)) +
           rec(2, u64(1) + u64(3) + trailer()) + rec(5, u64(0) * 3))
    f = {}
    f["ok-flat"] = u8(0) + side + sample(0x400100) + sample(0x400200) + \
        sample(0xffffffff81000000, misc=1) + end
    f["ok-stacks"] = u8(1) + side + sample(0x400100, extra=regs_stack()) + \
        sample(0x400100, extra=u64(0) + u64(0)) + end
    f["ok-kernel-chain"] = u8(3) + side + sample(
        0xffffffff81000000, misc=1, extra=u64(3) + u64(0xfffffffffffffe00) +
        u64(0xffffffff81000010) + u64(0xffffffff81000020) + u64(0) +
        u64(0)) + end
    f["ok-no-children"] = u8(4) + side + sample(0x400100) + end
    f["odd-nchain-huge"] = u8(3) + side + sample(
        0xffffffff81000000, misc=1, extra=u64(1 << 60))
    f["odd-stack-size-past"] = u8(1) + side + sample(
        0x400100, extra=u64(2) + b"\0" * 8 * 17 + u64(1 << 40))
    f["odd-short-records"] = u8(1) + b"".join(
        rec(t, b"\0" * n) for t in (2, 3, 4, 7, 9, 10, 14)
        for n in (0, 4, 15, 16, 31))
    f["odd-mmap2-unended-name"] = u8(0) + rec(
        10, u32(100) + u32(100) + u64(0x400000) + u64(0x1000) + u64(0) +
        b"\0" * 24 + u32(5) + u32(2) + b"/bin/tru" + trailer())
    f["odd-mmap2-wraps"] = u8(0) + mmap2(b"/bin/true", addr=U64 - 8,
                                         length=0x1000)
    for i in range(3):
        f["odd-random-%d" % i] = u8(i) + random_bytes(512, 100 + i)
    return f


def write_dir(name, files, keep=()):
    """Replace the made files of tests/corpus/NAME (ok-rec-*, and files
    whose name is not ok-/bad-/odd- made, such as fuzzer finds, stay)."""
    d = os.path.join(CORPUS, name)
    os.makedirs(d, exist_ok=True)
    for old in glob.glob(os.path.join(d, "*")):
        base = os.path.basename(old)
        if re.match(r"(ok|bad|odd)-", base) and not base.startswith(keep):
            os.remove(old)
    for base, data in sorted(files.items()):
        with open(os.path.join(d, base), "wb") as fp:
            fp.write(data)


def record_seeds(build):
    """Fresh ok-rec-* files from BUILD's profil and workload."""
    d = os.path.join(CORPUS, "prf")
    os.makedirs(d, exist_ok=True)
    profil = os.path.join(build, "profil")
    workload = os.path.abspath(os.path.join(build, "tests", "workload"))
    wall = os.path.abspath(os.path.join(build, "tests", "wall-workload"))
    phases = os.path.abspath(os.path.join(build, "tests", "phases"))
    runs = {
        "split-perf": ["-e", "perf", "--", workload, "split", "20"],
        "split-timer": ["-e", "timer", "--", workload, "split", "20"],
        "split-perf-b16": ["-e", "perf", "-b", "16", "--", workload, "split",
                           "20"],
        "threads-perf": ["-e", "perf", "--", workload, "threads", "3", "10"],
        "threads-timer": ["-e", "timer", "--", workload, "threads", "3", "10"],
        "forkexec-perf": ["-e", "perf", "--", workload, "forkexec", "10"],
        "forkexec-timer": ["-e", "timer", "--", workload, "forkexec", "10"],
        "libm-perf": ["-e", "perf", "--", workload, "libm", "0.2"],
        # the flat profile alone, as before call stacks were recorded
        "split-perf-flat": ["-e", "perf", "--no-call-graph", "--", workload,
                            "split", "20"],
        # a wall profile (version 2): time off the CPU in a sleep, a read
        # and a mutex, a little CPU; small, at 1 kHz
        "wall-perf": ["-e", "perf", "--wall", "-F", "1000", "--", wall,
                      "parts", "0.01", "0.02", "0.02", "0.02"],
        # timelines as the recorder writes them: the phases program at a
        # twentieth of its length (0.15 s), CPU, and wall by the timer
        "phases-perf": ["-e", "perf", "--", phases, "0.05"],
        "wall-phases-timer": ["-e", "timer", "--wall", "--", phases,
                              "0.05"],
    }
    for name, args in runs.items():
        run(profil, "record", "-q", "-o",
            os.path.join(d, "ok-rec-%s" % name), *args)


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--record":
        record_seeds(sys.argv[2])
    elif len(sys.argv) != 1:
        sys.exit(__doc__)
    recorded = []
    for path in sorted(glob.glob(os.path.join(CORPUS, "prf", "ok-rec-*"))):
        with open(path, "rb") as fp:
            recorded.append((os.path.basename(path), fp.read()))
    write_dir("prf", prf_files([d for n, d in recorded
                                if n == "ok-rec-split-perf"] or
                               [d for n, d in recorded]), keep="ok-rec-")
    with tempfile.TemporaryDirectory() as tmp:
        seeds = build_elf_seeds(tmp)
        elf = {}
        for name, path in seeds.items():
            with open(path, "rb") as fp:
                elf[name] = fp.read()
        elf.update(damaged_elf(elf["ok-small-static-pie"]))
        write_dir("elf", elf)
        # not the wall profile yet: the folded export writes its stacks
        # off the CPU as lines of 0 samples, which fuzz-report refuses
        report = dict((n, d) for n, d in recorded
                      if not n.startswith("ok-rec-wall-"))
        report.update(report_files(tmp, seeds))
        # stacks for the views and the merge: made ones, and libc's
        report.update((n, d) for n, d in stacks_files().items()
                      if n.startswith("ok-"))
        # timelines, for the merge (a profile merged with itself); not
        # the wall one, as above
        report.update((n, d) for n, d in timeline_files().items()
                      if n.startswith("ok-") and not n.endswith("-wall"))
        libc_stacks = libc_stacks_file()
        if libc_stacks is not None:
            report["ok-libc-stacks"] = libc_stacks
        write_dir("report", report)
    write_dir("perfmap", perfmap_files())
    write_dir("jitdump", jitdump_files())
    write_dir("procfs", procfs_files())
    write_dir("ksyms", ksyms_files())
    write_dir("region", region_files())
    write_dir("perfrec", perfrec_files())
    for name in ("prf", "elf", "report", "perfmap", "jitdump", "procfs",
                 "ksyms", "region", "perfrec"):
        files = glob.glob(os.path.join(CORPUS, name, "*"))
        print("tests/corpus/%s: %d files, %d bytes" % (
            name, len(files), sum(os.path.getsize(p) for p in files)))


if __name__ == "__main__":
    main()
