package metrics

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/jogstore/jog/internal/s3api"
)

// gather collects r into metric families by name.
func gather(t testing.TB, c prometheus.Collector) map[string]*dto.MetricFamily {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		out[f.GetName()] = f
	}
	return out
}

// labelsOf is a metric's labels as a map.
func labelsOf(m *dto.Metric) map[string]string {
	l := map[string]string{}
	for _, p := range m.Label {
		l[p.GetName()] = p.GetValue()
	}
	return l
}

// valueOf is the value of the first metric of fams[name] whose labels
// include labels (a histogram's sample count), or -1 when there is none.
func valueOf(fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	for _, m := range fams[name].GetMetric() {
		l := labelsOf(m)
		match := true
		for k, v := range labels {
			match = match && l[k] == v
		}
		if match {
			if m.Counter != nil {
				return m.Counter.GetValue()
			}
			if m.Gauge != nil {
				return m.Gauge.GetValue()
			}
			return float64(m.Histogram.GetSampleCount())
		}
	}
	return -1
}

func TestRequestsObserve(t *testing.T) {
	r := NewRequests()
	recs := []s3api.Record{
		{Op: s3api.OpGetObject, Status: 200, BytesOut: 1024, Duration: time.Millisecond},
		{Op: s3api.OpGetObject, Status: 404, Code: "NoSuchKey", BytesOut: 300, Duration: time.Millisecond},
		{Op: s3api.OpPutObject, Status: 200, BytesIn: 4096, Duration: 3 * time.Millisecond},
		{Op: s3api.OpListObjectsV2, Status: 503, Code: "SlowDown"},
		{Op: s3api.OpPutObject, Status: 418}, // a status outside the common ones
		{Op: s3api.Op(10_000), Status: 200},  // an operation out of range counts as Unknown
	}
	for i := range recs {
		r.Observe(&recs[i])
	}
	r.Begin()
	fams := gather(t, r)
	want := map[[2]string]float64{
		{"GetObject", "200"}: 1, {"GetObject", "404"}: 1, {"PutObject", "200"}: 1,
		{"ListObjectsV2", "503"}: 1, {"PutObject", "418"}: 1, {"Unknown", "200"}: 1,
	}
	got := map[[2]string]float64{}
	for _, m := range fams["jog_s3_requests_total"].GetMetric() {
		l := labelsOf(m)
		got[[2]string{l["op"], l["status"]}] = m.GetCounter().GetValue()
	}
	if len(got) != len(want) {
		t.Errorf("requests: %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("requests %v = %v, want %v", k, got[k], v)
		}
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{"jog_s3_sent_bytes_total", map[string]string{"op": "GetObject"}, 1324},
		{"jog_s3_received_bytes_total", map[string]string{"op": "PutObject"}, 4096},
		{"jog_s3_errors_total", map[string]string{"code": "NoSuchKey"}, 1},
		{"jog_s3_errors_total", map[string]string{"code": "SlowDown"}, 1},
		{"jog_s3_refused_total", nil, 1},
		{"jog_s3_requests_in_flight", nil, 1},
		{"jog_s3_request_duration_seconds", map[string]string{"op": "GetObject"}, 2},
		{"jog_s3_request_duration_seconds", map[string]string{"op": "PutObject"}, 2},
	} {
		if v := valueOf(fams, c.name, c.labels); v != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
}

// TestObserveAllocs: once an operation has been seen, observing its
// requests allocates nothing.
func TestObserveAllocs(t *testing.T) {
	r := NewRequests()
	rec := &s3api.Record{Op: s3api.OpGetObject, Status: 200, BytesOut: 1024, Duration: time.Millisecond}
	r.Observe(rec)
	errRec := &s3api.Record{Op: s3api.OpGetObject, Status: 404, Code: "NoSuchKey", BytesOut: 300}
	r.Observe(errRec)
	if n := testing.AllocsPerRun(1000, func() { r.Observe(rec); r.Observe(errRec) }); n != 0 {
		t.Errorf("Observe allocates %v times per request, want 0", n)
	}
}

// BenchmarkObserve is the cost the Observer adds to each request: a GET
// answered 200 with a body, from parallel goroutines.
func BenchmarkObserve(b *testing.B) {
	r := NewRequests()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		rec := &s3api.Record{Op: s3api.OpGetObject, Status: 200, BytesOut: 1024, Duration: 300 * time.Microsecond}
		for pb.Next() {
			r.Observe(rec)
		}
	})
}

// Histogram kinds compared in ADR 0019.
var histogramKinds = []struct {
	name string
	opts prometheus.HistogramOpts
}{
	{"classic", prometheus.HistogramOpts{Buckets: LatencyBuckets}},
	{"native", prometheus.HistogramOpts{Buckets: []float64{}, NativeHistogramBucketFactor: 1.1,
		NativeHistogramMaxBucketNumber: 160, NativeHistogramMinResetDuration: time.Hour}},
	{"both", prometheus.HistogramOpts{Buckets: LatencyBuckets, NativeHistogramBucketFactor: 1.1,
		NativeHistogramMaxBucketNumber: 160, NativeHistogramMinResetDuration: time.Hour}},
}

// latencySample is a request latency spread like a server's: most
// requests fast, a tail over three decades.
func latencySample(rng *rand.Rand) float64 {
	return 0.0002 * (1 + rng.ExpFloat64()) * float64(int(1)<<rng.IntN(10))
}

// BenchmarkHistogramObserve: the cost of one observation per kind.
func BenchmarkHistogramObserve(b *testing.B) {
	for _, k := range histogramKinds {
		b.Run(k.name, func(b *testing.B) {
			opts := k.opts
			opts.Name = "h"
			h := prometheus.NewHistogramVec(opts, []string{"op"}).WithLabelValues("GetObject")
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				rng := rand.New(rand.NewPCG(1, 2))
				v := make([]float64, 1024)
				for i := range v {
					v[i] = latencySample(rng)
				}
				i := 0
				for pb.Next() {
					h.Observe(v[i&1023])
					i++
				}
			})
		})
	}
}

// BenchmarkHistogramScrape: the size of a scrape of 20 operations' latency
// histograms after 100,000 requests each, in the text format and in
// protobuf (which alone carries native buckets), and the time to gather
// and encode it.
func BenchmarkHistogramScrape(b *testing.B) {
	for _, k := range histogramKinds {
		for _, proto := range []bool{false, true} {
			if k.name != "classic" && !proto {
				continue // text has no native buckets
			}
			name := k.name + "/text"
			if proto {
				name = k.name + "/proto"
			}
			benchmarkScrape(b, name, k.opts, proto)
		}
	}
}

func benchmarkScrape(b *testing.B, name string, opts prometheus.HistogramOpts, proto bool) {
	b.Run(name, func(b *testing.B) {
		opts.Name = "jog_s3_request_duration_seconds"
		opts.Help = "latency"
		vec := prometheus.NewHistogramVec(opts, []string{"op"})
		rng := rand.New(rand.NewPCG(1, 2))
		for op := range 20 {
			h := vec.WithLabelValues(s3api.Op(op + 2).String())
			for range 100_000 {
				h.Observe(latencySample(rng))
			}
		}
		reg := prometheus.NewRegistry()
		reg.MustRegister(vec)
		format := expfmt.NewFormat(expfmt.TypeTextPlain)
		if proto {
			format = expfmt.NewFormat(expfmt.TypeProtoDelim)
		}
		var buf bytes.Buffer
		b.ReportAllocs()
		for b.Loop() {
			buf.Reset()
			fams, err := reg.Gather()
			if err != nil {
				b.Fatal(err)
			}
			enc := expfmt.NewEncoder(&buf, format)
			for _, f := range fams {
				if err := enc.Encode(f); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(buf.Len()), "scrape-bytes")
	})
}
