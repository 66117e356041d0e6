// The dashboard's chart panels, in test/dom.js's DOM.
import './setup.js';
import { html } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h } from '../dist/js/dom.js';
import { chartPanel, ticks, xLabels } from '../dist/js/pages/dashboard.js';

test('chartPanel: a title, a line per column classed s1, s2, … in order, a legend with the last values', () => {
  const pane = h('div', { class: 'card', 'data-test': 'chart-requests' });
  const points = [
    { rps: 1, err4xx: 0, err5xx: 0 },
    { rps: 4, err4xx: 2, err5xx: NaN },
  ];
  assert.equal(
    chartPanel(pane, 'Requests per second', { all: 'rps', '4xx': 'err4xx', '5xx': 'err5xx' }, points, (v) => v.toFixed(1)),
    pane,
  );
  assert.equal(pane.getAttribute('data-test'), 'chart-requests');
  assert.equal(pane.firstChild.localName, 'h2');
  assert.equal(pane.firstChild.textContent, 'Requests per second');
  const lines = pane.querySelectorAll('polyline');
  assert.deepEqual(
    lines.map((l) => l.getAttribute('class')),
    ['line s1', 'line s2', 'line s3'],
  );
  // 90 points across 600 wide: two points sit at the right edge; a value of max (4) at the top (y 4).
  assert.equal(lines[0].getAttribute('points'), '593.3,118.0 600.0,4.0');
  assert.equal(lines[2].getAttribute('points'), '593.3,156.0', 'a missing value draws no point');
  assert.equal(
    html(pane.querySelector('div.legend')),
    '<div class="legend"><span class="key s1">all 4.0</span><span class="key s2">4xx 2.0</span>' +
      '<span class="key s3">5xx –</span><span class="hint">max 4.0</span></div>',
  );
  // The axes: the y ticks' values in the chart's unit, each at its grid line's height; the time below.
  const ys = [...pane.querySelector('div.yaxis').childNodes];
  assert.deepEqual(
    ys.map((s) => s.textContent),
    ['0.0', '1.0', '2.0', '3.0', '4.0'],
  );
  assert.deepEqual(
    ys.map((s) => s.style.bottom),
    ['2.50%', '26.25%', '50.00%', '73.75%', '97.50%'],
  );
  assert.deepEqual(
    pane.querySelectorAll('line').map((l) => l.getAttribute('y1')),
    ['156', '118', '80', '42', '4'],
  );
  assert.deepEqual(
    [...pane.querySelector('div.xaxis').childNodes].map((s) => s.textContent),
    ['−3 min', '−2 min', '−1 min', 'now'],
  );
  assert.equal(pane.querySelector('p'), null, 'a chart with values says nothing of emptiness');
  // Drawn again, the panel holds the new chart only.
  chartPanel(pane, 'Requests per second', { all: 'rps' }, points.slice(0, 1), String);
  assert.equal(pane.querySelectorAll('polyline').length, 1);
  assert.equal(pane.querySelectorAll('h2').length, 1);
});

test('chartPanel: no value to draw is said in words, over an axis of 0 to 1', () => {
  const pane = h('div');
  chartPanel(pane, 'Latency', { p50: 'p50' }, [{ p50: NaN }], String, 'No request was answered.');
  assert.equal(pane.querySelector('p').textContent, 'No request was answered.');
  assert.equal(pane.querySelector('p').getAttribute('data-test'), 'chart-empty');
  assert.deepEqual(
    [...pane.querySelector('div.yaxis').childNodes].map((s) => s.textContent),
    ['0', '1'],
  );
});

test('ticks: round steps from 0 to the first round value at or above max', () => {
  assert.deepEqual(ticks(4), [0, 1, 2, 3, 4]);
  assert.deepEqual(ticks(7.3), [0, 2, 4, 6, 8]);
  assert.deepEqual(ticks(0.37), [0, 0.1, 0.2, 0.3, 0.4]);
  assert.deepEqual(ticks(1000), [0, 250, 500, 750, 1000]);
  assert.deepEqual(ticks(1001), [0, 500, 1000, 1500]);
  assert.deepEqual(ticks(0), [0, 1]);
  assert.deepEqual(ticks(NaN), [0, 1]);
  // Bytes: round in KiB, MiB, …: steps of 250 KiB (256000 B), which bytes() writes 250.0 KiB.
  assert.deepEqual(ticks(1000 * 1024, true), [0, 256000, 512000, 768000, 1024000]);
  assert.deepEqual(
    ticks(1.4 * 1024 * 1024, true),
    [0, 0.5, 1, 1.5].map((v) => v * 1024 * 1024),
  );
  assert.deepEqual(ticks(700, true), [0, 200, 400, 600, 800]);
  for (const m of [0.003, 1.7, 42, 9e6, 123456789]) {
    const t = ticks(m);
    assert.ok(t.length >= 3 && t.length <= 6 && t[t.length - 1] >= m && t[t.length - 2] < m, `${m}: ${t}`);
  }
});

test('xLabels: the last three minutes, then now', () => {
  assert.deepEqual(xLabels(), ['−3 min', '−2 min', '−1 min', 'now']);
});
