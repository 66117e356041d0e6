// The dashboard: the server's own metrics (GET /console/api/metrics)
// polled every two seconds and drawn as SVG line charts, no chart library:
// requests/s and errors, throughput, latency percentiles, disk use.

import * as api from '../api.js';
import { h, fill, errText } from '../dom.js';
import { parseProm, snapshot, rates } from '../metrics.js';
import { bytes } from '../format.js';

const POLL_MS = 2000;
const POINTS = 90;
const W = 600;
const H = 160;

/** chart draws series [{name, cls, values}] over the same x as an SVG with a y scale. */
function chart(series, fmt) {
  const max = Math.max(1e-9, ...series.flatMap((s) => s.values.filter(Number.isFinite)));
  const x = (i) => (W * i) / (POINTS - 1);
  const y = (v) => H - 4 - ((H - 8) * v) / max;
  const svg = h(
    'svg:svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', preserveAspectRatio: 'none' },
    [0.25, 0.5, 0.75].map((f) => h('svg:line', { x1: 0, x2: W, y1: y(max * f), y2: y(max * f), class: 'grid' })),
    series.map((s) => {
      const off = POINTS - s.values.length;
      const pts = s.values.map((v, i) => (Number.isFinite(v) ? `${x(i + off).toFixed(1)},${y(v).toFixed(1)}` : null)).filter(Boolean);
      return h('svg:polyline', { points: pts.join(' '), class: `line ${s.cls}` });
    }),
  );
  const legend = h(
    'div',
    { class: 'legend' },
    series.map((s) => {
      const last = s.values[s.values.length - 1];
      return h('span', { class: `key ${s.cls}` }, `${s.name} ${Number.isFinite(last) ? fmt(last) : '–'}`);
    }),
    h('span', { class: 'hint' }, `max ${fmt(max)}`),
  );
  return [svg, legend];
}

/** chartPanel fills pane with title and a chart of columns {name: key of points}, classed s1, s2, …. */
export function chartPanel(pane, title, columns, points, fmt) {
  const series = Object.entries(columns).map(([name, k], i) => ({ name, cls: `s${i + 1}`, values: points.map((p) => p[k]) }));
  return fill(pane, h('h2', null, title), chart(series, fmt));
}

function ms(s) {
  return s < 1 ? `${(s * 1000).toFixed(s < 0.01 ? 2 : 1)} ms` : `${s.toFixed(2)} s`;
}

export function dashboardPage(app, main) {
  document.title = 'Dashboard · JOG';
  const panes = {
    rps: h('div', { class: 'card', 'data-test': 'chart-requests' }),
    bw: h('div', { class: 'card', 'data-test': 'chart-throughput' }),
    lat: h('div', { class: 'card', 'data-test': 'chart-latency' }),
    disk: h('div', { class: 'card', 'data-test': 'chart-disk' }),
  };
  const status = h('p', { class: 'hint', 'aria-live': 'polite' }, 'Reading metrics…');
  fill(main, h('h1', null, 'Dashboard'), status, h('div', { class: 'grid' }, Object.values(panes)));
  const points = [];
  let prev = null;
  let prevAt = 0;
  let timer = 0;
  let alive = true;

  const draw = (cur) => {
    chartPanel(panes.rps, 'Requests per second', { all: 'rps', '4xx': 'err4xx', '5xx': 'err5xx' }, points, (v) => v.toFixed(1));
    chartPanel(panes.bw, 'Throughput', { in: 'inBps', out: 'outBps' }, points, (v) => `${bytes(Math.round(v))}/s`);
    chartPanel(panes.lat, 'Latency', { p50: 'p50', p90: 'p90', p99: 'p99' }, points, ms);
    const used = cur.diskSize - cur.diskFree;
    const meter = h('meter', {
      min: '0',
      max: String(cur.diskSize || 1),
      value: String(Math.max(0, used)),
      high: String(cur.diskSize * 0.9),
    });
    fill(
      panes.disk,
      h('h2', null, 'Disk'),
      cur.diskSize
        ? [meter, h('p', null, `${bytes(used)} used of ${bytes(cur.diskSize)} (${bytes(cur.diskFree)} free)`)]
        : h('p', { class: 'hint' }, 'The server reports no disk size.'),
    );
  };

  const poll = async () => {
    try {
      const cur = snapshot(parseProm(await api.metrics()));
      const now = performance.now();
      if (!alive) return;
      if (prev) {
        points.push(rates(prev, cur, (now - prevAt) / 1000));
        if (points.length > POINTS) points.shift();
      }
      prev = cur;
      prevAt = now;
      status.textContent = `Polled every ${POLL_MS / 1000} s; ${cur.requests} requests since the server started.`;
      draw(cur);
    } catch (e) {
      if (!alive) return;
      status.textContent = errText(e);
      if (e.status === 403) {
        status.setAttribute('data-test', 'dashboard-denied');
        return; // not allowed jog:GetMetrics: stop polling
      }
    }
    // The first rates need two readings: the second comes sooner.
    if (alive) timer = setTimeout(poll, points.length === 0 ? POLL_MS / 4 : POLL_MS);
  };
  poll();
  return () => {
    alive = false;
    clearTimeout(timer);
  };
}
