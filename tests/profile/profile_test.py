#!/usr/bin/env python3
"""profile_test.py — run profile_pattern under `mpiexec --profile=DIR` and
check the report against the traffic the pattern implies, exactly.

  profile_test.py MPIEXEC PROGRAM NP RING_BYTES A2A_BYTES ITERS launch|report|hosts

launch: mpiexec --profile=DIR writes the report itself.
report: the ranks get UZURA_PROFILE=DIR (as under another launcher) and
        `mpiexec --profile-report DIR` merges the files afterwards; also
        --profile-report on a directory without files, or with a file cut
        short, fails with a message.
default: --profile without a directory makes uzura-profile-<job id> in the
        working directory; without --profile nothing is written.
hosts:  as launch, on two network namespaces as hosts (tests/net/netns.sh),
        NP/2 ranks each, so messages between hosts go over tcp; the
        directory is shared (one file system).  Skipped without namespaces.

The alltoall is forced to the pairwise algorithm, which sends one message
of A2A_BYTES to every other rank per call (the shared-memory algorithm
would move the data without messages, docs/profile.md).
"""
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

SVG = "{http://www.w3.org/2000/svg}"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def bucket(n):
    return min(n.bit_length(), 40)


def run(cmd, env):
    print("$", " ".join(cmd))
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=110)
    print(r.stdout, end="")
    print(r.stderr, end="")
    if r.returncode != 0:
        fail(f"exit status {r.returncode}")
    return r


def expected_flows(p, ring, block, iters):
    """{(kind, from, to): (messages, bytes)}"""
    flows = {}
    for r in range(p):
        flows[("p2p", r, (r + 1) % p)] = (iters, ring * iters)
        for j in range(p):
            if j != r:
                flows[("coll", r, j)] = (iters, block * iters)
    return flows


def check_matrix(d, flows):
    with open(os.path.join(d, "matrix.csv")) as f:
        rows = list(csv.DictReader(f))
    got = {(r["kind"], int(r["from"]), int(r["to"])): (int(r["messages"]), int(r["bytes"])) for r in rows}
    if got != flows:
        extra = {k: v for k, v in got.items() if flows.get(k) != v}
        missing = {k: v for k, v in flows.items() if got.get(k) != v}
        fail(f"matrix.csv differs: unexpected {extra}, expected but missing {missing}")


def check_summary(text, d, p, ring, block, iters):
    if f"Uzura profile: {p} ranks" not in text:
        fail("no summary header")
    if f"report: {d}/report.html" not in text:
        fail("the summary does not name the report")
    talkers = re.findall(r"^\s+(\d+) -> (\d+)\s+(\d+) bytes\s+(\d+) messages$", text, re.M)
    if not talkers:
        fail("no top talkers in the summary")
    for frm, to, nbytes, msgs in talkers:
        frm, to = int(frm), int(to)
        want = (block * iters if frm != to else 0) + (ring * iters if to == (frm + 1) % p else 0)
        if int(nbytes) != want:
            fail(f"talker {frm} -> {to}: {nbytes} bytes, expected {want}")
    # Each procedure: its calls, and the messages sent during them.
    for name, msgs in (("MPI_Sendrecv", p * iters), ("MPI_Alltoall", p * (p - 1) * iters)):
        m = re.search(rf"^\s+{name}\s+[\d.]+ s\s+(\d+) calls\s+(\d+) messages", text, re.M)
        if not m or (int(m.group(1)), int(m.group(2))) != (p * iters, msgs):
            fail(f"{name}: expected {p * iters} calls and {msgs} messages in the summary")


def svg_root(d, name):
    path = os.path.join(d, name)
    if os.path.getsize(path) == 0:
        fail(f"{name} is empty")
    root = ET.parse(path).getroot()
    if root.tag != SVG + "svg":
        fail(f"{name} is not an SVG document")
    return root


def check_heatmap(d, kind, p, flows):
    root = svg_root(d, f"heatmap-{kind}.svg")
    cells = [e for e in root.iter(SVG + "rect") if e.get("class") == "cell"]
    if len(cells) != p * p:
        fail(f"heatmap-{kind}.svg has {len(cells)} cells, expected {p * p}")
    for c in cells:
        key = (kind, int(c.get("data-from")), int(c.get("data-to")))
        want = flows.get(key, (0, 0))
        if (int(c.get("data-msgs")), int(c.get("data-bytes"))) != want:
            fail(f"heatmap cell {key}: {c.get('data-msgs')} messages, {c.get('data-bytes')} bytes; expected {want}")


def check_sizes(d, p, ring, block, iters):
    root = svg_root(d, "sizes.svg")
    want = {("p2p", bucket(ring)): p * iters, ("coll", bucket(block)): p * (p - 1) * iters}
    got = {}
    for e in root.iter(SVG + "rect"):
        if e.get("class") == "bar" and int(e.get("data-count")):
            got[(e.get("data-kind"), int(e.get("data-bucket")))] = int(e.get("data-count"))
    if got != want:
        fail(f"sizes.svg: {got}, expected {want}")


def check_times(d, p):
    # Per rank, stacked: the procedures with most time, other MPI, outside MPI.
    root = svg_root(d, "time-rank.svg")
    bars = [e for e in root.iter(SVG + "rect") if e.get("class") == "bar"]
    for r in range(p):
        series = {e.get("data-series") for e in bars if e.get("data-label") == f"rank {r}"}
        if not {"MPI_Sendrecv", "MPI_Alltoall", "other MPI", "outside MPI"} <= series:
            fail(f"time-rank.svg: rank {r} has the parts {series}")
    if {e.get("data-label") for e in bars} != {f"rank {r}" for r in range(p)}:
        fail("time-rank.svg: bars of ranks that do not exist")
    root = svg_root(d, "time-call.svg")
    labels = {e.get("data-label") for e in root.iter(SVG + "rect") if e.get("class") == "bar"}
    if not {"MPI_Sendrecv", "MPI_Alltoall"} <= labels:
        fail(f"time-call.svg lacks MPI_Sendrecv or MPI_Alltoall: {labels}")


class SvgCounter(HTMLParser):
    def __init__(self):
        super().__init__()
        self.svgs = 0

    def handle_starttag(self, tag, attrs):
        self.svgs += tag == "svg"


def check_html(d):
    with open(os.path.join(d, "report.html"), encoding="utf-8") as f:
        text = f.read()
    counter = SvgCounter()
    counter.feed(text)
    if counter.svgs != 5 or "</html>" not in text:
        fail(f"report.html has {counter.svgs} pictures, expected 5")


def check_report_errors(mpiexec, env):
    """--profile-report refuses what it cannot read, saying why."""
    d = tempfile.mkdtemp(prefix="uzura-profile-test-")
    cases = [("", "no rank-N.prof files"),
             ("uzura-profile 1\nrank 0\nsize 1\nelapsed_ns 5\n", "cut short"),
             ("something else\n", "not a Uzura profile")]
    for text, why in cases:
        if text:
            with open(os.path.join(d, "rank-0.prof"), "w") as f:
                f.write(text)
        r = subprocess.run([mpiexec, "--profile-report", d], env=env, capture_output=True, text=True)
        if r.returncode != 1 or why not in r.stderr:
            fail(f"--profile-report on a bad directory ({why}): status {r.returncode}, {r.stderr!r}")
    shutil.rmtree(d)
    r = subprocess.run([mpiexec, "--profile-report", d], env=env, capture_output=True, text=True)
    if r.returncode != 1 or "cannot open the directory" not in r.stderr:
        fail(f"--profile-report on a missing directory: status {r.returncode}, {r.stderr!r}")


def netns(action):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "net", "netns.sh")
    env = dict(os.environ, UZURA_NETNS_HOLDER=str(os.getpid()))
    return subprocess.run(["bash", script] + action, env=env, capture_output=True, text=True)


def main():
    mpiexec, prog, p, ring, block, iters, mode = sys.argv[1:8]
    p, ring, block, iters = int(p), int(ring), int(block), int(iters)
    env = dict(os.environ, UZURA_COLL_ALLTOALL="pairwise")
    env.pop("UZURA_PROFILE", None)
    d = tempfile.mkdtemp(prefix="uzura-profile-test-")
    args = [prog, str(ring), str(block), str(iters)]
    if mode == "launch":
        r = run([mpiexec, "-n", str(p), "--timeout", "100", f"--profile={d}"] + args, env)
    elif mode == "default":
        subprocess.run([mpiexec, "-n", str(p), "--timeout", "100"] + args, env=env, cwd=d, check=True,
                       capture_output=True)
        if os.listdir(d):
            fail(f"a run without --profile left {os.listdir(d)}")
        r = subprocess.run([mpiexec, "-n", str(p), "--timeout", "100", "--profile"] + args, env=env, cwd=d,
                           capture_output=True, text=True)
        made = os.listdir(d)
        if r.returncode != 0 or len(made) != 1 or not re.fullmatch(r"uzura-profile-[0-9a-f]{16}", made[0]):
            fail(f"--profile: status {r.returncode}, made {made}: {r.stderr}")
        top, d = d, os.path.join(d, made[0])
    elif mode == "hosts":
        up = netns(["up", "2"])
        if up.returncode == 77:
            print(up.stdout, end="")
            shutil.rmtree(d)
            sys.exit(77)
        if up.returncode != 0:
            fail(f"netns.sh up: {up.stdout}{up.stderr}")
        try:
            r = run([mpiexec, "-launcher-exec", "ip netns exec", "-hosts", f"uzh0:{p // 2},uzh1:{p - p // 2}",
                     "-n", str(p), "--timeout", "100", f"--profile={d}"] + args, env)
        finally:
            netns(["down"])
    else:
        check_report_errors(mpiexec, env)
        r = run([mpiexec, "-n", str(p), "--timeout", "100", "-genv", "UZURA_PROFILE", d] + args, env)
        if os.path.exists(os.path.join(d, "report.html")):
            fail("a report without --profile")
        r = run([mpiexec, "--profile-report", d], env)
    for rank in range(p):
        if not os.path.getsize(os.path.join(d, f"rank-{rank}.prof")):
            fail(f"rank-{rank}.prof is empty")
    flows = expected_flows(p, ring, block, iters)
    check_matrix(d, flows)
    check_summary(r.stderr, d, p, ring, block, iters)
    with open(os.path.join(d, "summary.txt")) as f:
        check_summary(f.read(), d, p, ring, block, iters)
    for kind in ("p2p", "coll"):
        check_heatmap(d, kind, p, flows)
    check_sizes(d, p, ring, block, iters)
    check_times(d, p)
    check_html(d)
    shutil.rmtree(top if mode == "default" else d)
    print("profile_test: passed")


if __name__ == "__main__":
    main()
