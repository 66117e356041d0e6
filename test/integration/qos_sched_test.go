package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// The scheduler's proof in short form (issue 23 item 6; bench/qos.sh is
// the full-scale experiment). Capacities are small — 40 MB/s of reads,
// 20 MB/s of writes — so that the server, not the 2-core test machine, is
// what limits, and the tests finish in seconds. Rates are asserted as
// generous ratios only: each reservation ≥ 90% of its rate (the bench
// script's bar is 95%; the scheduler's own virtual-time tests assert 95%
// exactly), so a noisy machine does not make them flaky.
const (
	qosRead, qosWrite = 40e6, 20e6
	qosPiece          = 256 << 10 // bytes per request of the share test
	qosStreams        = 3
)

// qosClient sends signed requests from many goroutines (errors returned,
// not fatal) over its own pooled connections.
type qosClient struct {
	srv  *testutil.Server
	http *http.Client
}

// startQoS starts a server with the tests' capacity and the buckets qos
// and more, and returns a client of it.
func startQoS(t *testing.T, more ...string) (*testutil.Server, *qosClient) {
	t.Helper()
	return startQoSWith(t, testutil.WithQoSCapacity(qosRead, qosWrite), more...)
}

// startQoSWith is startQoS with capacity instead of the tests' byte
// capacities.
func startQoSWith(t *testing.T, capacity testutil.Option, more ...string) (*testutil.Server, *qosClient) {
	t.Helper()
	srv := testutil.StartServer(t, testutil.WithoutFsync(), capacity)
	root := itest.AWSClient(t, srv)
	for _, b := range append([]string{"qos"}, more...) {
		itest.CreateBucket(t, root, b)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 64
	return srv, &qosClient{srv: srv, http: &http.Client{Transport: tr}}
}

// putRandom stores n random bytes at path and returns them.
func (c *qosClient) putRandom(t *testing.T, path string, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	rand.Read(b)
	if err := c.do(t.Context(), "PUT", path, b, itest.SHA256Hex(b), "", nil, nil); err != nil {
		t.Fatal(err)
	}
	return b
}

// do sends method path with body (hash its SHA-256 hex) presenting
// reservation (if set) and hdr, and hands the response body to read.
func (c *qosClient) do(ctx context.Context, method, path string, body []byte, hash, reservation string, hdr map[string]string, read func(io.Reader) error) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.srv.URL+path, rd)
	if err != nil {
		return err
	}
	req.ContentLength = int64(len(body))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	if reservation != "" {
		req.Header.Set("x-jog-reservation-id", reservation)
	}
	req.Header.Set("X-Amz-Content-Sha256", hash)
	creds := aws.Credentials{AccessKeyID: testutil.AccessKey, SecretAccessKey: testutil.SecretKey}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hash, "s3", testutil.Region, time.Now()); err != nil {
		return err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, b)
	}
	if read == nil {
		read = func(r io.Reader) error { _, err := io.Copy(io.Discard, r); return err }
	}
	return read(resp.Body)
}

// qosLoad is one client: streams goroutines repeating op until stopped,
// counting the bytes each completed op moved (or, with live, the bytes as
// they arrive).
type qosLoad struct {
	name, reservation string
	reserved          float64 // bytes/s, 0 for best effort
	moved             atomic.Int64
}

// runLoads runs loads for warm-up plus window and returns each load's
// rate over the window, in bytes/s; op is one request of a stream.
func runLoads(t *testing.T, loads []*qosLoad, warmup, window time.Duration, op func(ctx context.Context, l *qosLoad, stream int) error) []float64 {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	for _, l := range loads {
		for s := range qosStreams {
			wg.Go(func() {
				for ctx.Err() == nil {
					if err := op(ctx, l, s); err != nil && ctx.Err() == nil {
						failed.CompareAndSwap(nil, &err)
						return
					}
				}
			})
		}
	}
	time.Sleep(warmup)
	before := make([]int64, len(loads))
	for i, l := range loads {
		before[i] = l.moved.Load()
	}
	start := time.Now()
	time.Sleep(window)
	rates := make([]float64, len(loads))
	elapsed := time.Since(start).Seconds()
	for i, l := range loads {
		rates[i] = float64(l.moved.Load()-before[i]) / elapsed
	}
	cancel()
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatalf("a client failed: %v", *err)
	}
	return rates
}

// qosReserve creates a reservation of read and write bytes/s on bucket
// from now for d and returns its ID.
func qosReserve(t *testing.T, srv *testutil.Server, bucket string, read, write float64, d time.Duration) string {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Second)
	return createRsv(t, srv, bucket, rsvBody(int64(read), int64(write), now, now.Add(d), "")).ID
}

// TestQoSReservationsShares is the paper's experiment in short: five
// clients reserving 5:4:3:2:1 of 80% of the capacity, three streams each,
// and two best-effort clients saturating the server; each reservation gets
// at least 90% of its rate, for downloads and for uploads, and best
// effort gets something.
func TestQoSReservationsShares(t *testing.T) {
	srv, c := startQoS(t)
	piece := c.putRandom(t, "/qos/src", qosPiece)
	pieceHash := itest.SHA256Hex(piece)
	var loads []*qosLoad
	for k := 5; k >= 1; k-- {
		read, write := float64(k)*0.8*qosRead/15, float64(k)*0.8*qosWrite/15
		loads = append(loads, &qosLoad{name: fmt.Sprintf("r%d", 6-k), reserved: read,
			reservation: qosReserve(t, srv, "qos", read, write, time.Hour)})
	}
	loads = append(loads, &qosLoad{name: "be1"}, &qosLoad{name: "be2"})
	emptyHash := itest.SHA256Hex(nil)

	download := runLoads(t, loads, time.Second, 4*time.Second, func(ctx context.Context, l *qosLoad, _ int) error {
		err := c.do(ctx, "GET", "/qos/src", nil, emptyHash, l.reservation, nil, nil)
		if err == nil {
			l.moved.Add(qosPiece)
		}
		return err
	})
	checkShares(t, "download", loads, download, 1)
	upload := runLoads(t, loads, time.Second, 4*time.Second, func(ctx context.Context, l *qosLoad, s int) error {
		err := c.do(ctx, "PUT", fmt.Sprintf("/qos/%s-%d", l.name, s), piece, pieceHash, l.reservation, nil, nil)
		if err == nil {
			l.moved.Add(qosPiece)
		}
		return err
	})
	checkShares(t, "upload", loads, upload, qosWrite/qosRead)
}

// checkShares asserts each reserved load got ≥ 90% of its reservation
// (reserved × scale) and best effort more than nothing, and logs the table.
func checkShares(t *testing.T, what string, loads []*qosLoad, rates []float64, scale float64) {
	t.Helper()
	for i, l := range loads {
		reserved := l.reserved * scale
		t.Logf("%s %s: reserved %5.2f MB/s, achieved %5.2f MB/s", what, l.name, reserved/1e6, rates[i]/1e6)
		switch {
		case reserved > 0 && rates[i] < 0.9*reserved:
			t.Errorf("%s: %s achieved %.2f MB/s, under 90%% of its %.2f MB/s", what, l.name, rates[i]/1e6, reserved/1e6)
		case reserved == 0 && rates[i] <= 0:
			t.Errorf("%s: best-effort %s starved", what, l.name)
		}
	}
}

// TestQoSReservationsWorkConserving: a lone client is not held below the
// capacity, whether it presents a reservation (of a tenth of it) or is best
// effort while that reservation is idle.
func TestQoSReservationsWorkConserving(t *testing.T) {
	srv, c := startQoS(t)
	obj := c.putRandom(t, "/qos/src", 1<<20)
	id := qosReserve(t, srv, "qos", qosRead/10, qosWrite/10, time.Hour)
	emptyHash := itest.SHA256Hex(nil)
	for _, l := range []*qosLoad{{name: "reserved", reservation: id}, {name: "best effort"}} {
		rates := runLoads(t, []*qosLoad{l}, 500*time.Millisecond, 2*time.Second, func(ctx context.Context, l *qosLoad, _ int) error {
			err := c.do(ctx, "GET", "/qos/src", nil, emptyHash, l.reservation, nil, nil)
			if err == nil {
				l.moved.Add(int64(len(obj)))
			}
			return err
		})
		t.Logf("lone %s client: %.2f MB/s of %.0f MB/s", l.name, rates[0]/1e6, qosRead/1e6)
		if rates[0] < 0.8*qosRead {
			t.Errorf("a lone %s client got %.2f MB/s, under 80%% of the %.0f MB/s capacity", l.name, rates[0]/1e6, qosRead/1e6)
		}
	}
}

// countingReader counts the bytes read through it into n.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	return k, err
}

// TestQoSReservationsEnd: a reservation stops applying at its end, to
// the second, even to the requests in flight that presented it. Client a
// streams long GETs under a reservation of 3/4 of the capacity, client b
// (best effort, the same principal) short ones; while the reservation is
// active a moves several times faster than b, after its end (another
// reservation keeps the direction scheduled) they share evenly; a request
// presenting the ended reservation is refused.
func TestQoSReservationsEnd(t *testing.T) {
	srv, c := startQoS(t, "idle")
	c.putRandom(t, "/qos/big", 64<<20)
	qosReserve(t, srv, "idle", 1e6, 1e6, time.Hour)
	// The reservation ends 3 to 4 seconds from now, at a whole second.
	now := time.Now().UTC()
	start := now.Truncate(time.Second)
	end := start.Add(4 * time.Second)
	id := createRsv(t, srv, "qos", rsvBody(qosRead*3/4, 0, start, end, "")).ID

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var a, b atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Pointer[error]
	fail := func(err error) {
		if err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
			failed.CompareAndSwap(nil, &err)
		}
	}
	emptyHash := itest.SHA256Hex(nil)
	for range qosStreams {
		wg.Go(func() { // one GET of 64 MiB outlasts the test
			fail(c.do(ctx, "GET", "/qos/big", nil, emptyHash, id, nil, func(r io.Reader) error {
				_, err := io.Copy(io.Discard, countingReader{r, &a})
				return err
			}))
		})
		wg.Go(func() {
			for ctx.Err() == nil {
				fail(c.do(ctx, "GET", "/qos/big", nil, emptyHash, "", map[string]string{"Range": "bytes=0-1048575"}, func(r io.Reader) error {
					_, err := io.Copy(io.Discard, countingReader{r, &b})
					return err
				}))
			}
		})
	}
	measure := func(from, to time.Time) float64 {
		time.Sleep(time.Until(from))
		a0, b0 := a.Load(), b.Load()
		time.Sleep(time.Until(to))
		a1, b1 := a.Load(), b.Load()
		t.Logf("from %s to %s: a %.2f MB/s, b %.2f MB/s", from.Format("15:04:05.000"), to.Format("15:04:05.000"),
			float64(a1-a0)/to.Sub(from).Seconds()/1e6, float64(b1-b0)/to.Sub(from).Seconds()/1e6)
		return float64(a1-a0) / max(float64(b1-b0), 1)
	}
	during := measure(now.Add(time.Second), end.Add(-200*time.Millisecond))
	after := measure(end.Add(500*time.Millisecond), end.Add(2500*time.Millisecond))
	err := c.do(t.Context(), "GET", "/qos/big", nil, emptyHash, id, map[string]string{"Range": "bytes=0-0"}, nil)
	cancel()
	wg.Wait()
	if e := failed.Load(); e != nil {
		t.Fatalf("a client failed: %v", *e)
	}
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("ReservationNotActive")) {
		t.Errorf("a GET presenting the ended reservation: %v, want ReservationNotActive", err)
	}
	if during < 2 {
		t.Errorf("while reserved, a moved %.2f× b's bytes: want ≥ 2 (expected ≈ 5)", during)
	}
	if after > 1.6 {
		t.Errorf("after the reservation ended, a moved %.2f× b's bytes: want ≤ 1.6 (expected ≈ 1)", after)
	}
}
