"""The Grafana dashboard conf/grafana/keywise.json against docs/metrics.md,
the single source of the metrics' names: it parses, its panels are
well formed and read the data source variable, every PromQL expression is
balanced and names only documented metrics, every documented metric is on
some panel, and every $variable used is defined. No server needed."""

import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "conf" / "grafana" / "keywise.json"
DOCS = ROOT / "docs" / "metrics.md"

METRIC = re.compile(r"keywise_[a-z_]+")
HISTOGRAM_SUFFIXES = ("_bucket", "_sum", "_count")
VARIABLE = re.compile(r"\$(?:\{(\w+)(?::\w+)?\}|(\w+))")
UNITS = {"reqps", "ops", "s", "bytes", "Bps", "percentunit", "short"}


def documented_metrics(text):
    """{name: type} from the first two cells of docs/metrics.md's table
    rows; a cell may name several metrics (`a`, `b`)."""
    metrics = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 2 or set(cells[0]) <= set("-: "):
            continue  # the separator row
        names = re.findall(r"`([^`]+)`", cells[0])
        for name in names:
            if METRIC.fullmatch(name):
                metrics[name] = cells[1].strip("` ").lower()
    return metrics


def all_panels(panels):
    """The dashboard's panels and those nested in collapsed rows."""
    for p in panels:
        yield p
        yield from all_panels(p.get("panels", []))


def expressions(panel):
    return [t["expr"] for t in panel.get("targets", []) if t.get("expr")]


def variable_queries(dashboard):
    for v in dashboard["templating"]["list"]:
        q = v.get("query")
        if isinstance(q, dict):
            q = q.get("query")
        if v["type"] == "query" and q:
            yield v["name"], q


def metric_families(expr, documented):
    """The documented family each metric name in expr belongs to, or the
    name itself when it is not documented (a histogram's _bucket, _sum and
    _count samples belong to its base name)."""
    families = set()
    for name in METRIC.findall(expr):
        family = name
        for suffix in HISTOGRAM_SUFFIXES:
            base = name[:-len(suffix)]
            if name.endswith(suffix) and documented.get(base) == "histogram":
                family = base
        families.add(family)
    return families


def balanced(expr):
    """Parentheses, brackets and braces nest and close, outside quotes."""
    pairs = {")": "(", "]": "[", "}": "{"}
    stack, quote, escaped = [], None, False
    for c in expr:
        if quote:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'`":
            quote = c
        elif c in "([{":
            stack.append(c)
        elif c in pairs:
            if not stack or stack.pop() != pairs[c]:
                return False
    return not stack and quote is None


def strings(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for v in node.values():
            yield from strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v)


@pytest.fixture(scope="module")
def dashboard():
    return json.loads(DASHBOARD.read_text())


@pytest.fixture(scope="module")
def documented():
    metrics = documented_metrics(DOCS.read_text())
    assert len(metrics) >= 30, metrics  # the parser found the tables
    return metrics


@pytest.fixture(scope="module")
def panels(dashboard):
    return list(all_panels(dashboard["panels"]))


def test_docs_parser_reads_every_cell_and_type():
    text = ("| name | type | what |\n|---|---|---|\n"
            "| `keywise_a_total`, `keywise_b_total` | counter | `QUERY` |\n"
            "| `keywise_c_seconds` | histogram | x |\n")
    assert documented_metrics(text) == {
        "keywise_a_total": "counter", "keywise_b_total": "counter",
        "keywise_c_seconds": "histogram"}


def test_balance_checker():
    assert balanced('sum by (a) (rate(x{b="(["}[5m]))')
    assert not balanced("sum(rate(x[5m])")
    assert not balanced("sum(rate(x[5m)))")
    assert not balanced('x{a="b}')


def test_dashboard_settings(dashboard):
    assert dashboard["uid"] == "keywise-overview"
    assert dashboard["title"] == "Keywise"
    assert 36 <= dashboard["schemaVersion"] <= 41
    assert dashboard["refresh"] == "10s"
    assert dashboard["time"] == {"from": "now-1h", "to": "now"}
    assert "docs/metrics.md" in dashboard["description"]
    inputs = {i["name"]: i for i in dashboard["__inputs"]}
    assert inputs["DS_PROMETHEUS"]["pluginId"] == "prometheus"
    assert inputs["DS_PROMETHEUS"]["type"] == "datasource"


def test_template_variables(dashboard):
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    ds = variables["datasource"]
    assert ds["type"] == "datasource" and ds["query"] == "prometheus"
    instance = variables["instance"]
    assert instance["type"] == "query"
    assert instance["query"] == \
        "label_values(keywise_cql_connections, instance)"
    assert instance["multi"] and instance["includeAll"]
    for name in ("keyspace", "table"):
        v = variables[name]
        assert v["type"] == "query"
        assert re.fullmatch(r"label_values\(keywise_table_disk_bytes(\{.*\})?,"
                            r" %s\)" % name, v["query"]), v["query"]
    for v in variables.values():
        if v["type"] == "query":
            assert v["datasource"]["uid"] == "${datasource}", v["name"]


def test_panels_are_well_formed(panels):
    ids = [p.get("id") for p in panels]
    assert all(isinstance(i, int) for i in ids), ids
    assert len(ids) == len(set(ids)), "duplicate panel ids"
    occupied = {}
    for p in panels:
        assert p.get("title"), p["id"]
        g = p.get("gridPos")
        assert g and {"h", "w", "x", "y"} <= set(g), p["title"]
        assert g["w"] > 0 and g["h"] > 0 and g["x"] + g["w"] <= 24, p["title"]
        for x in range(g["x"], g["x"] + g["w"]):
            for y in range(g["y"], g["y"] + g["h"]):
                other = occupied.setdefault((x, y), p["title"])
                assert other == p["title"], (p["title"], "overlaps", other)
        if p["type"] == "row":
            continue
        assert p.get("description"), p["title"]
        assert p["datasource"] == {"type": "prometheus",
                                   "uid": "${datasource}"}, p["title"]
        assert p["fieldConfig"]["defaults"].get("unit") in UNITS, p["title"]
        assert p["targets"], p["title"]
        refs = [t["refId"] for t in p["targets"]]
        assert len(refs) == len(set(refs)), p["title"]
        for t in p["targets"]:
            assert t["datasource"] == p["datasource"], p["title"]
            assert t.get("expr"), p["title"]


def test_rows(panels):
    rows = [p["title"] for p in panels if p["type"] == "row"]
    assert rows == ["Overview", "Client requests (coordinator)", "Tables",
                    "Storage", "Cluster"]


def test_expressions_are_balanced_and_filter_by_instance(panels, dashboard):
    exprs = [(p["title"], e) for p in panels for e in expressions(p)]
    assert exprs
    for where, e in exprs + list(variable_queries(dashboard)):
        assert balanced(e), (where, e)
    for where, e in exprs:
        # Every selector of a keywise metric is restricted to $instance.
        for m in re.finditer(r"(keywise_[a-z_]+)(\{[^}]*\})?", e):
            assert m.group(2) and 'instance=~"$instance"' in m.group(2), \
                (where, m.group(1))


def test_dashboard_names_only_documented_metrics(panels, dashboard,
                                                documented):
    exprs = [(p["title"], e) for p in panels for e in expressions(p)]
    exprs += list(variable_queries(dashboard))
    for where, e in exprs:
        unknown = metric_families(e, documented) - set(documented)
        assert not unknown, "%s uses undocumented %s" % (where, sorted(unknown))


def test_every_documented_metric_is_on_a_panel(panels, documented):
    used = set()
    for p in panels:
        for e in expressions(p):
            used |= metric_families(e, documented)
    missing = set(documented) - used
    assert not missing, "documented but on no panel: %s" % sorted(missing)


def test_histograms_are_read_through_their_samples(panels, documented):
    """A histogram has no sample of its base name; a counter or gauge has no
    _bucket, _sum or _count."""
    for p in panels:
        for e in expressions(p):
            for name in METRIC.findall(e):
                if documented.get(name) == "histogram":
                    pytest.fail("%s reads %s without a suffix" %
                                (p["title"], name))


def test_every_variable_used_is_defined(dashboard):
    defined = {v["name"] for v in dashboard["templating"]["list"]}
    defined |= {i["name"] for i in dashboard.get("__inputs", [])}
    for s in strings(dashboard):
        for braced, plain in VARIABLE.findall(s):
            name = braced or plain
            if name.startswith("__"):
                continue  # Grafana's own: $__rate_interval, $__all, ...
            assert name in defined, "$%s in %r is not defined" % (name, s)


def test_rate_windows_are_grafanas(panels):
    for p in panels:
        for e in expressions(p):
            for window in re.findall(r"\brate\([^\[]*\[([^\]]+)\]", e):
                assert window == "$__rate_interval", (p["title"], e)
