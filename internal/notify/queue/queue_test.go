package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/notify"
)

const (
	arnA = "arn:jog:sqs:us-east-1:a:webhook"
	arnB = "arn:jog:sqs:us-east-1:b:nats"
)

// recorder is a Sender that keeps the keys of the events it took, and
// refuses them while failing is set.
type recorder struct {
	mu      sync.Mutex
	keys    []string
	failing bool
	fails   int
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) Send(_ context.Context, body []byte) error {
	var m notify.Message
	if err := json.Unmarshal(body, &m); err != nil || len(m.Records) != 1 {
		return fmt.Errorf("bad message %s: %v", body, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing {
		r.fails++
		return errors.New("target down")
	}
	r.keys = append(r.keys, m.Records[0].S3.Object.Key)
	select {
	case r.changed <- struct{}{}:
	default:
	}
	return nil
}

func (r *recorder) setFailing(f bool) {
	r.mu.Lock()
	r.failing = f
	r.mu.Unlock()
}

// wait returns the keys once there are n of them (the test's deadline
// stops it otherwise).
func (r *recorder) wait(t *testing.T, n int) []string {
	t.Helper()
	for {
		r.mu.Lock()
		keys := slices.Clone(r.keys)
		r.mu.Unlock()
		if len(keys) >= n {
			return keys
		}
		select {
		case <-r.changed:
		case <-time.After(10 * time.Second):
			t.Fatalf("got %d events, want %d: %v", len(keys), n, keys)
		}
	}
}

func delivery(arn, key string) notify.Delivery {
	return notify.Delivery{Target: arn, Event: notify.Event{EventName: "ObjectCreated:Put",
		S3: notify.Entity{Object: notify.Object{Key: key}}}}
}

func keys(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%04d", prefix, i))
	}
	return out
}

func open(t *testing.T, dataDir, gateway string, opts Options) *Queue {
	t.Helper()
	if opts.Log == nil && testing.Verbose() {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = time.Millisecond, 10*time.Millisecond
	}
	q, err := Open(dataDir, gateway, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func enqueue(t *testing.T, q *Queue, arn string, ks []string) {
	t.Helper()
	for _, k := range ks {
		if err := q.Enqueue(context.Background(), []notify.Delivery{delivery(arn, k)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOrderPerTarget: each target gets its own deliveries, in order, and
// a failing target gets them all once it takes them again.
func TestOrderPerTarget(t *testing.T) {
	a, b := newRecorder(), newRecorder()
	b.setFailing(true)
	q := open(t, t.TempDir(), "g1", Options{Targets: map[string]Sender{arnA: a, arnB: b}})
	q.Start()
	for i := range 50 {
		ds := []notify.Delivery{delivery(arnA, fmt.Sprintf("a%04d", i)), delivery(arnB, fmt.Sprintf("b%04d", i))}
		if err := q.Enqueue(context.Background(), ds); err != nil {
			t.Fatal(err)
		}
	}
	if got := a.wait(t, 50); !slices.Equal(got, keys("a", 0, 50)) {
		t.Errorf("target a got %v", got)
	}
	b.setFailing(false)
	if got := b.wait(t, 50); !slices.Equal(got, keys("b", 0, 50)) {
		t.Errorf("target b got %v", got)
	}
	st := q.Stats()
	if st.Targets[arnA].Queued != 50 || st.Targets[arnA].Delivered != 50 || st.Targets[arnB].Failures == 0 {
		t.Errorf("stats %+v", st)
	}
	if err := q.Enqueue(context.Background(), []notify.Delivery{delivery("arn:jog:sqs:us-east-1:nope:webhook", "x")}); err == nil {
		t.Error("Enqueue for an unconfigured target succeeded")
	}
}

// TestGroupCommit: writers that arrive while a sync runs share the next
// one: two syncs for n concurrent Enqueues, where one each would be n.
func TestGroupCommit(t *testing.T) {
	const n = 20
	q := open(t, t.TempDir(), "g1", Options{Targets: map[string]Sender{arnA: newRecorder()}})
	release, first := make(chan struct{}), true
	q.beforeSync = func() { // runs in the syncing writer, q.mu not held
		if first {
			first = false
			<-release
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	wg.Go(func() { errs <- q.Enqueue(context.Background(), []notify.Delivery{delivery(arnA, "first")}) })
	waitFor(t, func() bool { q.mu.Lock(); defer q.mu.Unlock(); return q.syncing })
	for i := range n - 1 {
		wg.Go(func() { errs <- q.Enqueue(context.Background(), []notify.Delivery{delivery(arnA, fmt.Sprint(i))}) })
	}
	// All n have written (each write precedes its wait) before the first
	// sync ends.
	waitFor(t, func() bool { q.mu.Lock(); defer q.mu.Unlock(); return lines(t, q) == n })
	close(release)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	q.mu.Lock()
	syncs := q.syncs
	q.mu.Unlock()
	if syncs != 2 {
		t.Errorf("%d fsyncs for %d concurrent Enqueues, want 2 (the first's, then one for the rest)", syncs, n)
	}
}

// lines counts the lines of q's active segment.
func lines(t *testing.T, q *Queue) int {
	data, err := os.ReadFile(filepath.Join(q.dir, segName(q.active)))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(data), "\n")
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDeliveredSegmentsRemoved: once every target's cursor has passed a
// segment it goes, and the queue's bytes with it; a target with no
// deliveries of its own does not hold segments back.
func TestDeliveredSegmentsRemoved(t *testing.T) {
	a := newRecorder()
	q := open(t, t.TempDir(), "g1", Options{SegmentBytes: 1024,
		Targets: map[string]Sender{arnA: a, arnB: newRecorder()}})
	q.Start()
	enqueue(t, q, arnA, keys("k", 0, 100))
	a.wait(t, 100)
	waitFor(t, func() bool {
		segs, err := listSegments(q.dir)
		return err == nil && len(segs) == 1 && q.Stats().Bytes == segs[0].size
	})
	segs, _ := listSegments(q.dir)
	if segs[0].seq < 5 {
		t.Errorf("active segment %d: 100 deliveries of ~150 bytes should have filled several of 1 KiB", segs[0].seq)
	}
}

// TestFull: past MaxBytes Enqueue fails (and counts it) instead of
// growing the queue; once delivered, there is room again.
func TestFull(t *testing.T) {
	a := newRecorder()
	a.setFailing(true)
	q := open(t, t.TempDir(), "g1", Options{MaxBytes: 4096, SegmentBytes: 1024, Targets: map[string]Sender{arnA: a}})
	q.Start()
	var stored int
	var err error
	for stored = 0; stored < 1000; stored++ {
		if err = q.Enqueue(context.Background(), []notify.Delivery{delivery(arnA, fmt.Sprintf("k%04d", stored))}); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrFull) {
		t.Fatalf("after %d deliveries: %v, want ErrFull", stored, err)
	}
	if st := q.Stats(); st.EnqueueErrors != 1 || st.Bytes > 4096 {
		t.Errorf("stats %+v", st)
	}
	a.setFailing(false)
	if got := a.wait(t, stored); !slices.Equal(got, keys("k", 0, stored)) {
		t.Errorf("got %v", got)
	}
	waitFor(t, func() bool {
		return q.Enqueue(context.Background(), []notify.Delivery{delivery(arnA, "again")}) == nil
	})
}

// TestRestartResumes: a clean Close loses nothing and sends nothing more;
// the next start (a new gateway ID, as each start is) adopts the queue
// and sends what was not sent, in order, once.
func TestRestartResumes(t *testing.T) {
	dataDir := t.TempDir()
	a := newRecorder()
	q1 := open(t, dataDir, "g1", Options{Targets: map[string]Sender{arnA: a}})
	q1.Start()
	enqueue(t, q1, arnA, keys("k", 0, 10))
	a.wait(t, 10)
	a.setFailing(true)
	enqueue(t, q1, arnA, keys("k", 10, 20))
	if err := q1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := q1.Enqueue(context.Background(), []notify.Delivery{delivery(arnA, "late")}); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue after Close: %v", err)
	}
	b := newRecorder()
	q2 := open(t, dataDir, "g2", Options{Targets: map[string]Sender{arnA: b}})
	q2.Start()
	enqueue(t, q2, arnA, keys("k", 20, 25))
	if got := b.wait(t, 15); !slices.Equal(got, keys("k", 10, 25)) {
		t.Errorf("after the restart got %v, want k0010…k0024", got)
	}
	if _, err := os.Stat(filepath.Join(dataDir, Dir, "g1")); !os.IsNotExist(err) {
		t.Errorf("the ended gateway's queue is still there: %v", err)
	}
}

// TestAdoptDeadGateway: a gateway killed (its lock dropped, nothing
// closed) leaves its queue, torn last line included; a live gateway's
// queue is left alone until it ends, then adopted by the running one.
func TestAdoptDeadGateway(t *testing.T) {
	dataDir := t.TempDir()
	a := newRecorder()
	a.setFailing(true)
	dead := open(t, dataDir, "dead", Options{Targets: map[string]Sender{arnA: a}})
	live := open(t, dataDir, "live", Options{Targets: map[string]Sender{arnA: a}})
	enqueue(t, dead, arnA, keys("d", 0, 5))
	enqueue(t, live, arnA, keys("l", 0, 3))
	_, _ = dead.f.Write([]byte(arnA + "\t{\"torn")) // a write a crash cut
	_ = dead.unlock()                               // kill -9: the kernel drops the lock

	b := newRecorder()
	q := open(t, dataDir, "new", Options{AdoptEvery: 10 * time.Millisecond, Targets: map[string]Sender{arnA: b}})
	q.Start()
	if got := b.wait(t, 5); !slices.Equal(got, keys("d", 0, 5)) {
		t.Fatalf("adopted %v, want the dead gateway's d0000…d0004", got)
	}
	if _, err := os.Stat(filepath.Join(dataDir, Dir, "live")); err != nil {
		t.Fatalf("a live gateway's queue was touched: %v", err)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if got := b.wait(t, 8); !slices.Equal(got[5:], keys("l", 0, 3)) {
		t.Errorf("after the live gateway ended got %v", got)
	}
}
