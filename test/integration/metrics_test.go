package integration

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

const metricsToken = "scrape-token-0123456789"

func withMetricsToken(c *config.Config)  { c.MetricsToken = metricsToken }
func withMetricsPublic(c *config.Config) { c.MetricsPublic = true }

// scrape is /metrics parsed by Prometheus's text parser.
type scrape map[string]*dto.MetricFamily

// getMetrics sends GET /metrics with the bearer token (none when "") and
// returns the response and its body.
func getMetrics(t *testing.T, srv *testutil.Server, token string) (*http.Response, []byte) {
	t.Helper()
	req := itest.RawRequest(t, srv, http.MethodGet, "/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return itest.Do(t, req)
}

func scrapeMetrics(t *testing.T, srv *testutil.Server, token string) scrape {
	t.Helper()
	resp, body := getMetrics(t, srv, token)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	return fams
}

// scrapeUntil scrapes until cond holds of the scrape (10 s at most).
func scrapeUntil(t *testing.T, srv *testutil.Server, cond func(scrape) bool) scrape {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s := scrapeMetrics(t, srv, metricsToken)
		if cond(s) || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// find returns the metric of family name whose labels include labels
// (name=value pairs); nil when there is none.
func (s scrape) find(name string, labels ...string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		for i := 0; i+1 < len(labels); i += 2 {
			found := false
			for _, l := range m.Label {
				if l.GetName() == labels[i] && l.GetValue() == labels[i+1] {
					found = true
				}
			}
			if !found {
				continue next
			}
		}
		return m
	}
	return nil
}

// value is a counter's or gauge's value, a histogram's sample count; 0
// when the series is absent (a counter not yet moved).
func (s scrape) value(name string, labels ...string) float64 {
	m := s.find(name, labels...)
	switch {
	case m == nil:
		return 0
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return 0
}

// sum adds up every series of a counter family.
func (s scrape) sum(name string) float64 {
	var n float64
	if f := s[name]; f != nil {
		for _, m := range f.Metric {
			n += m.GetCounter().GetValue()
		}
	}
	return n
}

// TestMetricsMove scrapes /metrics with the token, makes a PUT, a GET and
// a GET of a missing key, and checks that each counter moved by exactly
// what those requests did.
func TestMetricsMove(t *testing.T) {
	srv := testutil.StartServer(t, withMetricsToken)
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "bkt")
	before := scrapeMetrics(t, srv, metricsToken)

	data := itest.RandBytes(1, 20000) // above --inline-max: a blob
	put := itest.RawRequest(t, srv, http.MethodPut, "/bkt/obj", data)
	itest.Sign(t, put, data, itest.SignOpts{})
	if resp, body := itest.Do(t, put); resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT: %d %s", resp.StatusCode, body)
	}
	get := itest.RawRequest(t, srv, http.MethodGet, "/bkt/obj", nil)
	itest.Sign(t, get, nil, itest.SignOpts{})
	if resp, body := itest.Do(t, get); resp.StatusCode != http.StatusOK || !bytes.Equal(body, data) {
		t.Fatalf("GET: %d, %d bytes", resp.StatusCode, len(body))
	}
	miss := itest.RawRequest(t, srv, http.MethodGet, "/bkt/missing", nil)
	itest.Sign(t, miss, nil, itest.SignOpts{})
	resp, errBody := itest.Do(t, miss)
	itest.WantRawErr(t, resp, errBody, http.StatusNotFound, "NoSuchKey")

	// A GET's body goes out by sendfile before its handler returns, so
	// the client may have it before the request is observed: wait for the
	// last request's observation (its latency, the Observer's last step).
	after := scrapeUntil(t, srv, func(s scrape) bool {
		return s.value("jog_s3_request_duration_seconds", "op", "GetObject")-
			before.value("jog_s3_request_duration_seconds", "op", "GetObject") >= 2
	})
	moved := func(name string, want float64, labels ...string) {
		t.Helper()
		if d := after.value(name, labels...) - before.value(name, labels...); d != want {
			t.Errorf("%s%v moved by %v, want %v", name, labels, d, want)
		}
	}
	moved("jog_s3_requests_total", 1, "op", "PutObject", "status", "200")
	moved("jog_s3_requests_total", 1, "op", "GetObject", "status", "200")
	moved("jog_s3_requests_total", 1, "op", "GetObject", "status", "404")
	moved("jog_s3_request_duration_seconds", 1, "op", "PutObject")
	moved("jog_s3_request_duration_seconds", 2, "op", "GetObject")
	moved("jog_s3_received_bytes_total", float64(len(data)), "op", "PutObject")
	moved("jog_s3_sent_bytes_total", float64(len(data)+len(errBody)), "op", "GetObject")
	moved("jog_s3_errors_total", 1, "code", "NoSuchKey")
	moved("jog_s3_refused_total", 0)
	if d := after.sum("jog_blob_writes_total") - before.sum("jog_blob_writes_total"); d != 1 {
		t.Errorf("jog_blob_writes_total moved by %v, want 1 (the PUT's blob)", d)
	}
	moved("jog_blob_written_bytes_total", float64(len(data)))
	if after.value("jog_meta_commit_batch_size") <= before.value("jog_meta_commit_batch_size") {
		t.Error("jog_meta_commit_batch_size: no group commit counted for the PUT")
	}
	for _, name := range []string{"jog_disk_free_bytes", "jog_disk_reserve_bytes", "jog_meta_sqlite_wal_bytes",
		"go_goroutines", "process_resident_memory_bytes", "jog_recovery_temp_files_removed", "jog_bucket_used_bytes"} {
		if after[name] == nil {
			t.Errorf("%s missing", name)
		}
	}
	if u := after.value("jog_bucket_used_bytes", "bucket", "bkt"); u != float64(len(data)) {
		t.Errorf(`jog_bucket_used_bytes{bucket="bkt"} = %v, want %d`, u, len(data))
	}
	if n := after.value("jog_bucket_objects", "bucket", "bkt"); n != 1 {
		t.Errorf(`jog_bucket_objects{bucket="bkt"} = %v, want 1`, n)
	}
	// No key or request ID in any label.
	for name, f := range after {
		for _, m := range f.Metric {
			for _, l := range m.Label {
				if l.GetValue() == "obj" || l.GetValue() == "missing" {
					t.Errorf("%s has label %s=%q: keys must not be labels", name, l.GetName(), l.GetValue())
				}
			}
		}
	}
}

// TestMetricsAuth checks who may scrape the S3 port: the bearer token, or
// anyone with --metrics-public; and that a bucket named "metrics" still
// answers signed S3 requests either way.
func TestMetricsAuth(t *testing.T) {
	srv := testutil.StartServer(t, withMetricsToken)
	if resp, body := getMetrics(t, srv, ""); resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "jog_s3") {
		t.Errorf("unsigned scrape without the token: %d %.80s, want 403 and no metrics", resp.StatusCode, body)
	}
	if resp, body := getMetrics(t, srv, "wrong"); resp.StatusCode != http.StatusForbidden || strings.Contains(string(body), "jog_s3") {
		t.Errorf("scrape with a wrong token: %d %.80s, want 403", resp.StatusCode, body)
	}
	scrapeMetrics(t, srv, metricsToken)
	wantMetricsBucket(t, srv)

	open := testutil.StartServer(t, withMetricsPublic)
	if resp, body := getMetrics(t, open, ""); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "jog_s3_requests_in_flight") {
		t.Errorf("unsigned scrape with --metrics-public: %d %.80s, want the metrics", resp.StatusCode, body)
	}
	wantMetricsBucket(t, open)

	closed := testutil.StartServer(t)
	if resp, body := getMetrics(t, closed, "anything"); resp.StatusCode != http.StatusForbidden {
		t.Errorf("bearer scrape with no token configured: %d %.80s, want 403", resp.StatusCode, body)
	}
}

// wantMetricsBucket creates a bucket named "metrics" and checks that
// signed PUT, GET and ListObjects (GET /metrics) reach S3.
func wantMetricsBucket(t *testing.T, srv *testutil.Server) {
	t.Helper()
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "metrics")
	itest.Put(t, c, "metrics", "k", []byte("v"))
	itest.WantObject(t, c, "metrics", "k", []byte("v"))
	out, err := c.ListObjectsV2(context.Background(), &s3.ListObjectsV2Input{Bucket: aws.String("metrics")})
	if err != nil || len(out.Contents) != 1 {
		t.Fatalf("ListObjectsV2 of bucket metrics: %v, %d keys", err, len(out.Contents))
	}
	list := itest.RawRequest(t, srv, http.MethodGet, "/metrics", nil)
	itest.Sign(t, list, nil, itest.SignOpts{})
	resp, body := itest.Do(t, list)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "<ListBucketResult") {
		t.Fatalf("signed GET /metrics: %d %.120s, want the bucket's listing", resp.StatusCode, body)
	}
}

// TestMetricsInFlightRefused holds a request in flight at --max-requests 1
// and checks the in-flight gauge, then that the next request's 503
// SlowDown is counted as refused.
func TestMetricsInFlightRefused(t *testing.T) {
	// Files only: the held upload shows as a file in tmp/.
	srv := testutil.StartServer(t, withMetricsToken, testutil.WithMaxRequests(1), testutil.WithFilesOnly())
	c := srv.AWSClient(t)
	itest.CreateBucket(t, c, "bkt")
	before := scrapeMetrics(t, srv, metricsToken)

	g := &gatedBody{started: make(chan struct{}), release: make(chan struct{})}
	held := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(signedPut(t, srv, "/bkt/held", g, 1))
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				err = fmt.Errorf("held PUT: %d", resp.StatusCode)
			}
		}
		held <- err
	}()
	released := false
	release := func() {
		if !released {
			released = true
			close(g.release)
			if err := <-held; err != nil {
				t.Error(err)
			}
		}
	}
	defer release() // also on failure: the server drains before it stops
	// The held request holds the slot once it has created its temp blob
	// and waits for the rest of its body (a scrape takes no slot).
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if entries, _ := os.ReadDir(filepath.Join(srv.DataDir, "tmp")); len(entries) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the held request never reached the server's blob writer")
		}
	}
	during := scrapeMetrics(t, srv, metricsToken)
	if v := during.value("jog_s3_requests_in_flight"); v != 1 {
		t.Errorf("jog_s3_requests_in_flight = %v while one request is held, want 1", v)
	}
	req := itest.RawRequest(t, srv, http.MethodGet, "/bkt/held", nil)
	itest.Sign(t, req, nil, itest.SignOpts{})
	resp, body := itest.Do(t, req)
	itest.WantRawErr(t, resp, body, http.StatusServiceUnavailable, "SlowDown")
	release()
	after := scrapeMetrics(t, srv, metricsToken)
	for _, m := range []struct {
		name   string
		labels []string
	}{{"jog_s3_refused_total", nil}, {"jog_s3_errors_total", []string{"code", "SlowDown"}},
		{"jog_s3_requests_total", []string{"op", "GetObject", "status", "503"}},
		{"jog_s3_requests_total", []string{"op", "PutObject", "status", "200"}}} {
		if d := after.value(m.name, m.labels...) - before.value(m.name, m.labels...); d != 1 {
			t.Errorf("%s%v moved by %v, want 1", m.name, m.labels, d)
		}
	}
	if v := after.value("jog_s3_requests_in_flight"); v != 0 {
		t.Errorf("jog_s3_requests_in_flight = %v once idle, want 0", v)
	}
}

// TestMetricsReservation: bytes a GET presenting a reservation moves are
// counted as that reservation's, its wait is exported, and the lifecycle worker's first pass
// and the start-up orphan sweep show.
func TestMetricsReservation(t *testing.T) {
	srv, c := startQoSWith(t, func(cfg *config.Config) {
		testutil.WithQoSCapacity(qosRead, qosWrite)(cfg)
		cfg.MetricsToken = metricsToken
	})
	data := c.putRandom(t, "/qos/obj", 256<<10)
	id := qosReserve(t, srv, "qos", qosRead/4, 0, time.Hour)
	before := scrapeMetrics(t, srv, metricsToken)
	if err := c.do(t.Context(), "GET", "/qos/obj", nil, itest.SHA256Hex(nil), id, nil, nil); err != nil {
		t.Fatal(err)
	}
	after := scrapeUntil(t, srv, func(s scrape) bool {
		return s.value("jog_s3_request_duration_seconds", "op", "GetObject") >
			before.value("jog_s3_request_duration_seconds", "op", "GetObject")
	})
	labels := []string{"direction", "read", "reservation", id}
	if d := after.value("jog_qos_reservation_granted_bytes_total", labels...) -
		before.value("jog_qos_reservation_granted_bytes_total", labels...); d != float64(len(data)) {
		t.Errorf("jog_qos_reservation_granted_bytes_total%v moved by %v, want %d", labels, d, len(data))
	}
	if after.find("jog_qos_reservation_wait_seconds_total", labels...) == nil {
		t.Errorf("no jog_qos_reservation_wait_seconds_total%v beside the granted bytes", labels)
	}
	<-srv.Swept
	s := scrapeUntil(t, srv, func(s scrape) bool { return s.value("jog_lifecycle_passes_total") >= 1 })
	if v := s.value("jog_lifecycle_passes_total"); v < 1 {
		t.Errorf("jog_lifecycle_passes_total = %v, want the first pass counted", v)
	}
	if v := s.value("jog_orphan_sweeps_total", "result", "done"); v != 1 {
		t.Errorf(`jog_orphan_sweeps_total{result="done"} = %v, want 1`, v)
	}
}
