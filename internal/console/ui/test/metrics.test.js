import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseProm, snapshot, quantile, rates } from '../dist/js/metrics.js';

const text = (n, slow) => `# HELP jog_s3_requests_total S3 requests answered.
# TYPE jog_s3_requests_total counter
jog_s3_requests_total{op="GetObject",status="200"} ${n}
jog_s3_requests_total{op="GetObject",status="404"} 2
jog_s3_requests_total{op="PutObject",status="503"} 1
jog_s3_received_bytes_total{op="PutObject"} 1000
jog_s3_sent_bytes_total{op="GetObject"} ${n * 100}
jog_s3_request_duration_seconds_bucket{op="GetObject",le="0.001"} ${n - slow}
jog_s3_request_duration_seconds_bucket{op="GetObject",le="0.01"} ${n}
jog_s3_request_duration_seconds_bucket{op="GetObject",le="+Inf"} ${n}
jog_s3_request_duration_seconds_bucket{op="PutObject",le="0.001"} 0
jog_s3_request_duration_seconds_bucket{op="PutObject",le="0.01"} 0
jog_s3_request_duration_seconds_bucket{op="PutObject",le="+Inf"} 0
jog_disk_size_bytes{path="/d"} 1000
jog_disk_free_bytes{path="/d"} 400
weird_metric{label="a\\"b"} 1e3
`;

test('parseProm reads names, labels (escapes too) and values', () => {
  const s = parseProm(text(10, 0));
  const w = s.find((x) => x.name === 'weird_metric');
  assert.equal(w.labels.label, 'a"b');
  assert.equal(w.value, 1000);
  assert.equal(s.filter((x) => x.name === 'jog_s3_requests_total').length, 3);
});

test('snapshot sums requests, errors, bytes, disk and the latency histogram over ops', () => {
  const s = snapshot(parseProm(text(10, 2)));
  assert.equal(s.requests, 13);
  assert.equal(s.errors4xx, 2);
  assert.equal(s.errors5xx, 1);
  assert.equal(s.bytesOut, 1000);
  assert.deepEqual(s.latency, [
    [0.001, 8],
    [0.01, 10],
    [Infinity, 10],
  ]);
  assert.deepEqual([s.diskSize, s.diskFree], [1000, 400]);
});

test('quantile interpolates within a bucket as histogram_quantile does', () => {
  const hist = [
    [0.001, 50],
    [0.01, 100],
    [Infinity, 100],
  ];
  assert.equal(quantile(0.5, hist), 0.001);
  assert.ok(Math.abs(quantile(0.75, hist) - 0.0055) < 1e-12);
  assert.ok(
    Number.isNaN(
      quantile(0.5, [
        [1, 0],
        [Infinity, 0],
      ]),
    ),
  );
  assert.equal(
    quantile(0.99, [
      [0.001, 0],
      [Infinity, 5],
    ]),
    0.001,
  );
});

test("rates divide counter deltas by the interval and use the interval's latencies", () => {
  const a = snapshot(parseProm(text(10, 0)));
  const b = snapshot(parseProm(text(30, 10)));
  const r = rates(a, b, 2);
  assert.equal(r.rps, 10);
  assert.equal(r.outBps, 1000);
  assert.equal(r.err5xx, 0);
  // the 20 new requests: 10 at ≤1 ms, 10 in (1 ms, 10 ms]
  assert.equal(r.p50, 0.001);
  assert.ok(r.p99 > 0.001 && r.p99 <= 0.01);
  assert.equal(rates(b, a, 2).rps, 0); // a counter reset reads as 0, not negative
});
