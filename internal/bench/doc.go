// Package bench is JOG's built-in S3 load generator, behind `jog bench`. It
// measures any S3 endpoint, JOG or not.
//
// It owns:
//   - a lean S3 client on net/http (client.go): one shared transport with
//     idle connections ≥ concurrency, SigV4 with UNSIGNED-PAYLOAD, request
//     bodies read from one shared random buffer (no per-request payload
//     allocation), response bodies discarded into pooled buffers or verified;
//   - workloads, one file each (put, get, stat, delete, list, multipart,
//     mixed), each a Prepare / Run / Cleanup triple;
//   - the runner (runner.go): workers, duration or operation count, an
//     optional request schedule (ratelimit.go) that reports when requests
//     start to queue, live progress (progress.go);
//   - statistics (stats.go): log-bucketed latency histograms per worker and
//     operation, merged after the run;
//   - results (result.go, report.go): a JSON result file and a text report;
//     compare.go prints a markdown table over several result files;
//     sweep.go runs a grid of concurrency × object size;
//   - a discarding S3 endpoint (discard.go) to measure the client's own
//     ceiling (`jog bench selftest`).
//
// Charts (SVG, HTML) are rendered by the render subpackage.
package bench
