package metrics

import (
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/jogstore/jog/internal/s3api"
)

// LatencyBuckets are the bounds, in seconds, of the request latency
// histogram (classic buckets, ADR 0019): from a cached small GET to a
// multi-GiB transfer.
var LatencyBuckets = []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
	0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60}

// commonStatus are the HTTP statuses the S3 edge sends, each given a
// counter cell per operation; any other status is counted under a lock
// (statusSlow).
var commonStatus = [...]int{200, 201, 204, 206, 301, 303, 304, 307, 400, 403, 404, 405, 409, 411, 412, 413, 416, 500, 501, 503, 507}

// statusSlot maps a status to its place in commonStatus plus one; 0 for
// the others.
var statusSlot = func() (t [600]uint8) {
	for i, s := range commonStatus {
		t[s] = uint8(i + 1)
	}
	return t
}()

// opCells are one operation's counters.
type opCells struct {
	status   [len(commonStatus) + 1]atomic.Uint64 // by statusSlot; [0] unused
	in, out  atomic.Uint64                        // body bytes received and sent
	duration atomic.Pointer[prometheus.Observer]  // the histogram's child, made at first use
}

// Requests counts the S3 requests the edge answers: it is the
// s3api.Observer that metrics plug in (Config.Observer), and a
// prometheus.Collector of the counters it keeps.
type Requests struct {
	ops      []opCells // indexed by s3api.Op
	names    []string  // the ops' names
	latency  *prometheus.HistogramVec
	inFlight atomic.Int64

	mu         sync.RWMutex
	errors     map[string]*atomic.Uint64 // by S3 error code
	statusSlow map[[2]int]*atomic.Uint64 // by (op, status), statuses outside commonStatus

	descRequests, descIn, descOut, descErrors, descRefused, descInFlight *prometheus.Desc
}

var _ s3api.Observer = (*Requests)(nil)

// NewRequests returns an empty Requests for every operation s3api routes.
func NewRequests() *Requests {
	n := int(s3api.OpPreflight) + 1
	for _, op := range s3api.Routed() {
		n = max(n, int(op)+1)
	}
	r := &Requests{
		ops: make([]opCells, n), names: make([]string, n),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "jog_s3_request_duration_seconds",
			Help:    "Time from a request's arrival to its handler's return, by S3 operation.",
			Buckets: LatencyBuckets,
		}, []string{"op"}),
		errors:     map[string]*atomic.Uint64{},
		statusSlow: map[[2]int]*atomic.Uint64{},
		descRequests: prometheus.NewDesc("jog_s3_requests_total",
			"S3 requests answered, by operation and HTTP status.", []string{"op", "status"}, nil),
		descIn: prometheus.NewDesc("jog_s3_received_bytes_total",
			"Request body bytes read from clients, by S3 operation.", []string{"op"}, nil),
		descOut: prometheus.NewDesc("jog_s3_sent_bytes_total",
			"Response body bytes written to clients, by S3 operation.", []string{"op"}, nil),
		descErrors: prometheus.NewDesc("jog_s3_errors_total",
			"S3 error responses, by S3 error code.", []string{"code"}, nil),
		descRefused: prometheus.NewDesc("jog_s3_refused_total",
			"Requests refused for lack of capacity (503 SlowDown) before being served.", nil, nil),
		descInFlight: prometheus.NewDesc("jog_s3_requests_in_flight",
			"Requests on the S3 port being served now (S3, IAM and STS).", nil, nil),
	}
	for i := range r.names {
		r.names[i] = s3api.Op(i).String()
	}
	return r
}

// Observe implements s3api.Observer: a few atomic adds and one histogram
// observation; no allocation once the operation has been seen.
func (r *Requests) Observe(rec *s3api.Record) {
	op := int(rec.Op)
	if op < 0 || op >= len(r.ops) {
		op = int(s3api.OpUnknown)
	}
	c := &r.ops[op]
	if s := rec.Status; s >= 0 && s < len(statusSlot) && statusSlot[s] != 0 {
		c.status[statusSlot[s]].Add(1)
	} else {
		counterOf(&r.mu, r.statusSlow, [2]int{op, s}).Add(1)
	}
	if rec.BytesIn > 0 {
		c.in.Add(uint64(rec.BytesIn))
	}
	if rec.BytesOut > 0 {
		c.out.Add(uint64(rec.BytesOut))
	}
	if rec.Code != "" {
		counterOf(&r.mu, r.errors, rec.Code).Add(1)
	}
	h := c.duration.Load()
	if h == nil {
		o := r.latency.WithLabelValues(r.names[op])
		h = &o
		c.duration.Store(h) // a racing first use stores the same child
	}
	(*h).Observe(rec.Duration.Seconds())
}

// counterOf is the counter of key in m, made at its first use: for S3
// error codes (the edge's own constants, a bounded set) and the rare
// statuses outside commonStatus.
func counterOf[K comparable](mu *sync.RWMutex, m map[K]*atomic.Uint64, key K) *atomic.Uint64 {
	mu.RLock()
	c := m[key]
	mu.RUnlock()
	if c != nil {
		return c
	}
	mu.Lock()
	defer mu.Unlock()
	if c = m[key]; c == nil {
		c = new(atomic.Uint64)
		m[key] = c
	}
	return c
}

// Begin counts a request in flight on the S3 port until end is called:
// the server's wrapper around every handler of the port calls it (the
// Observer sees requests only once they are answered).
func (r *Requests) Begin() { r.inFlight.Add(1) }

// End ends what Begin began.
func (r *Requests) End() { r.inFlight.Add(-1) }

// Describe implements prometheus.Collector.
func (r *Requests) Describe(ch chan<- *prometheus.Desc) {
	describe(ch, r.descRequests, r.descIn, r.descOut, r.descErrors, r.descRefused, r.descInFlight)
	r.latency.Describe(ch)
}

// Collect implements prometheus.Collector: the operations and statuses
// seen so far, not a zero for every pair.
func (r *Requests) Collect(ch chan<- prometheus.Metric) {
	for op := range r.ops {
		c := &r.ops[op]
		for slot := 1; slot < len(c.status); slot++ {
			if n := c.status[slot].Load(); n > 0 {
				ch <- prometheus.MustNewConstMetric(r.descRequests, prometheus.CounterValue, float64(n),
					r.names[op], strconv.Itoa(commonStatus[slot-1]))
			}
		}
		if n := c.in.Load(); n > 0 {
			ch <- prometheus.MustNewConstMetric(r.descIn, prometheus.CounterValue, float64(n), r.names[op])
		}
		if n := c.out.Load(); n > 0 {
			ch <- prometheus.MustNewConstMetric(r.descOut, prometheus.CounterValue, float64(n), r.names[op])
		}
	}
	var refused uint64
	r.mu.RLock()
	for k, c := range r.statusSlow {
		ch <- prometheus.MustNewConstMetric(r.descRequests, prometheus.CounterValue, float64(c.Load()),
			r.names[k[0]], strconv.Itoa(k[1]))
	}
	for code, c := range r.errors {
		ch <- prometheus.MustNewConstMetric(r.descErrors, prometheus.CounterValue, float64(c.Load()), code)
		if code == slowDown {
			refused = c.Load()
		}
	}
	r.mu.RUnlock()
	ch <- prometheus.MustNewConstMetric(r.descRefused, prometheus.CounterValue, float64(refused))
	ch <- prometheus.MustNewConstMetric(r.descInFlight, prometheus.GaugeValue, float64(r.inFlight.Load()))
	r.latency.Collect(ch)
}

// slowDown is the S3 code of s3api.ErrSlowDown: the only refusal for lack
// of capacity.
const slowDown = "SlowDown"
