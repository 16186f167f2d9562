// Helpers shared by the console's pages. Pages build the DOM with el()
// (text goes in as text nodes, never as HTML), fetch the node's own JSON
// endpoints, and refresh on a timer.
"use strict";

const kw = {};

// el("td", {class: "num"}, "12", child...): an element with attributes and
// children (strings become text nodes; null and undefined are skipped).
kw.el = function (tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
};

kw.params = function () {
  return new URLSearchParams(window.location.search);
};

kw.fetchJson = async function (url) {
  const response = await fetch(url, { cache: "no-store" });
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    throw new Error(url + ": HTTP " + response.status + " (not JSON)");
  }
  if (!response.ok) {
    throw new Error((body && body.error) || url + ": HTTP " + response.status);
  }
  return body;
};

kw.setStatus = function (text, isError) {
  const status = document.getElementById("status");
  if (!status) return;
  status.textContent = text;
  status.classList.toggle("error", Boolean(isError));
};

kw.fmtNum = function (n, digits) {
  if (n === null || n === undefined) return "–";
  if (typeof n !== "number") return String(n);
  return n.toLocaleString("en-US", { maximumFractionDigits: digits === undefined ? 1 : digits });
};

kw.fmtBytes = function (n) {
  if (n === null || n === undefined) return "–";
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let i = 0;
  while (n >= 1024 && i + 1 < units.length) { n /= 1024; i++; }
  return (i === 0 ? n : n.toFixed(1)) + " " + units[i];
};

kw.fmtTime = function (ms) {
  const d = new Date(ms);
  return d.toISOString().substring(11, 19);
};

kw.tableLink = function (page, keyspace, table, text) {
  const q = new URLSearchParams({ keyspace: keyspace, table: table });
  return kw.el("a", { href: "/console/" + page + "?" + q.toString() }, text);
};

// A table element: `columns` are [title, className]; rows are arrays of
// cells (strings, numbers or nodes).
kw.table = function (columns, rows, emptyText) {
  const head = kw.el("tr", {}, columns.map(([t, c]) => kw.el("th", { class: c }, t)));
  const body = rows.map((row) =>
    kw.el("tr", {}, row.map((cell, i) => kw.el("td", { class: columns[i][1] }, cell))));
  if (rows.length === 0) {
    body.push(kw.el("tr", {}, kw.el("td", { colspan: columns.length, class: "note" },
                                     emptyText || "none")));
  }
  return kw.el("table", {}, kw.el("thead", {}, head), kw.el("tbody", {}, body));
};

// Runs `load` now and every `ms` while `enabled()` says so; a failure
// shows in the status line and the next round tries again.
kw.every = function (ms, load, enabled) {
  let running = false;
  const round = async () => {
    if (running) return;
    running = true;
    try {
      await load();
      kw.setStatus("updated " + new Date().toLocaleTimeString("en-GB"), false);
    } catch (e) {
      kw.setStatus(String(e.message || e), true);
    } finally {
      running = false;
    }
  };
  round();
  return window.setInterval(() => { if (!enabled || enabled()) round(); }, ms);
};

kw.crumbs = function (keyspace, table) {
  const crumbs = document.getElementById("crumbs");
  if (!crumbs || !keyspace || !table) return;
  crumbs.replaceChildren(" / ", keyspace + "." + table, " · ",
                         kw.tableLink("heatmap", keyspace, table, "heatmap"), " · ",
                         kw.tableLink("table", keyspace, table, "table"));
};
