// The key heatmap page (/api/heatmap): x is time (10-second buckets), y is
// the table's token ranges in token order (key order for range-placed
// tables), colour the reads, writes, both, or the bytes written there. Hover shows a
// cell's range, figures and top partitions; dragging zooms into a time
// window and key range; live refresh every 5 s.
"use strict";

const hm = {
  params: kw.params(),
  data: null,
  drag: null,  // {col, row} where a drag began
  hover: null,
  margin: { left: 170, right: 10, top: 10, bottom: 34 },
};

const kStops = [[0, [16, 26, 46]], [0.25, [31, 78, 156]], [0.5, [42, 161, 152]],
                [0.75, [240, 196, 25]], [1, [232, 64, 44]]];

function colourOf(t) {
  for (let i = 1; i < kStops.length; i++) {
    if (t <= kStops[i][0]) {
      const [a, ca] = kStops[i - 1];
      const [b, cb] = kStops[i];
      const f = (t - a) / (b - a);
      const c = ca.map((v, j) => Math.round(v + (cb[j] - v) * f));
      return "rgb(" + c.join(",") + ")";
    }
  }
  return "rgb(232,64,44)";
}

function metricGrid(d) {
  const metric = document.getElementById("metric").value;
  if (metric === "reads") return d.reads;
  if (metric === "writes") return d.writes;
  if (metric === "bytes") return d.bytes_written;
  return d.reads.map((col, t) => col.map((v, r) => v + d.writes[t][r]));
}

function geometry(canvas, d) {
  const m = hm.margin;
  const cols = Math.max(1, d.times.length);
  const rows = Math.max(1, d.range_to - d.range_from + 1);
  return { cols: cols, rows: rows, x0: m.left, y0: m.top,
           cw: (canvas.width - m.left - m.right) / cols,
           ch: (canvas.height - m.top - m.bottom) / rows };
}

function rangeLabel(range) {
  return range.first_key !== undefined ? "key ≥ " + range.first_key
                                       : "token " + range.first_token;
}

function draw() {
  const d = hm.data;
  const canvas = document.getElementById("heatmap-canvas");
  const ctx = canvas.getContext("2d");
  ctx.fillStyle = "#ffffff";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  if (!d) return;
  const g = geometry(canvas, d);
  const grid = metricGrid(d);
  let max = 0;
  for (const col of grid) for (const v of col) max = Math.max(max, v);
  for (let t = 0; t < grid.length; t++) {
    for (let r = 0; r < g.rows; r++) {
      const v = grid[t][r];
      ctx.fillStyle = colourOf(max > 0 ? Math.sqrt(v / max) : 0);
      ctx.fillRect(g.x0 + t * g.cw, g.y0 + r * g.ch, Math.ceil(g.cw), Math.ceil(g.ch));
    }
  }
  ctx.fillStyle = "#1d2430";
  ctx.font = "11px system-ui, sans-serif";
  ctx.textBaseline = "middle";
  ctx.textAlign = "right";
  const labelEvery = Math.max(1, Math.ceil(14 / g.ch));
  for (let r = 0; r < g.rows; r += labelEvery) {
    const text = rangeLabel(d.ranges[r]);
    ctx.fillText(text.length > 26 ? text.substring(0, 25) + "…" : text,
                 g.x0 - 6, g.y0 + (r + 0.5) * g.ch);
  }
  ctx.textAlign = "center";
  ctx.textBaseline = "top";
  const timeEvery = Math.max(1, Math.ceil(70 / g.cw));
  for (let t = 0; t < d.times.length; t += timeEvery) {
    ctx.fillText(kw.fmtTime(d.times[t]), g.x0 + (t + 0.5) * g.cw, g.y0 + g.rows * g.ch + 6);
  }
  if (hm.drag && hm.hover) {
    const c0 = Math.min(hm.drag.col, hm.hover.col), c1 = Math.max(hm.drag.col, hm.hover.col);
    const r0 = Math.min(hm.drag.row, hm.hover.row), r1 = Math.max(hm.drag.row, hm.hover.row);
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = 2;
    ctx.strokeRect(g.x0 + c0 * g.cw, g.y0 + r0 * g.ch, (c1 - c0 + 1) * g.cw, (r1 - r0 + 1) * g.ch);
  }
  drawLegend(max);
}

function drawLegend(max) {
  const legend = document.getElementById("legend");
  const scale = kw.el("canvas", { width: 200, height: 12 });
  const ctx = scale.getContext("2d");
  for (let x = 0; x < 200; x++) {
    ctx.fillStyle = colourOf(x / 199);
    ctx.fillRect(x, 0, 1, 12);
  }
  legend.replaceChildren("0", scale, kw.fmtNum(max, 0) + " per cell (square-root scale)");
}

function cellAt(event) {
  const d = hm.data;
  if (!d) return null;
  const canvas = document.getElementById("heatmap-canvas");
  const rect = canvas.getBoundingClientRect();
  const x = (event.clientX - rect.left) * (canvas.width / rect.width);
  const y = (event.clientY - rect.top) * (canvas.height / rect.height);
  const g = geometry(canvas, d);
  const col = Math.floor((x - g.x0) / g.cw);
  const row = Math.floor((y - g.y0) / g.ch);
  if (col < 0 || row < 0 || col >= d.times.length || row >= g.rows) return null;
  return { col: col, row: row, x: x, y: y };
}

function tooltipText(cell) {
  const d = hm.data;
  const range = d.ranges[cell.row];
  const t = d.times[cell.col];
  const lines = [
    kw.fmtTime(t) + " – " + kw.fmtTime(t + d.bucket_ms) + " UTC",
    "range " + range.range + " of " + d.ranges_total + ": tokens " + range.first_token +
      " … " + range.last_token,
  ];
  if (range.first_key !== undefined) lines.push("keys from " + range.first_key);
  lines.push("reads " + kw.fmtNum(d.reads[cell.col][cell.row], 0) + ", writes " +
             kw.fmtNum(d.writes[cell.col][cell.row], 0) + " (" +
             kw.fmtBytes(d.bytes_written[cell.col][cell.row]) + ")");
  const top = range.top_partitions || [];
  if (top.length > 0) {
    lines.push("top partitions in this range (whole window):");
    for (const p of top) {
      lines.push("  " + p.op + " " + p.partition_key + ": " + p.count +
                 (p.count_error > 0 ? " (at most " + p.count_error + " too many)" : ""));
    }
  } else {
    lines.push("no top partition known in this range");
  }
  return lines.join("\n");
}

function showTooltip(cell) {
  const tip = document.getElementById("tooltip");
  if (!cell) {
    tip.classList.add("hidden");
    return;
  }
  tip.textContent = tooltipText(cell);
  tip.classList.remove("hidden");
  const canvas = document.getElementById("heatmap-canvas");
  const scale = canvas.getBoundingClientRect().width / canvas.width;
  const left = cell.x * scale + 14;
  tip.style.left = Math.min(left, canvas.width * scale - 300) + "px";
  tip.style.top = (cell.y * scale + 14) + "px";
}

function zoomTo(a, b) {
  const d = hm.data;
  const c0 = Math.min(a.col, b.col), c1 = Math.max(a.col, b.col);
  const r0 = Math.min(a.row, b.row), r1 = Math.max(a.row, b.row);
  hm.params.set("from", d.times[c0]);
  hm.params.set("to", d.times[c1]);
  hm.params.set("range_from", d.range_from + r0);
  hm.params.set("range_to", d.range_from + r1);
  history.replaceState(null, "", "?" + hm.params.toString());
  load();
}

function summary(d) {
  const pct = (x) => (100 * x).toFixed(0) + "%";
  const lines = [
    "Window: " + d.times.length + " buckets of " + d.bucket_ms / 1000 + " s; ranges " +
      d.range_from + "–" + d.range_to + " of " + d.ranges_total + ".",
    "Reads " + kw.fmtNum(d.total_reads, 0) + ", writes " + kw.fmtNum(d.total_writes, 0) +
      " (" + kw.fmtBytes(d.total_bytes_written) + " written).",
    "The busiest eighth of the ranges shown took " + pct(d.hot.writes) + " of the writes and " +
      pct(d.hot.reads) + " of the reads (an even spread: about 12%).",
  ];
  if (d.top_partitions_unplaced > 0) {
    lines.push(d.top_partitions_unplaced + " top partitions could not be placed in a range.");
  }
  return lines.map((l) => kw.el("p", { class: "note" }, l));
}

async function load() {
  const keyspace = hm.params.get("keyspace");
  const table = hm.params.get("table");
  const d = await kw.fetchJson("/api/heatmap?" + hm.params.toString());
  hm.data = d;
  document.getElementById("title").textContent = "Key heatmap: " + keyspace + "." + table;
  document.getElementById("order-note").textContent =
    "Placement: " + d.placement + ". " + d.order_note + ".";
  document.getElementById("scope").textContent = "Counts: " + d.scope + ".";
  document.getElementById("summary").replaceChildren(...summary(d));
  const canvas = document.getElementById("heatmap-canvas");
  canvas.dataset.grid = JSON.stringify({ times: d.times, range_from: d.range_from,
    range_to: d.range_to, reads: d.reads, writes: d.writes,
    bytes_written: d.bytes_written, hot: d.hot });
  draw();
  document.body.dataset.ready = "1";
}

async function chooseTable() {
  const o = await kw.fetchJson("/api/overview");
  const items = [];
  for (const ks of o.keyspaces) {
    for (const t of ks.tables) {
      items.push(kw.el("li", {}, kw.tableLink("heatmap", ks.name, t.name, ks.name + "." + t.name)));
    }
  }
  document.querySelector("main").replaceChildren(
    kw.el("h1", {}, "Key heatmap"), kw.el("p", {}, "Choose a table:"), kw.el("ul", {}, items));
  document.body.dataset.ready = "1";
}

function start() {
  if (!hm.params.get("keyspace") || !hm.params.get("table")) {
    chooseTable().catch((e) => kw.setStatus(String(e.message || e), true));
    return;
  }
  kw.crumbs(hm.params.get("keyspace"), hm.params.get("table"));
  const canvas = document.getElementById("heatmap-canvas");
  canvas.addEventListener("mousemove", (e) => {
    hm.hover = cellAt(e);
    showTooltip(hm.hover);
    if (hm.drag) draw();
  });
  canvas.addEventListener("mouseleave", () => { hm.hover = null; showTooltip(null); });
  canvas.addEventListener("mousedown", (e) => { hm.drag = cellAt(e); });
  canvas.addEventListener("mouseup", (e) => {
    const end = cellAt(e);
    const begin = hm.drag;
    hm.drag = null;
    if (begin && end && (begin.col !== end.col || begin.row !== end.row)) zoomTo(begin, end);
    else draw();
  });
  document.getElementById("metric").addEventListener("change", draw);
  document.getElementById("reset").addEventListener("click", () => {
    for (const p of ["from", "to", "range_from", "range_to"]) hm.params.delete(p);
    history.replaceState(null, "", "?" + hm.params.toString());
    load().catch((e) => kw.setStatus(String(e.message || e), true));
  });
  kw.every(5000, load, () => document.getElementById("live").checked);
}

start();
