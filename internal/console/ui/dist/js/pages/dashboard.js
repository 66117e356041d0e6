// The dashboard: the server's own metrics (GET /console/api/metrics)
// polled every two seconds and drawn as SVG line charts, no chart library:
// requests/s and errors, throughput, latency percentiles, disk use. Each
// chart has a y axis of round values in its unit and a time axis; a
// principal not allowed the metrics, or a chart with nothing to draw yet,
// is told so in words.

import * as api from '../api.js';
import { h, fill, errText } from '../dom.js';
import { parseProm, snapshot, rates } from '../metrics.js';
import { bytes } from '../format.js';

const POLL_MS = 2000;
const POINTS = 90;
const W = 600;
const H = 160;
/** WINDOW is the span of the x axis, in minutes. */
const WINDOW = (POINTS * POLL_MS) / 60000;

/**
 * ticks returns the y axis' values: 0 up to the first round value ≥ max, in 3 to 5 steps of 1, 2, 2.5 or 5 × 10ⁿ;
 * with binary, round in the power of 1024 bytes() writes max in (steps of 250 KiB, not of 244.1 KiB).
 */
export function ticks(max, binary = false) {
  if (!(max > 0)) return [0, 1];
  if (binary && max >= 1024) {
    const unit = 1024 ** Math.min(5, Math.floor(Math.log(max) / Math.log(1024)));
    return ticks(max / unit).map((v) => v * unit);
  }
  const raw = max / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((st) => st >= raw * (1 - 1e-9));
  const n = Math.ceil(max / step - 1e-9);
  return Array.from({ length: n + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

/** xLabels are the time axis' labels, oldest first: minutes before now, then now. */
export function xLabels() {
  const out = [];
  for (let m = WINDOW; m > 0; m -= 1) out.push(`−${m} min`);
  out.push('now');
  return out;
}

/**
 * chart draws series [{name, cls, values}] over the same x as an SVG, with a y axis of ticks(max) labelled by fmt
 * and a time axis; empty says in words what a chart with no value would have shown.
 */
function chart(series, fmt, empty, binary) {
  const finite = series.flatMap((s) => s.values.filter(Number.isFinite));
  const max = Math.max(0, ...finite);
  const ys = ticks(max, binary);
  const top = ys[ys.length - 1];
  const x = (i) => (W * i) / (POINTS - 1);
  const y = (v) => H - 4 - ((H - 8) * v) / top;
  const svg = h(
    'svg:svg',
    { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img', preserveAspectRatio: 'none' },
    ys.map((v) => h('svg:line', { x1: 0, x2: W, y1: y(v), y2: y(v), class: 'grid' })),
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
  // The y labels sit where their grid lines are: a share of the plot's height from its bottom.
  const yAxis = h(
    'div',
    { class: 'yaxis', 'data-test': 'y-ticks' },
    ys.map((v) => {
      const label = h('span', null, fmt(v));
      label.style.bottom = `${(((H - y(v)) / H) * 100).toFixed(2)}%`;
      return label;
    }),
  );
  const xAxis = h(
    'div',
    { class: 'xaxis', 'data-test': 'x-axis' },
    xLabels().map((t) => h('span', null, t)),
  );
  const plot = h('div', { class: 'plot' }, yAxis, svg, h('span'), xAxis);
  const none = finite.length === 0 && h('p', { class: 'hint', 'data-test': 'chart-empty' }, empty);
  return [plot, none, legend];
}

/**
 * chartPanel fills pane with title and a chart of columns {name: key of points}, classed s1, s2, …; empty is what
 * it says when no point has a value ('Nothing to draw yet.' by default); binary: its values are bytes (ticks).
 */
export function chartPanel(pane, title, columns, points, fmt, empty = 'Nothing to draw yet.', binary = false) {
  const series = Object.entries(columns).map(([name, k], i) => ({ name, cls: `s${i + 1}`, values: points.map((p) => p[k]) }));
  return fill(pane, h('h2', null, title), chart(series, fmt, empty, binary));
}

/** DENIED is what the dashboard says to a principal not allowed the server's metrics. */
export const DENIED =
  "Your policy doesn't allow jog:GetMetrics, so the dashboard has nothing to show you: it draws the server's own metrics " +
  '(requests, throughput, latency, disk). An administrator can allow the action (docs/CONSOLE.md); ' +
  'your buckets are under Buckets.';

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
  const grid = h('div', { class: 'grid' }, Object.values(panes));
  fill(main, h('h1', null, 'Dashboard'), status, grid);
  const points = [];
  let prev = null;
  let prevAt = 0;
  let timer = 0;
  let alive = true;

  const draw = (cur) => {
    const first = `Collecting: the first rates come ${POLL_MS / 1000} s after the first reading.`;
    chartPanel(
      panes.rps,
      'Requests per second',
      { all: 'rps', '4xx': 'err4xx', '5xx': 'err5xx' },
      points,
      (v) => `${Number(v.toFixed(2))}/s`,
      first,
    );
    chartPanel(panes.bw, 'Throughput', { in: 'inBps', out: 'outBps' }, points, (v) => `${bytes(Math.round(v))}/s`, first, true);
    chartPanel(
      panes.lat,
      'Latency',
      { p50: 'p50', p90: 'p90', p99: 'p99' },
      points,
      ms,
      points.length ? `No request was answered in the last ${WINDOW} minutes: no latency to draw.` : first,
    );
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
        // Not allowed jog:GetMetrics: say so instead of four empty boxes, and stop polling.
        status.textContent = DENIED;
        status.setAttribute('data-test', 'dashboard-denied');
        grid.remove();
        return;
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
