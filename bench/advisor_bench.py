#!/usr/bin/python3
"""What the advisor's workload statistics cost (docs/advisor.md): one node,
`keywise bench` writes and point reads with workload_statistics_enabled
true and false, alternated (--rounds times each, which goes first
alternating too), on the same build.

    /usr/bin/python3 bench/advisor_bench.py [--binary build-release/keywise]
        [--seconds 10] [--rounds 2]

Prints ops/s and the server's CPU per operation of each run, and the
medians' ratio on/off. docs/performance.md records them with this command.
"""

import argparse
import json
import os
import pathlib
import shutil
import socket
import statistics
import subprocess
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
TICKS = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ticks(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def run(binary, stats_on, seconds):
    """One node: a write run, then a read run over what it wrote."""
    workdir = tempfile.mkdtemp(prefix="keywise-advisor-bench-")
    port = free_port()
    cfg = pathlib.Path(workdir) / "keywise.yaml"
    cfg.write_text("workload_statistics_enabled: %s\n" %
                   ("true" if stats_on else "false"))
    log = open(pathlib.Path(workdir) / "node.log", "w")
    proc = subprocess.Popen(
        [binary, "server", "--config", str(cfg), "--data-dir",
         str(pathlib.Path(workdir) / "data"), "--port", str(port),
         "--listen-address", "127.0.0.1"], stdout=log,
        stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), 1).close()
                break
            except OSError:
                time.sleep(0.05)
        out = {}
        for workload in ("write", "read"):
            before = cpu_ticks(proc.pid)
            r = json.loads(subprocess.run(
                [binary, "bench", "--port", str(port), "--json", "--quiet",
                 "--workload", workload, "--duration", "%ds" % seconds,
                 "--concurrency", "64", "--partitions", "10000",
                 "--rows-per-partition", "10", "--warmup", "2s"],
                capture_output=True, text=True,
                check=True).stdout.strip().splitlines()[-1])
            cpu_us = ((cpu_ticks(proc.pid) - before) / TICKS /
                      max(r["ops"], 1) * 1e6)
            out[workload] = (r["ops_per_sec"], cpu_us)
        return out
    finally:
        proc.terminate()
        proc.wait(60)
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--binary", default=str(ROOT / "build-release" / "keywise"))
    p.add_argument("--seconds", type=int, default=10)
    p.add_argument("--rounds", type=int, default=2)
    args = p.parse_args()
    print("Command: /usr/bin/python3 bench/advisor_bench.py --seconds %d "
          "--rounds %d (%d CPUs, %s, load average %s)"
          % (args.seconds, args.rounds, os.cpu_count(),
             time.strftime("%Y-%m-%d"),
             open("/proc/loadavg").read().split()[0]))
    results = {True: [], False: []}
    for round_ in range(args.rounds):
        # Alternate which setting goes first: a round's first run was seen
        # to be slower whatever its setting.
        for on in ((True, False) if round_ % 2 == 0 else (False, True)):
            r = run(args.binary, on, args.seconds)
            results[on].append(r)
            print("  statistics %-3s  write %8.0f ops/s %6.1f us CPU/op   "
                  "read %8.0f ops/s %6.1f us CPU/op"
                  % ("on" if on else "off", r["write"][0], r["write"][1],
                     r["read"][0], r["read"][1]), flush=True)
    for workload in ("write", "read"):
        med = {on: (statistics.median(r[workload][0] for r in results[on]),
                    statistics.median(r[workload][1] for r in results[on]))
               for on in (True, False)}
        print("%s: on/off throughput %.3f, CPU per op %.3f"
              % (workload, med[True][0] / med[False][0],
                 med[True][1] / med[False][1]))


if __name__ == "__main__":
    main()
