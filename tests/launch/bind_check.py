#!/usr/bin/env python3
"""bind_check.py — checks for bind_test.sh, independent of mpiexec's code:
the topology is read here from /sys in Python, the CPUs each rank got from
the rank itself (/proc/<pid>/status, printed by bind_cpus).

  bind_check.py report ERR OUT NP MODE [--objects 0-1/2-3] [--per-host N]
      mpiexec --report-bindings lines (ERR) against what each rank printed
      (OUT); MODE: default, none, or the level of -bind-to.  --objects
      gives the objects' CPU sets when /sys is not what mpiexec read
      (HWLOC_SYNTHETIC); --per-host: ranks per host (proxies), whose
      local ranks are numbered in blocks of N.
Run it with the affinity mpiexec had (taskset ... bind_check.py): that is
what the job may use.
  bind_check.py hw ERR OUT NP
      bind_hw's lines (OUT) against the ranks' CPUs (from ERR's report).
Exit 0 when all holds, else 1 after printing each mismatch.
"""
import os
import re
import sys

SYS = "/sys/devices/system/cpu"


def parse_list(text):
    cpus = set()
    for part in text.strip().split(","):
        if not part:
            continue
        a, _, b = part.partition("-")
        cpus.update(range(int(a), int(b or a) + 1))
    return frozenset(cpus)


def read(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def allowed():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("Cpus_allowed_list:"):
                return parse_list(line.split(":", 1)[1])
    raise SystemExit("no Cpus_allowed_list")


def online():
    return parse_list(read(SYS + "/online") or "0")


def cache_first(cpu, level):
    for idx in range(16):
        lv = read(f"{SYS}/cpu{cpu}/cache/index{idx}/level")
        if lv is None:
            break
        if int(lv) != level or read(f"{SYS}/cpu{cpu}/cache/index{idx}/type") == "Instruction":
            continue
        return min(parse_list(read(f"{SYS}/cpu{cpu}/cache/index{idx}/shared_cpu_list")))
    return None


def numa_of(cpu):
    for name in os.listdir(f"{SYS}/cpu{cpu}"):
        if re.fullmatch(r"node\d+", name):
            return int(name[4:])
    return 0


def key(level, cpu):
    """Which instance of level cpu is in (any hashable), None if unknown."""
    if level == "machine":
        return 0
    if level in ("numa", "numanode"):
        return numa_of(cpu)
    if level == "socket":
        return int(read(f"{SYS}/cpu{cpu}/topology/physical_package_id") or 0)
    if level.lower() in ("l3cache", "l2cache", "l1cache"):
        return cache_first(cpu, int(level[1]))
    if level == "core":
        text = read(f"{SYS}/cpu{cpu}/topology/core_cpus_list") or \
            read(f"{SYS}/cpu{cpu}/topology/thread_siblings_list")
        return min(parse_list(text)) if text else cpu
    if level == "hwthread":
        return cpu
    raise SystemExit(f"unknown level {level}")


def objects(level, within):
    """CPU sets of level's instances that meet `within`, in CPU order."""
    found = {}
    for cpu in sorted(online()):
        k = key(level, cpu)
        if cpu in within and k is not None:
            found.setdefault(k, set()).add(cpu)
    return [frozenset(s) for s in sorted(found.values(), key=min)]


REPORT = re.compile(r"\[rank (\d+)\] (?:not bound|bound to (\w+) (\d+) \(cpus ([0-9,-]+)\))$")


def read_report(path):
    """{rank: (level, cpuset)} from the report lines; level None: not bound."""
    got = {}
    with open(path) as f:
        for line in f:
            m = REPORT.match(line.rstrip("\n"))
            if m:
                r = int(m.group(1))
                if r in got:
                    raise SystemExit(f"rank {r} reported twice")
                got[r] = (m.group(2), parse_list(m.group(4)) if m.group(4) else None)
    return got


def read_ranks(path):
    got = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"rank (\d+) cpus ([0-9,-]+)$", line.strip())
            if m:
                got[int(m.group(1))] = parse_list(m.group(2))
    return got


def check_report(err, out, np, mode, given, per_host):
    problems = []
    mine = allowed()
    report, ranks = read_report(err), read_ranks(out)
    if sorted(report) != list(range(np)):
        problems.append(f"report names ranks {sorted(report)}, expected 0..{np - 1}")
    if sorted(ranks) != list(range(np)):
        problems.append(f"ranks printed {sorted(ranks)}, expected 0..{np - 1}")
    if problems:
        return problems
    level = mode
    if mode == "default":
        level = "core" if per_host <= len(objects("core", mine)) else "none"
    objs = [parse_list(o) for o in given.split("/")] if given else \
        (objects(level, mine) if level != "none" else [])
    for r in range(np):
        lvl, cpus = report[r]
        if ranks[r] != (cpus if lvl else mine):
            problems.append(f"rank {r}: reported {sorted(cpus) if lvl else 'not bound'}, "
                            f"but may run on {sorted(ranks[r])}")
        if level == "none":
            if lvl:
                problems.append(f"rank {r}: bound to {lvl}, expected not bound")
            continue
        want_level = "numa" if level == "numanode" else level
        if lvl != want_level:
            problems.append(f"rank {r}: bound to {lvl}, expected {want_level}")
        local = r % per_host
        # The default starts where mpiexec ran when it has cores to spare
        # (binding.c, default_start): the host's first rank says where.
        first = report[r - local][1]
        off = objs.index(first) if mode == "default" and per_host < len(objs) and first in objs else 0
        want = objs[(local + off) % len(objs)]
        if cpus != want:
            problems.append(f"rank {r}: cpus {sorted(cpus or [])}, expected round-robin {sorted(want)}")
    return problems


HW = re.compile(r"rank (\d+) (\w+) group (\S+) info (yes|no)$")


def check_hw(err, out, np):
    problems = []
    mine = allowed()
    report = read_report(err)
    cpus = {r: (c if lvl else mine) for r, (lvl, c) in report.items()}
    if sorted(cpus) != list(range(np)):
        return [f"report names ranks {sorted(cpus)}"]
    seen = 0
    with open(out) as f:
        for line in f:
            m = HW.match(line.strip())
            if not m:
                continue
            seen += 1
            r, level, group, info = int(m.group(1)), m.group(2), m.group(3), m.group(4)
            keys = {key(level, c) for c in cpus[r]}
            mine_k = keys.pop() if len(keys) == 1 else None
            if mine_k is None:
                want = "null"
            else:
                want = ",".join(str(q) for q in range(np)
                                if {key(level, c) for c in cpus[q]} == {mine_k})
            if group != want:
                problems.append(f"rank {r} {level}: group {group}, expected {want}")
            if info != ("yes" if mine_k is not None else "no"):
                problems.append(f"rank {r} {level}: info {info}, expected "
                                f"{'yes' if mine_k is not None else 'no'}")
    if seen != np * 8:
        problems.append(f"{seen} level lines, expected {np * 8}")
    return problems


def main():
    what = sys.argv[1]
    if what == "report":
        opts = dict(zip(sys.argv[6::2], sys.argv[7::2]))
        np = int(sys.argv[4])
        problems = check_report(sys.argv[2], sys.argv[3], np, sys.argv[5], opts.get("--objects"),
                                int(opts.get("--per-host", np)))
    elif what == "hw":
        problems = check_hw(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    else:
        raise SystemExit(f"unknown check {what}")
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
