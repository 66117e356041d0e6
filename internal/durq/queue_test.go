package durq

import (
	"bytes"
	"context"
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
)

const (
	arnA = "arn:jog:sqs:us-east-1:a:webhook"
	arnB = "arn:jog:sqs:us-east-1:b:nats"
)

// recorder is a Sender that keeps the keys of the records it took (see
// rec), and refuses them while failing is set.
type recorder struct {
	mu      sync.Mutex
	keys    []string
	failing bool
	fails   int
	changed chan struct{}
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) Send(_ context.Context, record []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failing {
		r.fails++
		return errors.New("target down")
	}
	key, _, _ := strings.Cut(string(record), " ")
	r.keys = append(r.keys, key)
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
			t.Fatalf("got %d records, want %d: %v", len(keys), n, keys)
		}
	}
}

// rec is a record of key for target: the key, a space and padding to
// about the size of an event notification's line (~150 bytes).
func rec(target, key string) Record {
	return Record{Target: target, Data: []byte(key + " " + strings.Repeat("x", 110))}
}

func keys(prefix string, from, to int) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("%s%04d", prefix, i))
	}
	return out
}

func open(t *testing.T, root, gateway string, opts Options) *Queue {
	t.Helper()
	if opts.Log == nil && testing.Verbose() {
		opts.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if opts.MinBackoff == 0 {
		opts.MinBackoff, opts.MaxBackoff = time.Millisecond, 10*time.Millisecond
	}
	q, err := Open(root, gateway, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func enqueue(t *testing.T, q *Queue, arn string, ks []string) {
	t.Helper()
	for _, k := range ks {
		if err := q.Enqueue(context.Background(), []Record{rec(arn, k)}); err != nil {
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
		ds := []Record{rec(arnA, fmt.Sprintf("a%04d", i)), rec(arnB, fmt.Sprintf("b%04d", i))}
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
	if err := q.Enqueue(context.Background(), []Record{rec("arn:jog:sqs:us-east-1:nope:webhook", "x")}); err == nil {
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
	wg.Go(func() { errs <- q.Enqueue(context.Background(), []Record{rec(arnA, "first")}) })
	waitFor(t, func() bool { q.mu.Lock(); defer q.mu.Unlock(); return q.syncing })
	for i := range n - 1 {
		wg.Go(func() { errs <- q.Enqueue(context.Background(), []Record{rec(arnA, fmt.Sprint(i))}) })
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

// TestFull: past MaxBytes Enqueue fails (and counts it) with ErrFull,
// naming the queue and the flag of its limit, instead of growing the
// queue; once delivered, there is room again.
func TestFull(t *testing.T) {
	a := newRecorder()
	a.setFailing(true)
	q := open(t, t.TempDir(), "g1", Options{Name: "test queue", LimitFlag: "--test-queue-max",
		MaxBytes: 4096, SegmentBytes: 1024, Targets: map[string]Sender{arnA: a}})
	q.Start()
	var stored int
	var err error
	for stored = 0; stored < 1000; stored++ {
		if err = q.Enqueue(context.Background(), []Record{rec(arnA, fmt.Sprintf("k%04d", stored))}); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrFull) || !strings.HasPrefix(err.Error(), "test queue full:") || !strings.Contains(err.Error(), "--test-queue-max 4096") {
		t.Fatalf("after %d records: %v, want ErrFull naming the queue and its limit's flag", stored, err)
	}
	if st := q.Stats(); st.EnqueueErrors != 1 || st.Bytes > 4096 {
		t.Errorf("stats %+v", st)
	}
	a.setFailing(false)
	if got := a.wait(t, stored); !slices.Equal(got, keys("k", 0, stored)) {
		t.Errorf("got %v", got)
	}
	waitFor(t, func() bool {
		return q.Enqueue(context.Background(), []Record{rec(arnA, "again")}) == nil
	})
}

// TestRestartResumes: a clean Close loses nothing and sends nothing more;
// the next start (a new gateway ID, as each start is) adopts the queue
// and sends what was not sent, in order, once.
func TestRestartResumes(t *testing.T) {
	root := t.TempDir()
	a := newRecorder()
	q1 := open(t, root, "g1", Options{Targets: map[string]Sender{arnA: a}})
	q1.Start()
	enqueue(t, q1, arnA, keys("k", 0, 10))
	a.wait(t, 10)
	a.setFailing(true)
	enqueue(t, q1, arnA, keys("k", 10, 20))
	if err := q1.Close(); err != nil {
		t.Fatal(err)
	}
	if err := q1.Enqueue(context.Background(), []Record{rec(arnA, "late")}); !errors.Is(err, ErrClosed) {
		t.Errorf("Enqueue after Close: %v", err)
	}
	b := newRecorder()
	q2 := open(t, root, "g2", Options{Targets: map[string]Sender{arnA: b}})
	if err := q2.Adopt(); err != nil {
		t.Fatal(err)
	}
	q2.Start()
	enqueue(t, q2, arnA, keys("k", 20, 25))
	if got := b.wait(t, 15); !slices.Equal(got, keys("k", 10, 25)) {
		t.Errorf("after the restart got %v, want k0010…k0024", got)
	}
	if _, err := os.Stat(filepath.Join(root, "g1")); !os.IsNotExist(err) {
		t.Errorf("the ended gateway's queue is still there: %v", err)
	}
}

// TestAdoptDeadGateway: a gateway killed (its lock dropped, nothing
// closed) leaves its queue, torn last line included; a live gateway's
// queue is left alone until it ends, then adopted by the running one.
func TestAdoptDeadGateway(t *testing.T) {
	root := t.TempDir()
	a := newRecorder()
	a.setFailing(true)
	dead := open(t, root, "dead", Options{Targets: map[string]Sender{arnA: a}})
	live := open(t, root, "live", Options{Targets: map[string]Sender{arnA: a}})
	enqueue(t, dead, arnA, keys("d", 0, 5))
	enqueue(t, live, arnA, keys("l", 0, 3))
	_, _ = dead.f.Write([]byte(arnA + "\t{\"torn")) // a write a crash cut
	_ = dead.unlock()                               // kill -9: the kernel drops the lock

	b := newRecorder()
	q := open(t, root, "new", Options{AdoptEvery: 10 * time.Millisecond, Targets: map[string]Sender{arnA: b}})
	q.Start()
	if got := b.wait(t, 5); !slices.Equal(got, keys("d", 0, 5)) {
		t.Fatalf("adopted %v, want the dead gateway's d0000…d0004", got)
	}
	if _, err := os.Stat(filepath.Join(root, "live")); err != nil {
		t.Fatalf("a live gateway's queue was touched: %v", err)
	}
	if err := live.Close(); err != nil {
		t.Fatal(err)
	}
	if got := b.wait(t, 8); !slices.Equal(got[5:], keys("l", 0, 3)) {
		t.Errorf("after the live gateway ended got %v", got)
	}
}

// TestRecordExact: a target is sent each record byte for byte as it was
// enqueued (a tab, quotes, braces and all), with nothing around it.
func TestRecordExact(t *testing.T) {
	var mu sync.Mutex
	var got [][]byte
	sent := make(chan struct{}, 2)
	s := senderFunc(func(_ context.Context, record []byte) error {
		mu.Lock()
		got = append(got, slices.Clone(record))
		mu.Unlock()
		sent <- struct{}{}
		return nil
	})
	q := open(t, t.TempDir(), "g1", Options{Targets: map[string]Sender{arnA: s}})
	q.Start()
	want := [][]byte{[]byte("{\"Records\":[]}\tand a tab \x00\xff"), {}}
	if err := q.Enqueue(context.Background(), []Record{{arnA, want[0]}, {arnA, want[1]}}); err != nil {
		t.Fatal(err)
	}
	for range want {
		select {
		case <-sent:
		case <-time.After(10 * time.Second):
			t.Fatal("no record sent")
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("sent %q, want %q", got, want)
	}
}

type senderFunc func(ctx context.Context, record []byte) error

func (f senderFunc) Send(ctx context.Context, record []byte) error { return f(ctx, record) }

// TestEnqueueRefusesLines: a newline in a record, or a tab or a newline
// in a target, would break the segment's lines: Enqueue refuses the
// whole batch and stores nothing.
func TestEnqueueRefusesLines(t *testing.T) {
	const tabbed, broken = "a\ttarget", "a\ntarget"
	q := open(t, t.TempDir(), "g1", Options{Name: "test queue",
		Targets: map[string]Sender{arnA: newRecorder(), tabbed: newRecorder(), broken: newRecorder()}})
	for _, rs := range [][]Record{
		{rec(arnA, "ok"), {arnA, []byte("two\nlines")}},
		{rec(arnA, "ok"), rec(tabbed, "k")},
		{rec(broken, "k")},
	} {
		err := q.Enqueue(context.Background(), rs)
		if err == nil || !strings.HasPrefix(err.Error(), "test queue: ") {
			t.Errorf("Enqueue(%q): %v, want a refusal naming the queue", rs, err)
		}
	}
	if st := q.Stats(); st.Targets[arnA].Queued != 0 || lines(t, q) != 0 {
		t.Errorf("refused records were stored: %+v, %d lines", st, lines(t, q))
	}
}

// TestOpenDoesNotAdopt: an ended gateway's queue stays where it is until
// Adopt is called (replication enqueues a scan of its own first), then
// its records follow the new queue's own.
func TestOpenDoesNotAdopt(t *testing.T) {
	root := t.TempDir()
	old := open(t, root, "old", Options{Targets: map[string]Sender{arnA: newRecorder()}})
	enqueue(t, old, arnA, keys("old", 0, 3))
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	a := newRecorder()
	q := open(t, root, "new", Options{Targets: map[string]Sender{arnA: a}})
	if _, err := os.Stat(filepath.Join(root, "old")); err != nil {
		t.Fatalf("Open adopted the ended gateway's queue: %v", err)
	}
	enqueue(t, q, arnA, keys("new", 0, 2))
	if err := q.Adopt(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "old")); !os.IsNotExist(err) {
		t.Errorf("Adopt left the ended gateway's queue: %v", err)
	}
	q.Start()
	want := append(keys("new", 0, 2), keys("old", 0, 3)...)
	if got := a.wait(t, 5); !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

// TestQuiet: a target going down and recovering is logged, once each,
// named by the queue's Name; not at all when Quiet.
func TestQuiet(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		var log syncBuffer
		a := newRecorder()
		a.setFailing(true)
		q := open(t, t.TempDir(), "g1", Options{Name: "test queue", Quiet: quiet,
			Log: slog.New(slog.NewTextHandler(&log, nil)), Targets: map[string]Sender{arnA: a}})
		q.Start()
		enqueue(t, q, arnA, keys("k", 0, 1))
		waitFor(t, func() bool { return q.Stats().Targets[arnA].Failures >= 3 })
		a.setFailing(false)
		a.wait(t, 1)
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		got := log.String()
		failing := strings.Count(got, `msg="test queue: target failing`)
		recovered := strings.Count(got, `msg="test queue: target recovered"`)
		if quiet && failing+recovered != 0 || !quiet && (failing != 1 || recovered != 1) {
			t.Errorf("Quiet %v: logged\n%s", quiet, got)
		}
	}
}

// syncBuffer is a bytes.Buffer safe for the workers' concurrent writes
// (not testutil.SyncBuffer: testutil imports config, which imports durq).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
