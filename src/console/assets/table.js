// The per-table page (/api/table): the advisor's findings with the
// statements that fix them, the SELECT shapes with their access paths, and
// the partitions read, written and stored most.
"use strict";

function keyText(t) {
  const clustering = t.clustering.map((c) => c.name + (c.desc ? " DESC" : ""));
  return "PRIMARY KEY ((" + t.partition_key.join(", ") + ")" +
    (clustering.length ? ", " + clustering.join(", ") : "") + ")";
}

function findingsSection(t) {
  const out = [kw.el("h2", {}, "Findings (" + t.findings.length + ")")];
  if (t.findings.length === 0) {
    out.push(kw.el("p", { class: "note" }, "Nothing to fix: no lint rule is broken and the " +
      "workload statistics show no problem (the workload rules need 100 operations)."));
  }
  for (const f of t.findings) {
    out.push(kw.el("div", { class: "finding-box" },
                   kw.el("span", { class: "tag" }, f.source), " ", kw.el("strong", {}, f.rule),
                   kw.el("pre", { class: "finding" }, f.text)));
  }
  return out;
}

function shapesSection(t) {
  const rows = t.query_shapes.map((s) => [
    kw.el("code", {}, s.shape || "(no WHERE)"), s.access, kw.fmtNum(s.executions, 0),
    kw.fmtNum(s.rows_read, 0), kw.fmtNum(s.rows_returned, 0),
    s.rows_returned > 0 ? kw.fmtNum(s.rows_read / s.rows_returned) : "–",
    kw.fmtNum(s.p50_ms, 3), kw.fmtNum(s.p99_ms, 3)]);
  return [kw.el("h2", {}, "Query shapes (SELECTs) and their plans"),
          kw.table([["shape", ""], ["access path", ""], ["executions", "num"],
                    ["rows read", "num"], ["rows returned", "num"], ["read / returned", "num"],
                    ["p50 ms", "num"], ["p99 ms", "num"]], rows, "no SELECT counted yet")];
}

function topSection(t, op) {
  const rows = t.top_partitions.filter((p) => p.op === op).map((p) => [
    p.rank, kw.el("code", {}, p.partition_key), kw.fmtNum(p.count, 0),
    kw.fmtNum(p.count_error, 0),
    p.table_operations > 0 ? (100 * p.count / p.table_operations).toFixed(1) + "%" : "–"]);
  const table = kw.table([["rank", "num"], ["partition", ""], ["count", "num"],
                          ["count error", "num"], ["share (at most)", "num"]], rows,
                         "no " + op + " counted yet");
  table.dataset.op = op;
  table.classList.add("top-partitions");
  return [kw.el("h3", {}, "Partitions " + (op === "read" ? "read" : "written") + " most"), table];
}

function largeSection(t) {
  const rows = t.large_partitions.map((p) => [
    kw.el("code", {}, p.partition_key), kw.fmtBytes(p.size_in_bytes), kw.fmtNum(p.rows, 0),
    p.limit_passed]);
  return [kw.el("h2", {}, "Large partitions"),
          kw.table([["partition", ""], ["size", "num"], ["rows", "num"], ["limit passed", ""]],
                   rows, "none past the thresholds in the table files")];
}

async function loadTable() {
  const params = kw.params();
  const t = await kw.fetchJson("/api/table?" + new URLSearchParams({
    keyspace: params.get("keyspace") || "", table: params.get("table") || "" }).toString());
  document.getElementById("main").replaceChildren(
    kw.el("h1", {}, "Table " + t.keyspace + "." + t.table),
    kw.el("p", { class: "note" }, keyText(t) + "; placement " + t.placement +
          ". Statistics of " + t.scope + "."),
    ...findingsSection(t), ...shapesSection(t),
    kw.el("h2", {}, "Hot partitions"), ...topSection(t, "read"), ...topSection(t, "write"),
    ...largeSection(t));
  document.body.dataset.ready = "1";
}

const tableParams = kw.params();
kw.crumbs(tableParams.get("keyspace"), tableParams.get("table"));
kw.every(5000, loadTable);
