// The dashboard's chart panels, in test/dom.js's DOM.
import './setup.js';
import { html } from './dom.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { h } from '../dist/js/dom.js';
import { chartPanel } from '../dist/js/pages/dashboard.js';

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
    html(pane.querySelector('div')),
    '<div class="legend"><span class="key s1">all 4.0</span><span class="key s2">4xx 2.0</span>' +
      '<span class="key s3">5xx –</span><span class="hint">max 4.0</span></div>',
  );
  // Drawn again, the panel holds the new chart only.
  chartPanel(pane, 'Requests per second', { all: 'rps' }, points.slice(0, 1), String);
  assert.equal(pane.querySelectorAll('polyline').length, 1);
  assert.equal(pane.querySelectorAll('h2').length, 1);
});
