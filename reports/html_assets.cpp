// The HTML report's inline style sheet and script. Kept apart from the writer so each reads on its own.
#include "reports/html_assets.hpp"

#include <string>

#include "reports/svg_chart.hpp"

namespace gpuperf::reports::html {

const char* style_sheet() {
  return R"CSS(
:root { --fg: #1d232a; --muted: #5b6570; --line: #d5dbe1; --bg-soft: #f4f6f8; --bad: #c62828; --good: #2e7d32;
  --c0: #1f63b4; --c1: #e07000; --c2: #7b3fb4; --c3: #2a9d3a; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: var(--fg); margin: 0 auto; padding: 16px 24px 48px; max-width: 1320px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 2px solid var(--line); }
h3 { font-size: 16px; margin: 22px 0 8px; }
h4 { font-size: 15px; margin: 16px 0 6px; }
h5 { font-size: 14px; margin: 12px 0 4px; font-weight: 600; }
p { margin: 4px 0 8px; }
.muted, .scope { color: var(--muted); }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
nav { margin: 8px 0; } nav a { margin-right: 14px; }
a { color: var(--c0); }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 10px 0; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; min-width: 150px; background: #fff; }
.card .k { display: block; color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.card .v { display: block; font-size: 20px; font-weight: 600; }
.card .s { display: block; color: var(--muted); font-size: 12px; overflow-wrap: anywhere; }
.card.bad .v { color: var(--bad); } .card.good .v { color: var(--good); }
table { border-collapse: collapse; margin: 6px 0 12px; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--bg-soft); font-weight: 600; font-size: 13px; }
td.num, th.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.name { overflow-wrap: anywhere; min-width: 12em; }
td.nowrap, span.nowrap { white-space: nowrap; }
td .lead { font-weight: 500; }
td .lead .sep { color: var(--muted); }
td details summary { color: var(--muted); cursor: pointer; font-size: 0.9em; }
td details ul { margin: 4px 0 0 0; padding-left: 18px; }
details.kname > summary { cursor: pointer; }
details.kname code.full, p.fullname code { display: block; white-space: pre-wrap; overflow-wrap: anywhere;
  font-size: 11.5px; color: var(--muted); margin: 2px 0 4px; max-height: 16em; overflow-y: auto; }
p.fullname { font-size: 12.5px; color: var(--muted); }
td ul { margin: 0; padding-left: 16px; }
.bad { color: var(--bad); } .good { color: var(--good); }
.badge { display: inline-block; border-radius: 9px; padding: 0 7px; font-size: 12px; font-weight: 600; color: #fff; }
.badge.bad { background: var(--bad); color: #fff; } .badge.good { background: var(--good); color: #fff; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 6px 0; font-size: 13px; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(380px, 100%), 1fr)); gap: 10px 18px; }
figure { margin: 0; break-inside: avoid; }
figcaption { font-size: 13px; margin: 2px 0 0 8px; }
figcaption .metric { font-weight: 600; } figcaption .latest { color: var(--muted); }
svg.chart { width: 100%; height: auto; display: block; font-size: 11px; }
svg.chart text { fill: var(--fg); }
svg.chart .grid line { stroke: #e8ecef; stroke-width: 1; }
svg.chart .axis { stroke: #8a949e; fill: none; }
svg.chart .ticks line { stroke: #8a949e; }
svg.chart .ticks.y text { text-anchor: end; fill: var(--muted); }
svg.chart .unit { text-anchor: start; fill: var(--muted); }
svg.chart .ticks.x text, svg.chart .caption { text-anchor: middle; fill: var(--muted); }
svg.chart .ticks.x text.last { text-anchor: end; }
svg.chart .line { fill: none; stroke-width: 1.6; stroke-linejoin: round; }
svg.chart .band { stroke: none; opacity: .18; }
svg.chart .level { stroke: #6b747d; stroke-width: 1; stroke-dasharray: 5 3; }
svg.chart .reference { stroke: #6b747d; stroke-width: 1; stroke-dasharray: 2 3; }
svg.chart .marker line { stroke-width: 1.3; stroke-dasharray: 4 3; }
svg.chart .marker.regression line { stroke: var(--bad); } svg.chart .marker.regression path { fill: var(--bad); }
svg.chart .marker.improvement line { stroke: var(--good); } svg.chart .marker.improvement path { fill: var(--good); }
svg.chart .note line { stroke: #6a4fb3; stroke-width: 1.2; stroke-dasharray: 1 3; }
svg.chart .note line.hit { stroke: transparent; stroke-width: 12; stroke-dasharray: none; }
svg.chart .note circle { fill: #6a4fb3; } svg.chart .note:hover circle, svg.chart .note:focus circle { r: 6; }
.notes { margin: .3em 0 0; padding-left: 1.2em; font-size: .9em; color: var(--muted, #555); overflow-wrap: anywhere; }
svg.chart .legend .swatch { stroke-width: 3; }
svg.chart .hover { fill: transparent; cursor: crosshair; }
svg.chart .cursor { stroke: #39424b; stroke-width: 1; pointer-events: none; }
.c0 .line, .line.c0, .c0 .swatch, .band.c0 { stroke: var(--c0); fill: var(--c0); } .c0 circle { fill: var(--c0); }
.c1 .line, .line.c1, .c1 .swatch, .band.c1 { stroke: var(--c1); fill: var(--c1); } .c1 circle { fill: var(--c1); }
.c2 .line, .line.c2, .c2 .swatch, .band.c2 { stroke: var(--c2); fill: var(--c2); } .c2 circle { fill: var(--c2); }
.c3 .line, .line.c3, .c3 .swatch, .band.c3 { stroke: var(--c3); fill: var(--c3); } .c3 circle { fill: var(--c3); }
svg.chart polyline.line { fill: none; }
details.instance { border: 1px solid var(--line); border-radius: 6px; margin: 8px 0; padding: 0 12px; }
details.instance > summary { cursor: pointer; padding: 8px 0; font-weight: 600; overflow-wrap: break-word; }
details.instance[open] > summary { border-bottom: 1px solid var(--line); margin-bottom: 8px; }
.pair { border-top: 1px solid var(--line); padding-top: 6px; margin-top: 8px; }
.constant { font-size: 13px; color: var(--muted); }
.badge.bound { background: #5b6b7c; color: #fff; }
.sol { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 16px; margin: 6px 0 8px; font-size: 13px; }
.solrow { display: flex; align-items: center; gap: 6px; }
.soll { width: 52px; color: var(--muted); }
.solbar { position: relative; display: inline-block; width: 160px; height: 10px; background: #e6e9ee;
  border-radius: 2px; overflow: hidden; }
.solbar::after { content: ""; position: absolute; left: 60%; top: 0; bottom: 0; border-left: 1px dashed #888; }
.solfill { display: block; height: 100%; background: #9aa7b5; }
.solfill.decides { background: #3c6fb0; }
.solv { width: 44px; text-align: right; font-variant-numeric: tabular-nums; }
.solverdict { font-weight: 600; }
.legend-note { font-size: 12.5px; color: var(--muted); }
.empty { padding: 24px; background: var(--bg-soft); border-radius: 6px; }
.tip { position: absolute; z-index: 10; pointer-events: none; background: #fff; border: 1px solid #8a949e;
  border-radius: 4px; padding: 5px 8px; font-size: 12px; box-shadow: 0 2px 6px rgba(0,0,0,.15); white-space: pre;
  display: none; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
@media print {
  body { padding: 0; max-width: none; font-size: 11px; }
  nav, .tip, .legend-note { display: none; }
  .charts { grid-template-columns: repeat(2, 1fr); }
  section.machine + section.machine { break-before: page; }
  details.instance { break-inside: avoid-page; }
  a { color: inherit; text-decoration: none; }
}
/* A phone (390 px): the page is never wider than the screen. A table wider than the screen scrolls sideways
   inside its own box (its columns keep their widths), and the page's margins shrink. */
@media (max-width: 700px) {
  body { padding: 12px 10px 32px; }
  table { display: block; overflow-x: auto; width: auto; max-width: 100%; }
  td.name { min-width: 9em; }
  .solbar { width: 110px; }
}
)CSS";
}

// Hover details for every chart: the run's commit, date and branch and each line's exact value. Text is set
// with textContent only, so no string from the data can become markup. When done it sets
// <html data-charts-ready="N">, which the browser test reads.
std::string script() {
  std::string js = R"JS(
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('gp-data').textContent);
  var L = PLOT_LEFT, R = PLOT_RIGHT;
  var tip = document.createElement('div');
  tip.className = 'tip';
  document.body.appendChild(tip);
  function scale(u, m) {
    m = Math.abs(m);
    if (u === 'ns') return m >= 1e9 ? [1e9, 's'] : m >= 1e6 ? [1e6, 'ms'] : m >= 1e3 ? [1e3, '\u00b5s'] : [1, 'ns'];
    if (u === 'bytes') return m >= 1e9 ? [1e9, 'GB'] : m >= 1e6 ? [1e6, 'MB'] : m >= 1e3 ? [1e3, 'kB'] : [1, 'B'];
    if (u === 'count' || u === '') return m >= 1e9 ? [1e9, 'G'] : m >= 1e6 ? [1e6, 'M'] : m >= 1e4 ? [1e3, 'k'] : [1, ''];
    return [1, u];
  }
  function fmt(v, u) {
    var s = scale(u, v), x = v / s[0];
    var t = Math.abs(x) >= 1000 ? x.toFixed(1) : String(Number(x.toPrecision(6)));
    if (s[1] === '') return t;
    if (s[1] === '%' || s[1] === '\u00d7') return t + s[1];
    return t + ' ' + s[1];
  }
  var charts = document.querySelectorAll('svg.chart[data-chart]');
  Array.prototype.forEach.call(charts, function (svg) {
    var c = data.charts[Number(svg.getAttribute('data-chart'))];
    var runs = data.machines[c.m].runs, n = runs.length;
    var rect = svg.querySelector('rect.hover'), cursor = svg.querySelector('line.cursor');
    function has(i) { return c.l.some(function (l) { return l[1][i] !== null; }); }
    function show(ev) {
      var pt = svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      var ctm = svg.getScreenCTM();
      if (!ctm) return;
      var p = pt.matrixTransform(ctm.inverse());
      var i = n <= 1 ? 0 : Math.round((p.x - L) / (R - L) * (n - 1));
      i = Math.max(0, Math.min(n - 1, i));
      for (var d = 0; d < n && !has(i); ++d) {  // the nearest run with a value
        if (i - d >= 0 && has(i - d)) { i = i - d; break; }
        if (i + d < n && has(i + d)) { i = i + d; break; }
      }
      var x = n <= 1 ? (L + R) / 2 : L + (R - L) * i / (n - 1);
      cursor.setAttribute('x1', x); cursor.setAttribute('x2', x);
      cursor.setAttribute('visibility', 'visible');
      var r = runs[i], lines = [r[1] + '  commit ' + (r[0] || '?') + (r[2] ? '  (' + r[2] + ')' : '')];
      c.l.forEach(function (l) {
        var v = l[1][i];
        if (v !== null) lines.push(l[0] + ': ' + fmt(v, c.u) + (scale(c.u, v)[0] !== 1 ? '  (' + v + ' ' + c.u + ')' : ''));
      });
      tip.textContent = lines.join('\n');
      tip.style.display = 'block';
      var left = ev.pageX + 14, top = ev.pageY + 14;
      if (left + tip.offsetWidth > window.scrollX + document.documentElement.clientWidth) left = ev.pageX - tip.offsetWidth - 14;
      tip.style.left = left + 'px';
      tip.style.top = top + 'px';
    }
    rect.addEventListener('mousemove', show);
    rect.addEventListener('mouseleave', function () {
      tip.style.display = 'none';
      cursor.setAttribute('visibility', 'hidden');
    });
  });
  window.addEventListener('beforeprint', function () {
    Array.prototype.forEach.call(document.querySelectorAll('details'), function (d) { d.open = true; });
  });
  // The browser test opens the page at #selftest: hover the first chart's last run and keep the tooltip.
  if (location.hash === '#selftest' && charts.length > 0) {
    var hr = charts[0].querySelector('rect.hover').getBoundingClientRect();
    charts[0].querySelector('rect.hover').dispatchEvent(new MouseEvent('mousemove',
        {clientX: hr.right - 1, clientY: hr.top + hr.height / 2, bubbles: true}));
    document.documentElement.setAttribute('data-selftest-tip', tip.textContent);
    // The team's notes: how many a pointer at their dot reaches (the dot, not the chart's hover area, is on
    // top), the first one's hover text, and the page's width.
    var notes = document.querySelectorAll('svg.chart g.note'), reached = 0;
    Array.prototype.forEach.call(notes, function (g) {
      g.scrollIntoView({block: 'center', inline: 'center'});
      var c = g.querySelector('circle').getBoundingClientRect();
      var at = document.elementFromPoint(c.left + c.width / 2, c.top + c.height / 2);
      if (at && g.contains(at)) reached += 1;
    });
    document.documentElement.setAttribute('data-selftest-notes', reached + ' of ' + notes.length + ': ' +
        (notes.length ? notes[0].querySelector('title').textContent : ''));
    window.scrollTo(0, 0);
    var root = document.documentElement;
    root.setAttribute('data-selftest-width', String(root.scrollWidth));
    root.setAttribute('data-selftest-viewport', String(root.clientWidth));
    // Every table's box must lie inside the window (a wide one scrolls inside itself): those that do not.
    var wide = [];
    Array.prototype.forEach.call(document.querySelectorAll('table'), function (t) {
      var r = t.getBoundingClientRect();
      if (r.right > root.clientWidth + 1) wide.push(Math.round(r.width) + 'px:' + t.textContent.trim().slice(0, 40));
    });
    root.setAttribute('data-selftest-wide-tables', String(wide.length) + (wide.length ? ': ' + wide[0] : ''));
  }
  document.documentElement.setAttribute('data-charts-ready', String(charts.length));
})();
)JS";
  // The plot's horizontal extent in viewBox units, shared with svg_chart.cpp.
  auto replace = [&js](const std::string& what, double value) {
    js.replace(js.find(what), what.size(), std::to_string(static_cast<int>(value)));
  };
  replace("PLOT_LEFT", ChartGeometry::plot_left());
  replace("PLOT_RIGHT", ChartGeometry::plot_right());
  return js;
}

}  // namespace gpuperf::reports::html
