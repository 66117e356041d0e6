// Reading the server's Prometheus text (GET /console/api/metrics) into the
// few numbers the dashboard draws. Pure.

/** parseProm returns the samples of a Prometheus text exposition: [{name, labels, value}]. */
export function parseProm(body) {
  const out = [];
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (!line || line[0] === '#') continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels = {};
    if (m[3]) {
      const re = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;
      let l;
      while ((l = re.exec(m[3])) !== null) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c) => (c === 'n' ? '\n' : c));
    }
    const v = m[4] === '+Inf' ? Infinity : m[4] === '-Inf' ? -Infinity : Number(m[4]);
    out.push({ name: m[1], labels, value: v });
  }
  return out;
}

/** sum adds the values of the samples named name (whose labels pass keep). */
export function sum(samples, name, keep = () => true) {
  let s = 0;
  for (const x of samples) if (x.name === name && keep(x.labels)) s += x.value;
  return s;
}

/**
 * snapshot reduces samples to the dashboard's counters: requests, errors
 * (status ≥ 500 and 4xx apart), bytes in and out, the latency histogram
 * summed over operations ([[le, count]] ascending), and disk bytes.
 */
export function snapshot(samples) {
  const buckets = new Map();
  for (const x of samples) {
    if (x.name !== 'jog_s3_request_duration_seconds_bucket') continue;
    const le = x.labels.le === '+Inf' ? Infinity : Number(x.labels.le);
    buckets.set(le, (buckets.get(le) || 0) + x.value);
  }
  return {
    requests: sum(samples, 'jog_s3_requests_total'),
    errors5xx: sum(samples, 'jog_s3_requests_total', (l) => Number(l.status) >= 500),
    errors4xx: sum(samples, 'jog_s3_requests_total', (l) => Number(l.status) >= 400 && Number(l.status) < 500),
    bytesIn: sum(samples, 'jog_s3_received_bytes_total'),
    bytesOut: sum(samples, 'jog_s3_sent_bytes_total'),
    latency: [...buckets.entries()].sort((a, b) => a[0] - b[0]),
    diskFree: sum(samples, 'jog_disk_free_bytes'),
    diskSize: sum(samples, 'jog_disk_size_bytes'),
  };
}

/**
 * quantile estimates the q-quantile of a cumulative histogram [[le, count]]
 * as Prometheus' histogram_quantile does (linear within a bucket); NaN when
 * it holds no observations.
 */
export function quantile(q, hist) {
  if (hist.length === 0) return NaN;
  const total = hist[hist.length - 1][1];
  if (!(total > 0)) return NaN;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const [le, count] of hist) {
    if (count >= rank) {
      if (le === Infinity) return prevLe;
      if (count === prevCount) return le;
      return prevLe + ((le - prevLe) * (rank - prevCount)) / (count - prevCount);
    }
    prevLe = le;
    prevCount = count;
  }
  return prevLe;
}

/**
 * rates turns two snapshots dt seconds apart into one dashboard point:
 * requests/s, errors/s, bytes/s in and out, and p50/p90/p99 latency (in
 * seconds) of the requests answered between them. Counter resets give 0.
 */
export function rates(prev, cur, dt) {
  const d = (a, b) => Math.max(0, b - a) / dt;
  const hist = cur.latency.map(([le, c], i) => {
    const p = prev.latency[i] && prev.latency[i][0] === le ? prev.latency[i][1] : 0;
    return [le, Math.max(0, c - p)];
  });
  return {
    rps: d(prev.requests, cur.requests),
    err5xx: d(prev.errors5xx, cur.errors5xx),
    err4xx: d(prev.errors4xx, cur.errors4xx),
    inBps: d(prev.bytesIn, cur.bytesIn),
    outBps: d(prev.bytesOut, cur.bytesOut),
    p50: quantile(0.5, hist),
    p90: quantile(0.9, hist),
    p99: quantile(0.99, hist),
  };
}
