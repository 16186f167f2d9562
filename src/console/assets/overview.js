// The overview page: the nodes, this node's storage, every keyspace's
// tables with their figures, and the tablet moves under way
// (/api/overview).
"use strict";

function nodesSection(o) {
  const cluster = o.mode === "cluster";
  const columns = [["host id", ""], ["address", ""], ["dc / rack", ""], ["state", ""],
                   ["status", ""]];
  if (cluster) {
    columns.push(["tablet replicas", "num"], ["load (bytes)", "num"],
                 ["coordinated req/s", "num"]);
  }
  const rows = o.nodes.map((n) => {
    const row = [n.host_id + (n.local ? " (this node)" : ""), n.address,
                 n.dc + " / " + n.rack, n.state,
                 kw.el("span", { class: n.up ? "up" : "down" }, n.up ? "up" : "down")];
    if (cluster) {
      row.push(kw.fmtNum(n.tablet_replicas), kw.fmtBytes(n.load_bytes),
               kw.fmtNum(n.coordinated_per_s));
    }
    return row;
  });
  const table = kw.table(columns, rows);
  table.id = "nodes";
  const section = [kw.el("h2", {}, "Nodes (" + o.mode + ")"), table];
  if (o.load_note) section.push(kw.el("p", { class: "note" }, o.load_note));
  return section;
}

function storageSection(s) {
  const card = (label, value) =>
    kw.el("div", { class: "card" }, kw.el("div", { class: "label" }, label),
          kw.el("div", { class: "value" }, value));
  return [kw.el("h2", {}, "This node's storage"),
          kw.el("div", { class: "cards" },
                card("memtables", kw.fmtBytes(s.memtable_bytes)),
                card("table files", kw.fmtBytes(s.table_file_bytes)),
                card("pending compaction", kw.fmtBytes(s.pending_compaction_bytes)),
                card("compactions / flushes", s.running_compactions + " / " + s.running_flushes),
                card("writes stopped", s.writes_stopped ? "yes" : "no"))];
}

function rowsText(t) {
  if (t.rows === null) return "? (" + (t.rows_error || "unknown") + ")";
  return (t.rows_capped ? "> " : "") + kw.fmtNum(t.rows);
}

function keyspacesSection(o) {
  const out = [kw.el("h2", {}, "Keyspaces and tables")];
  if (o.keyspaces.length === 0) out.push(kw.el("p", { class: "note" }, "No user keyspaces yet."));
  const cluster = o.mode === "cluster";
  for (const ks of o.keyspaces) {
    out.push(kw.el("h3", {}, ks.name + " ",
                   kw.el("span", { class: "tag" }, ks.replication.class || "")));
    const columns = [["table", ""], ["placement", ""]];
    if (cluster) columns.push(["tablets", "num"]);
    columns.push(["size (est.)", "num"], ["rows (counted, capped)", "num"],
                 ["reads/s", "num"], ["writes/s", "num"], ["SELECTs", "num"],
                 ["mean ms", "num"], ["worst p99 ms", "num"], ["", ""]);
    const rows = ks.tables.map((t) => {
      const lat = t.select_latency;
      const row = [kw.tableLink("table", ks.name, t.name, t.name), t.placement];
      if (cluster) row.push(kw.fmtNum(t.tablets));
      row.push(kw.el("span", { title: t.size_source }, kw.fmtBytes(t.size_bytes)),
               rowsText(t), kw.fmtNum(t.reads_per_s), kw.fmtNum(t.writes_per_s),
               lat ? kw.fmtNum(lat.selects) : "–", lat ? kw.fmtNum(lat.mean_ms, 3) : "–",
               lat ? kw.fmtNum(lat.worst_p99_ms, 3) : "–",
               kw.tableLink("heatmap", ks.name, t.name, "heatmap"));
      return row;
    });
    const table = kw.table(columns, rows, "no tables");
    table.classList.add("tables");
    table.dataset.keyspace = ks.name;
    out.push(table);
  }
  out.push(kw.el("p", { class: "note" }, "Size: " + (o.mode === "cluster"
    ? "every replica's storage, from the nodes' load reports (estimate). "
    : "this node's storage, RocksDB's estimate plus memtables. ") +
    "Rows: " + o.rows_note + ". Rates: " + o.rates_note +
    ". Latency: SELECTs only, from system_views.query_shapes."));
  return out;
}

function movesSection(o) {
  const rows = o.moves.map((m) => [m.keyspace + "." + m.table, m.tablet,
                                   m.first_token + " … " + m.last_token,
                                   m.leaving || "(none)", m.pending || "(none)", m.stage]);
  return [kw.el("h2", {}, "Tablet moves in progress"),
          kw.table([["table", ""], ["tablet", "num"], ["tokens", ""], ["from", ""],
                    ["to", ""], ["stage", ""]], rows, "none"),
          kw.el("p", { class: "note" }, o.moves_note)];
}

async function loadOverview() {
  const o = await kw.fetchJson("/api/overview");
  const main = document.getElementById("main");
  main.replaceChildren(
    kw.el("h1", {}, "Overview" + (o.cluster_name ? ": " + o.cluster_name : "")),
    ...nodesSection(o), ...storageSection(o.storage), ...keyspacesSection(o),
    ...movesSection(o));
  document.body.dataset.ready = "1";
}

kw.every(5000, loadOverview);
