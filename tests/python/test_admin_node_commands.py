"""`keywise admin` commands that ask one node over CQL what nodetool asks
Cassandra (tools/node_commands.h): info, describecluster, tablestats,
tablehistograms, proxyhistograms, toppartitions; their figures match a
known workload, and bad arguments get a clear error and exit status 2."""

import re
import subprocess

import pytest

from conftest import Node, create_keyspace, driver_cluster


@pytest.fixture(scope="module")
def loaded():
    n = Node()
    cluster = driver_cluster(n)
    session = cluster.connect()
    create_keyspace(session, "adm")
    session.execute("CREATE TABLE adm.t (k int PRIMARY KEY, v text)")
    insert = session.prepare("INSERT INTO adm.t (k, v) VALUES (?, ?)")
    for i in range(40):
        session.execute(insert, (i % 4, "x" * 100))
    select = session.prepare("SELECT v FROM adm.t WHERE k = ?")
    for _ in range(15):
        session.execute(select, (1,))
    session.execute("SELECT * FROM adm.t")
    yield n, session
    cluster.shutdown()
    assert n.stop() == 0


def admin(node, *args, timeout=60):
    r = subprocess.run([node.binary, "admin", *args, "--port", str(node.port)],
                       capture_output=True, text=True, timeout=timeout)
    return r.returncode, r.stdout, r.stderr


def field(text, name):
    m = re.search(r"^\s*" + re.escape(name) + r"\s*:\s*(.*)$", text, re.M)
    assert m, (name, text)
    return m.group(1).strip()


def test_info(loaded):
    node, session = loaded
    code, out, err = admin(node, "info")
    assert code == 0, err
    host_id = session.execute("SELECT host_id FROM system.local").one()[0]
    assert field(out, "ID") == str(host_id)
    assert field(out, "Data Center") == "datacenter1"
    # The process started with the fixture, moments ago.
    assert 0 <= int(field(out, "Uptime (seconds)")) < 600
    assert float(field(out, "Resident Memory (MB)")) > 1
    assert int(field(out, "Client Connections")) >= 1
    assert field(out, "Block Cache").startswith("size ")


def test_describecluster(loaded):
    node, session = loaded
    code, out, err = admin(node, "describecluster")
    assert code == 0, err
    version = session.execute("SELECT schema_version FROM system.local").one()[0]
    assert field(out, "Name") == "Test Cluster"
    assert "Murmur3Partitioner" in field(out, "Partitioner")
    assert "%s: [127.0.0.1]" % version in out
    assert "datacenter1 #Nodes: 1" in out


def test_tablestats_counts_the_workload(loaded):
    node, _ = loaded
    code, out, err = admin(node, "tablestats", "adm.t")
    assert code == 0, err
    assert field(out, "Total number of tables") == "1"
    assert field(out, "Keyspace") == "adm"
    assert field(out, "Table") == "t"
    assert field(out, "Write Count") == "40"
    assert field(out, "Coordinator write count") == "40"
    assert field(out, "Coordinator read count") == "15"
    assert field(out, "Coordinator range count") == "1"
    assert field(out, "Read Count") == "16"
    assert field(out, "Write Latency").endswith(" ms")
    assert int(field(out, "Space used (live)")) > 0
    code, _, err = admin(node, "tablestats", "nope")
    assert code == 2 and "Unknown keyspace or table: nope" in err


def test_tablehistograms_and_proxyhistograms(loaded):
    node, _ = loaded
    code, out, err = admin(node, "tablehistograms", "adm", "t")
    assert code == 0, err
    assert out.startswith("adm/t histograms")
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines()
             if line and line.split()[0] in ("50%", "99%", "Min", "Max")}
    read50, write50, range50 = (float(x) for x in lines["50%"])
    assert 0 < read50 <= float(lines["Max"][0])
    assert 0 < write50 <= float(lines["Max"][1])
    assert range50 > 0
    assert admin(node, "tablehistograms", "adm.t")[0] == 0
    code, _, err = admin(node, "tablehistograms", "adm")
    assert code == 2 and "KEYSPACE TABLE" in err
    code, out, err = admin(node, "proxyhistograms")
    assert code == 0, err
    header = out.splitlines()[1]
    assert "Read Latency" in header and "CAS Write" in header
    fifty = out.splitlines()[3].split()
    assert fifty[0] == "50%" and float(fifty[1]) > 0 and float(fifty[2]) > 0


def test_toppartitions_counts_what_happens_while_sampling(loaded):
    node, session = loaded
    select = session.prepare("SELECT v FROM adm.t WHERE k = ?")
    proc = subprocess.Popen(
        [node.binary, "admin", "toppartitions", "adm", "t", "3000",
         "--port", str(node.port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The reads start once it samples (its first reading is taken).
    first = proc.stderr.readline()
    assert "Sampling adm.t for 3000 ms" in first, first
    for _ in range(25):
        session.execute(select, (3,))
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "of 3000 ms" in err
    reads_part = out[out.index("READS Sampler:"):]
    # Partition 3 was read 25 times while sampling; partition 1's 15 reads
    # came before and are not counted again.
    assert re.search(r"^\s*k = 3\s+25\s+\d+$", reads_part, re.M), out
    assert not re.search(r"^\s*k = 1\s+\d+\s+\d+$", reads_part, re.M), out
    assert "Nothing recorded during sampling period" in \
        out[out.index("WRITES Sampler:"):out.index("READS Sampler:")]
    code, _, err = admin(node, "toppartitions", "adm", "t", "-5")
    assert code == 2 and "milliseconds" in err


def test_unreachable_node_is_a_clear_error(loaded):
    node, _ = loaded
    r = subprocess.run([node.binary, "admin", "info", "--port", "1"],
                       capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "cannot connect to 127.0.0.1:1" in r.stderr


def test_settraceprobability(loaded):
    node, session = loaded
    assert admin(node, "settraceprobability", "0.25")[0] == 0
    code, out, err = admin(node, "gettraceprobability")
    assert code == 0 and out.strip() == "Current trace probability: 0.25", err
    value = session.execute("SELECT value FROM system_views.settings "
                            "WHERE name = 'trace_probability'").one()[0]
    assert float(value) == 0.25
    assert admin(node, "settraceprobability", "0")[0] == 0
    code, _, err = admin(node, "settraceprobability", "2")
    assert code == 2 and "between 0 and 1" in err
