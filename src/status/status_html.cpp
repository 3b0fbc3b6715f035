#include "status/status_html.hpp"

#include "status/status_json.hpp"

#include <string>
#include <string_view>

namespace stet::detail {
namespace {

// The page is data: three raw strings (style, markup, script) rather than one
// function, so each reads as what it is. Nothing here is fetched from
// anywhere but the page's own JSON URL.

constexpr std::string_view style = R"css(
:root { color-scheme: light dark; --fg: #1d2330; --muted: #6b7385; --bg: #f6f7f9; --card: #fff;
  --line: #e3e6ec; --accent: #2b6cb0; --good: #2f855a; --warn: #b7791f; --bad: #c53030; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ef; --muted: #98a0b3; --bg: #14171d; --card: #1c2029;
  --line: #2c3240; --accent: #63b3ed; --good: #68d391; --warn: #f6e05e; --bad: #fc8181; } }
* { box-sizing: border-box; }
body { margin: 0; padding: 20px 28px 32px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
header { display: flex; align-items: baseline; gap: 14px; flex-wrap: wrap; }
h1 { font-size: 20px; margin: 0; }
h1 small { font-weight: normal; color: var(--muted); font-size: 13px; }
h2 { font-size: 15px; margin: 26px 0 8px; }
.state { font-size: 12px; padding: 1px 8px; border-radius: 10px; background: var(--line); }
.state.live { background: var(--good); color: #fff; }
.state.down { background: var(--bad); color: #fff; }
#updated { color: var(--muted); font-size: 12px; }
.tiles { display: flex; gap: 12px; flex-wrap: wrap; margin-top: 16px; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px;
  min-width: 170px; }
.tile .label { color: var(--muted); font-size: 12px; }
.tile .value { font-size: 24px; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile .sub { color: var(--muted); font-size: 12px; font-variant-numeric: tabular-nums; }
table { border-collapse: collapse; background: var(--card); border: 1px solid var(--line); border-radius: 8px;
  overflow: hidden; min-width: 640px; }
th, td { padding: 5px 12px; text-align: right; border-bottom: 1px solid var(--line); white-space: nowrap; }
th { font-size: 12px; font-weight: 600; color: var(--muted); background: var(--bg); }
th:first-child, td:first-child { text-align: left; }
td { font-variant-numeric: tabular-nums; }
tr:last-child td { border-bottom: none; }
td.none { color: var(--muted); }
tr.no-route td[data-field="route"] { font-style: italic; }
td[data-field="title"] small, td[data-field="route"] small { color: var(--muted); margin-right: 6px; }
.rate-good { color: var(--good); } .rate-warn { color: var(--warn); } .rate-bad { color: var(--bad); }
.errors { color: var(--bad); }
svg.spark { width: 120px; height: 24px; display: block; }
svg.spark path { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-linejoin: round; }
svg.spark line { stroke: var(--line); stroke-width: 1; }
footer { margin-top: 24px; color: var(--muted); font-size: 12px; }
footer a { color: var(--accent); }
)css";

constexpr std::string_view markup = R"html(
<header>
<h1>stet status <small id="version"></small></h1>
<span id="state" class="state">loading</span>
<span id="updated"></span>
</header>
<section class="tiles">
<div class="tile"><div class="label">requests per second</div><div class="value" id="rps">&ndash;</div>
<svg id="rps-spark" class="spark" viewBox="0 0 120 24" aria-label="requests per second"></svg></div>
<div class="tile"><div class="label">requests answered</div><div class="value" id="requests">&ndash;</div>
<div class="sub" id="classes"></div></div>
<div class="tile"><div class="label">connections open</div><div class="value" id="open">&ndash;</div>
<div class="sub" id="accepted"></div></div>
<div class="tile"><div class="label">up</div><div class="value" id="uptime">&ndash;</div>
<div class="sub" id="phases"></div></div>
<div class="tile" id="offload-tile" hidden><div class="label">offload pool: running / threads</div>
<div class="value" id="offload">&ndash;</div><div class="sub" id="offload-queue"></div></div>
</section>
<h2>Caches</h2>
<table id="caches"><thead><tr><th>cache</th><th>hits</th><th>misses</th><th>hit rate</th>
<th>hit rate, last minutes</th><th>entries</th><th>bytes</th><th>evictions</th></tr></thead><tbody></tbody></table>
<h2>Routes</h2>
<table id="routes"><thead><tr><th>route</th><th>requests</th><th>1xx</th><th>2xx</th><th>3xx</th><th>4xx</th>
<th>5xx</th><th>p50</th><th>p99</th></tr></thead><tbody></tbody></table>
<footer>Every number is read from the same counters as the Prometheus metrics. Data:
<a id="json-link"></a>; rates are computed here, between two refreshes.</footer>
)html";

constexpr std::string_view script = R"js(
(() => {
  'use strict';
  const body = document.body;
  const url = body.dataset.json, every = Number(body.dataset.refreshMs), keep = Number(body.dataset.history);
  const minLookups = Number(body.dataset.minLookups);
  const $ = (id) => document.getElementById(id);
  const SVG = 'http://www.w3.org/2000/svg';
  const dash = '\u2013';
  const rpsSeries = [];
  const caches = new Map(), routes = new Map();
  let previous = null, refreshes = 0, noRoute = null;

  const count = (n) => (n == null ? dash : Math.round(n).toLocaleString('en-US'));
  const percent = (r) => (r == null ? dash : (r * 100).toFixed(1) + ' %');
  const perSecond = (v) => (v == null ? dash : v.toFixed(v < 10 ? 1 : 0));
  const bytes = (n) => {
    if (n == null) return dash;
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let i = 0;
    for (; n >= 1024 && i < units.length - 1; ++i) n /= 1024;
    return (i === 0 ? String(n) : n.toFixed(1)) + ' ' + units[i];
  };
  const millis = (v) => {
    if (v == null) return dash;
    if (v < 1) return (v * 1000).toFixed(v < 0.01 ? 1 : 0) + ' \u00b5s';
    return v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0) + ' ms';
  };
  const since = (s) => {
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    if (d > 0) return d + ' d ' + h + ' h';
    if (h > 0) return h + ' h ' + m + ' min';
    return m > 0 ? m + ' min ' + Math.floor(s % 60) + ' s' : Math.floor(s) + ' s';
  };
  const rateClass = (r) => (r == null ? '' : r >= 0.9 ? 'rate-good' : r >= 0.5 ? 'rate-warn' : 'rate-bad');

  function put(td, text, value) {
    td.textContent = text;
    td.classList.toggle('none', text === dash);
    if (value !== undefined) td.dataset.value = value == null ? '' : String(value);
  }

  function keepLast(series, v) {
    series.push(v);
    while (series.length > keep) series.shift();
  }

  // A line over the last values, newest at the right edge; null is a gap (no
  // lookups in that interval). `top` fixes the scale (1 for a rate).
  function sparkline(svg, series, top) {
    const w = 120, h = 24;
    let path = svg.querySelector('path');
    if (!path) {
      const base = document.createElementNS(SVG, 'line');
      base.setAttribute('x1', 0); base.setAttribute('x2', w);
      base.setAttribute('y1', h - 0.5); base.setAttribute('y2', h - 0.5);
      path = document.createElementNS(SVG, 'path');
      svg.append(base, path);
    }
    const values = series.filter((v) => v != null);
    const max = top || Math.max(1e-9, ...values);
    // Until 30 values exist they sit at 30 slots' spacing, growing from the
    // right; then the line spans the width, up to `keep` values.
    const slots = Math.min(keep, Math.max(series.length, 30));
    const step = w / Math.max(1, slots - 1), x0 = w - step * (series.length - 1);
    let d = '', pen = false;
    series.forEach((v, i) => {
      if (v == null) { pen = false; return; }
      const x = x0 + i * step, y = h - 1.5 - (h - 3) * Math.min(v, max) / max;
      d += (pen ? 'L' : 'M') + x.toFixed(1) + ' ' + y.toFixed(1);
      pen = true;
    });
    path.setAttribute('d', d);
    svg.dataset.points = String(values.length);
  }

  function makeRow(table, key, fields) {
    const tr = document.createElement('tr');
    tr.dataset.key = key;
    const cells = {};
    for (const f of fields) {
      const td = document.createElement('td');
      td.dataset.field = f;
      tr.append(td);
      cells[f] = td;
    }
    table.tBodies[0].append(tr);
    return { tr, cells };
  }

  function showCache(c) {
    let row = caches.get(c.name);
    if (!row) {
      row = makeRow($('caches'), c.name,
        ['title', 'hits', 'misses', 'hit_rate', 'spark', 'entries', 'bytes', 'evictions']);
      row.tr.dataset.cache = c.name;
      row.svg = document.createElementNS(SVG, 'svg');
      row.svg.setAttribute('viewBox', '0 0 120 24');
      row.svg.classList.add('spark');
      row.cells.spark.append(row.svg);
      row.series = [];
      caches.set(c.name, row);
    }
    row.cells.title.textContent = c.title;
    row.cells.title.title = 'cache="' + c.name + '"';
    put(row.cells.hits, count(c.hits), c.hits);
    put(row.cells.misses, count(c.misses), c.misses);
    put(row.cells.hit_rate, percent(c.hit_rate), c.hit_rate);
    row.cells.hit_rate.className = rateClass(c.hit_rate);
    put(row.cells.entries, count(c.entries), c.entries);
    put(row.cells.bytes, bytes(c.bytes), c.bytes);
    put(row.cells.evictions, count(c.evictions), c.evictions);
    // The first point is the rate since start; each next one the rate
    // between two refreshes.
    let rate = c.hit_rate;
    if (row.last) {
      const hits = (c.hits || 0) - (row.last.hits || 0), misses = (c.misses || 0) - (row.last.misses || 0);
      rate = hits + misses >= minLookups ? hits / (hits + misses) : null;
    }
    keepLast(row.series, rate);
    row.last = c;
    sparkline(row.svg, row.series, 1);
  }

  function routeRow(key, method, pattern) {
    const row = makeRow($('routes'), key, ['route', 'requests', '1xx', '2xx', '3xx', '4xx', '5xx', 'p50', 'p99']);
    const small = document.createElement('small');
    small.textContent = method;
    row.cells.route.append(small, document.createTextNode(pattern));
    return row;
  }

  function showRoute(r) {
    const key = r.method + ' ' + r.pattern;
    let row = routes.get(key);
    if (!row) {
      row = routeRow(key, r.method, r.pattern);
      routes.set(key, row);
    }
    showCounts(row, r);
  }

  // Answers no route gave (unmatched 404 and 405, OPTIONS, redirects,
  // errors before routing): one row, always last, without handler times.
  function showNoRoute(n) {
    if (n == null) return;
    if (!noRoute) {
      noRoute = routeRow('no route', '', 'no route');
      noRoute.tr.classList.add('no-route');
      noRoute.cells.route.title = '404 and 405 no route matched, OPTIONS, trailing-slash redirects, errors before routing';
    }
    showCounts(noRoute, { ...n, p50_ms: null, p99_ms: null });
  }

  function showCounts(row, r) {
    put(row.cells.requests, count(r.requests), r.requests);
    for (const k of ['1xx', '2xx', '3xx', '4xx', '5xx']) put(row.cells[k], count(r.by_class[k]), r.by_class[k]);
    row.cells['5xx'].classList.toggle('errors', r.by_class['5xx'] > 0);
    put(row.cells.p50, millis(r.p50_ms), r.p50_ms);
    put(row.cells.p99, millis(r.p99_ms), r.p99_ms);
    row.requests = r.requests;
  }

  function showTotals(data) {
    $('version').textContent = data.stet;
    $('uptime').textContent = since(data.uptime_seconds);
    $('requests').textContent = count(data.requests.total);
    $('requests').dataset.value = String(data.requests.total);
    const by = data.requests.by_class;
    $('classes').textContent = ['2xx', '3xx', '4xx', '5xx'].map((k) => k + ' ' + count(by[k])).join(' \u00b7 ');
    $('open').textContent = count(data.connections.open);
    $('open').dataset.value = String(data.connections.open);
    let accepted = 'accepted ' + count(data.connections.accepted);
    if (data.connections.websockets != null) accepted += ' \u00b7 WebSockets ' + count(data.connections.websockets);
    if (data.connections.event_streams != null) {
      accepted += ' \u00b7 event streams ' + count(data.connections.event_streams) + ' \u00b7 topics: published ' +
                  count(data.connections.published) + ', delivered ' + count(data.connections.delivered);
      if (data.connections.pubsub_connected === 0) accepted += ' \u00b7 bus DISCONNECTED';
    }
    $('accepted').textContent = accepted;
    const p = data.phases;
    $('phases').textContent = 'handler p50 ' + millis(p.handler.p50_ms) + ' \u00b7 p99 ' + millis(p.handler.p99_ms);
    let rps = data.uptime_seconds > 0 ? data.requests.total / data.uptime_seconds : null;
    if (previous) {
      const dt = data.uptime_seconds - previous.uptime_seconds;
      rps = dt > 0 ? (data.requests.total - previous.requests.total) / dt : null;
    }
    $('rps').textContent = perSecond(rps);
    $('rps').dataset.value = rps == null ? '' : String(rps);
    keepLast(rpsSeries, rps);
    sparkline($('rps-spark'), rpsSeries, 0);
  }

  // The stet::offload pool (null when the server has none).
  function showOffload(o) {
    $('offload-tile').hidden = o == null;
    if (o == null) return;
    $('offload').textContent = count(o.running) + ' / ' + count(o.threads);
    $('offload').dataset.value = String(o.running);
    $('offload-queue').textContent = 'queued ' + count(o.queued) + ' of ' + count(o.queue_limit) +
      ' \u00b7 refused ' + count(o.calls.rejected) + ' \u00b7 wait p99 ' + millis(o.wait_p99_ms);
  }

  function show(data) {
    showTotals(data);
    showOffload(data.offload);
    data.caches.forEach(showCache);
    data.routes.forEach(showRoute);
    showNoRoute(data.no_route);
    // Busiest routes first, no route last; rows are moved, never rebuilt.
    const order = [...routes.values()].sort((a, b) => b.requests - a.requests);
    if (noRoute) order.push(noRoute);
    $('routes').tBodies[0].append(...order.map((r) => r.tr));
    previous = data;
  }

  function state(text, kind) {
    $('state').textContent = text;
    $('state').className = 'state ' + kind;
  }

  async function refresh() {
    try {
      const answer = await fetch(url, { cache: 'no-store', headers: { Accept: 'application/json' } });
      if (!answer.ok) throw new Error('HTTP ' + answer.status);
      show(await answer.json());
      body.dataset.refreshes = String(++refreshes);
      $('updated').textContent = 'updated ' + new Date().toLocaleTimeString('en-GB');
      state('live', 'live');
    } catch (e) {
      state('unreachable: ' + e.message, 'down');
    } finally {
      setTimeout(refresh, every);
    }
  }

  $('json-link').href = url;
  $('json-link').textContent = url;
  refresh();
})();
)js";

// For the values put in attributes: the JSON URL is the embedder's text.
void append_attribute(std::string& out, std::string_view text) {
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

}  // namespace

std::string make_status_html(const status_page_options& options) {
  std::string html;
  html.reserve(style.size() + markup.size() + script.size() + 512);
  html += "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += "<title>stet status</title>\n<style>";
  html += style;
  html += "</style>\n</head>\n<body data-json=\"";
  append_attribute(html, options.json_url);
  html += "\" data-refresh-ms=\"";
  html += std::to_string(options.refresh.count() > 0 ? options.refresh.count() : 2000);
  html += "\" data-history=\"";
  html += std::to_string(options.history > 1 ? options.history : 2);
  html += "\" data-min-lookups=\"";
  html += std::to_string(hit_rate_min_lookups);
  html += "\" data-refreshes=\"0\">";
  html += markup;
  html += "<script>";
  html += script;
  html += "</script>\n</body>\n</html>\n";
  return html;
}

}  // namespace stet::detail
