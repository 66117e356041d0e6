package bucketlog

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/service"
)

const owner = "79a59df900b949e55d96a1e698fbacedfd6e09d98eacf8f8d5218e7cd47ef2be"

func getRecord() *s3api.Record {
	req := httptest.NewRequest("GET", "/src/photos/2019/a%20b.jpg?versionId=v1", nil)
	req.RemoteAddr = "192.0.2.3:40000"
	req.Host = "s3.example.com"
	req.Header.Set("User-Agent", `aws-sdk-go-v2/1.0 "quoted"`)
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIA/...")
	return &s3api.Record{
		ID: "3E57427F3EXAMPLE", Start: time.Date(2019, 2, 6, 0, 0, 38, 0, time.UTC), Request: req,
		Op: s3api.OpGetObject, Bucket: "src", Key: "photos/2019/a b.jpg", Principal: authz.Root,
		AccessKey: "AKIAROOT", Status: 200, BytesOut: 1024, Duration: 7 * time.Millisecond, FirstByte: 3 * time.Millisecond,
	}
}

// The golden records: S3's fields, in S3's order.
func TestAppendRecord(t *testing.T) {
	r := getRecord()
	want := owner + ` src [06/Feb/2019:00:00:38 +0000] 192.0.2.3 ` + s3api.CanonicalID("AKIAROOT") +
		` 3E57427F3EXAMPLE REST.GET.OBJECT photos/2019/a%20b.jpg "GET /src/photos/2019/a%20b.jpg?versionId=v1 HTTP/1.1" ` +
		`200 - 1024 1024 7 3 "-" "aws-sdk-go-v2/1.0 \"quoted\"" v1 ` + s3api.HostID("3E57427F3EXAMPLE") +
		` SigV4 - AuthHeader s3.example.com - - - -`
	if got := string(AppendRecord(nil, owner, Requester(r), r)); got != want {
		t.Errorf("record:\n got %s\nwant %s", got, want)
	}

	// An anonymous request refused, over TLS, presigned-free; a bucket
	// subresource; a user agent with a newline stays on one line.
	req := httptest.NewRequest("GET", "/src?logging&versionId=a%20b", nil)
	req.RemoteAddr = "[2001:db8::1]:443"
	req.Header.Set("User-Agent", "evil\nagent")
	req.Header.Set("Referer", "https://example.com/")
	req.TLS = &tls.ConnectionState{Version: tls.VersionTLS13, CipherSuite: tls.TLS_AES_128_GCM_SHA256}
	r = &s3api.Record{ID: "ABC", Start: r.Start, Request: req, Op: s3api.OpGetBucketLogging, Bucket: "src",
		Principal: authz.Anonymous, Status: 403, Code: "AccessDenied", BytesOut: 243}
	want = owner + ` src [06/Feb/2019:00:00:38 +0000] 2001:db8::1 - ABC REST.GET.LOGGING_STATUS - "GET /src?logging&versionId=a%20b HTTP/1.1" ` +
		`403 AccessDenied 243 - 0 - "https://example.com/" "evil\x0Aagent" a%20b ` + s3api.HostID("ABC") +
		` - TLS_AES_128_GCM_SHA256 - example.com TLSv1.3 - - -`
	if got := string(AppendRecord(nil, owner, Requester(r), r)); got != want {
		t.Errorf("record:\n got %s\nwant %s", got, want)
	}
}

func TestLogOperations(t *testing.T) {
	for _, c := range []struct {
		method, target, copySource string
		want                       string
	}{
		{"PUT", "/b/k", "", "REST.PUT.OBJECT"},
		{"PUT", "/b/k", "/src/x", "REST.COPY.OBJECT"},
		{"HEAD", "/b/k", "", "REST.HEAD.OBJECT"},
		{"DELETE", "/b/k", "", "REST.DELETE.OBJECT"},
		{"GET", "/b", "", "REST.GET.BUCKET"},
		{"GET", "/b?list-type=2", "", "REST.GET.BUCKET"},
		{"PUT", "/b", "", "REST.PUT.BUCKET"},
		{"POST", "/b/k?uploads", "", "REST.POST.UPLOADS"},
		{"PUT", "/b/k?partNumber=1&uploadId=u", "", "REST.PUT.PART"},
		{"POST", "/b/k?uploadId=u", "", "REST.POST.UPLOAD"},
		{"POST", "/b?delete", "", "REST.POST.MULTI_OBJECT_DELETE"},
		{"GET", "/b?versioning", "", "REST.GET.VERSIONING"},
		{"PUT", "/b?logging", "", "REST.PUT.LOGGING_STATUS"},
		{"GET", "/b?policy", "", "REST.GET.BUCKETPOLICY"},
		{"GET", "/b/k?acl", "", "REST.GET.ACL"},
		{"GET", "/b/k?tagging", "", "REST.GET.OBJECT_TAGGING"},
	} {
		req := httptest.NewRequest(c.method, c.target, nil)
		if c.copySource != "" {
			req.Header.Set("X-Amz-Copy-Source", c.copySource)
		}
		rt := s3api.ParseRoute(req, "")
		r := &s3api.Record{Request: req, Op: rt.Op, Bucket: rt.Bucket, Key: rt.Key}
		if got := string(s3api.AppendLogOperation(nil, r)); got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.target, got, c.want)
		}
	}
}

// memStore keeps the log objects written; fail makes puts into a
// bucket fail ("*": every bucket), logging is each source's
// configuration, refuse the targets that do not take logs; "gone" does
// not exist.
type memStore struct {
	mu      sync.Mutex
	objects map[string]string // bucket/key → body
	puts    map[string]int    // attempts, by bucket
	fail    map[string]error
	logging map[string]string // source → target
	refuse  map[string]bool
}

func newStore(logging map[string]string) *memStore {
	return &memStore{objects: map[string]string{}, puts: map[string]int{}, fail: map[string]error{},
		logging: logging, refuse: map[string]bool{}}
}

func (m *memStore) PutLogObject(_ context.Context, bucket, key string, body []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.puts[bucket]++
	if err := m.fail[bucket]; err != nil {
		return err
	}
	if err := m.fail["*"]; err != nil {
		return err
	}
	if bucket == "gone" {
		return meta.ErrBucketNotFound
	}
	m.objects[bucket+"/"+key] = string(body)
	return nil
}

func (m *memStore) BucketLoggingOf(_ context.Context, source string) (*service.BucketLogging, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t, ok := m.logging[source]; ok {
		return &service.BucketLogging{TargetBucket: t}, nil
	}
	return nil, nil
}

func (m *memStore) LogDeliveryAllowed(_ context.Context, _ *authz.Authorizer, _ string, l service.BucketLogging, _ string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if l.TargetBucket == "gone" {
		return false, meta.ErrBucketNotFound
	}
	return !m.refuse[l.TargetBucket], nil
}

// bodies are the objects written into bucket, sorted.
func (m *memStore) bodies(bucket string) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for k, v := range m.objects {
		if strings.HasPrefix(k, bucket+"/") {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// str is a record of fixed text.
func str(s string) func([]byte) []byte { return func(b []byte) []byte { return append(b, s...) } }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// openSpool opens a spool of gateway under dir, bounded by max (1 MiB
// when 0), closed by the test's end.
func openSpool(t *testing.T, dir, gateway string, max int64) *Spool {
	t.Helper()
	if max == 0 {
		max = 1 << 20
	}
	sp, err := OpenSpool(dir, gateway, max, quiet())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.Close() })
	return sp
}

func newDelivery(sp *Spool, store Store) *Delivery {
	return NewDelivery(sp, store, authz.New("111122223333", authz.Options{}), quiet())
}

// spoolFiles are the names of the sealed and held files in sp's
// directory.
func spoolFiles(t *testing.T, sp *Spool) (sealed, held []string) {
	t.Helper()
	l, err := sp.list()
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range l.held {
		held = append(held, h.name)
	}
	return l.sealed, held
}

// Records go into one object per target, prefix and source bucket, named
// prefix + date + 16 hex; the spool is empty once they are written; a
// failed write holds the records in a file per target, and the retry
// writes them.
func TestSpoolDelivery(t *testing.T) {
	sp := openSpool(t, t.TempDir(), "0123456789abcdef", 0)
	store := newStore(map[string]string{"src1": "logs", "src2": "logs", "src3": "gone"})
	store.fail["*"] = errors.New("disk full")
	d := newDelivery(sp, store)
	sp.Append("logs", "a/", "src1", str("r1"))
	sp.Append("logs", "a/", "src2", str("r2"))
	sp.Append("logs", "a/", "src1", str("r3"))
	sp.Append("logs", "b\t\"/", "src1", str("r4"))
	sp.Append("gone", "x/", "src3", str("r5"))
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	sealed, held := spoolFiles(t, sp)
	if len(sealed) != 0 || len(held) != 1 || !strings.HasSuffix(held[0], "_logs") {
		t.Fatalf("after a failure: sealed %v, held %v; want the target's records held", sealed, held)
	}
	if st := sp.Stats(); st.Failures != 1 || st.Waiting != 1 || st.Dropped["target_gone"] != 1 {
		t.Errorf("stats after a failure: %+v", st)
	}
	delete(store.fail, "*")
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sealed, held := spoolFiles(t, sp); len(sealed)+len(held) != 0 {
		t.Errorf("files left after delivery: %v %v", sealed, held)
	}
	for k := range store.objects {
		name := k[strings.LastIndex(k, "/")+1:]
		if !strings.HasPrefix(k, "logs/a/") && !strings.HasPrefix(k, "logs/b\t\"/") {
			t.Errorf("object %q", k)
		}
		// YYYY-mm-DD-HH-MM-SS-<16 upper-case hex>
		if len(name) != service.LogObjectSuffixLen || strings.ToUpper(name) != name {
			t.Errorf("object name %q", name)
		}
	}
	if got, want := store.bodies("logs"), []string{"r1\nr3\n", "r2\n", "r4\n"}; !slices.Equal(got, want) {
		t.Errorf("objects %q, want %q", got, want)
	}
	if st := sp.Stats(); st.Objects != 3 || st.Waiting != 0 || st.SpoolBytes != 0 {
		t.Errorf("stats after the delivery: %+v", st)
	}
	// Nothing new: nothing written.
	puts := store.puts["logs"]
	if err := d.Deliver(context.Background()); err != nil || store.puts["logs"] != puts {
		t.Errorf("an empty spool wrote %d objects (%v)", store.puts["logs"]-puts, err)
	}
}

// A failing target holds only its own records: the healthy target's are
// delivered at once, every round; the failing one is retried after a wait
// that doubles, its held file kept as it is, and delivered once it heals.
func TestFailingTargetBesideHealthy(t *testing.T) {
	sp := openSpool(t, t.TempDir(), "0123456789abcdef", 0)
	store := newStore(map[string]string{"a": "full", "b": "fine"})
	store.fail["full"] = meta.ErrQuotaExceeded
	d := newDelivery(sp, store)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d.now = func() time.Time { return now }
	d.retry = time.Minute
	for i := range 3 {
		sp.Append("full", "p/", "a", str(fmt.Sprintf("a%d", i)))
		sp.Append("fine", "p/", "b", str(fmt.Sprintf("b%d", i)))
		if err := d.Deliver(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := store.bodies("fine"); len(got) != i+1 || got[i] != fmt.Sprintf("b%d\n", i) {
			t.Fatalf("round %d: the healthy target has %q", i, got)
		}
		now = now.Add(30 * time.Second)
	}
	// Tried at the first round and once the minute passed (the third
	// round), not at the second.
	if store.puts["full"] != 2 {
		t.Errorf("%d attempts on the failing target in 1 min, want 2", store.puts["full"])
	}
	_, held := spoolFiles(t, sp)
	if len(held) != 3 {
		t.Fatalf("held files %v, want one a round", held)
	}
	// The next wait is 2 min: a round within it tries nothing and keeps
	// the held files as they are.
	now = now.Add(time.Minute)
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, again := spoolFiles(t, sp); store.puts["full"] != 2 || !slices.Equal(again, held) {
		t.Errorf("within the wait: %d attempts, held %v (was %v)", store.puts["full"], again, held)
	}
	delete(store.fail, "full")
	now = now.Add(2 * time.Minute)
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := store.bodies("full"); !slices.Equal(got, []string{"a0\n", "a1\n", "a2\n"}) {
		t.Errorf("the healed target has %q", got)
	}
	if sealed, held := spoolFiles(t, sp); len(sealed)+len(held) != 0 {
		t.Errorf("files left: %v %v", sealed, held)
	}
	if st := sp.Stats(); st.Failures != 2 || st.Waiting != 0 {
		t.Errorf("stats: %+v", st)
	}
}

// Records whose source no longer logs into their target, or whose target
// refuses them or is gone, are dropped and counted, never held; removing
// a failing target's configuration drops what it held.
func TestDroppedRecords(t *testing.T) {
	sp := openSpool(t, t.TempDir(), "0123456789abcdef", 0)
	store := newStore(map[string]string{"a": "logs", "b": "other", "c": "refuses", "d": "gone", "e": "broken"})
	store.refuse["refuses"] = true
	store.fail["broken"] = errors.New("disk full")
	d := newDelivery(sp, store)
	sp.Append("logs", "p/", "a", str("kept"))
	sp.Append("logs", "p/", "b", str("b moved to another target"))
	sp.Append("logs", "p/", "off", str("logging off"))
	sp.Append("refuses", "p/", "c", str("refused"))
	sp.Append("gone", "p/", "d", str("gone"))
	sp.Append("broken", "p/", "e", str("held"))
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := store.bodies("logs"); !slices.Equal(got, []string{"kept\n"}) {
		t.Errorf("delivered %q", got)
	}
	if _, held := spoolFiles(t, sp); len(held) != 1 {
		t.Errorf("held %v, want the failing target's", held)
	}
	store.mu.Lock()
	delete(store.logging, "e")
	store.mu.Unlock()
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sealed, held := spoolFiles(t, sp); len(sealed)+len(held) != 0 {
		t.Errorf("files left once the failing target's configuration went: %v %v", sealed, held)
	}
	st := sp.Stats()
	for reason, want := range map[string]uint64{"config_gone": 3, "no_consent": 1, "target_gone": 1, "spool_full": 0, "evicted": 0} {
		if st.Dropped[reason] != want {
			t.Errorf("dropped %s: %d, want %d", reason, st.Dropped[reason], want)
		}
	}
	if store.puts["refuses"] != 0 || store.puts["gone"] != 0 {
		t.Errorf("writes into targets that do not take logs: %v", store.puts)
	}
}

// The spool keeps at most its bound on disk: past it new records are
// dropped; the records held for a failing target are kept within half of
// it, the oldest dropped first; a healthy target's still arrive.
func TestSpoolBound(t *testing.T) {
	const max = 64 << 10
	sp := openSpool(t, t.TempDir(), "0123456789abcdef", max)
	store := newStore(map[string]string{"a": "full", "b": "fine"})
	store.fail["full"] = meta.ErrQuotaExceeded
	d := newDelivery(sp, store)
	record := strings.Repeat("x", 1000)
	for range 3 * max / 1000 {
		sp.Append("full", "p/", "a", str(record))
	}
	if st := sp.Stats(); st.Dropped["spool_full"] == 0 || st.SpoolBytes < max {
		t.Fatalf("appending 3 times the bound: %+v", st)
	}
	if err := sp.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The round's records of the failing target, one held file over half
	// the bound: dropped whole.
	if st := sp.Stats(); st.SpoolBytes != 0 || st.Dropped["evicted"] == 0 {
		t.Fatalf("after a round: %+v", st)
	}
	// Room again: a healthy target's records go through, a second round
	// of the failing one's is held within half the bound.
	for i := range 20 {
		sp.Append("full", "p/", "a", str(record))
		sp.Append("fine", "p/", "b", str(fmt.Sprint(i)))
	}
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := store.bodies("fine"); len(got) != 1 || strings.Count(got[0], "\n") != 20 {
		t.Errorf("the healthy target got %q", got)
	}
	if st := sp.Stats(); st.SpoolBytes == 0 || st.SpoolBytes > max/2 || st.Dropped["spool_full"] == 0 {
		t.Errorf("after the second round: %+v", st)
	}
	on, err := os.ReadDir(sp.dir)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, e := range on {
		if fi, err := e.Info(); err == nil && !e.IsDir() {
			total += fi.Size()
		}
	}
	if total > max {
		t.Errorf("%d bytes on disk, bound %d", total, max)
	}
}

// A gateway that ended (its lock free) left records, sealed and held:
// another adopts and delivers them, and never touches a live gateway's.
func TestAdoptEndedGateway(t *testing.T) {
	dir := t.TempDir()
	dead, err := OpenSpool(dir, "dead000000000000", 1<<20, quiet())
	if err != nil {
		t.Fatal(err)
	}
	store := newStore(map[string]string{"src": "logs", "src2": "broken"})
	store.fail["broken"] = errors.New("disk full")
	dead.Append("broken", "p/", "src2", str("held by the dead"))
	_ = newDelivery(dead, store).Deliver(context.Background())
	dead.Append("logs", "p/", "src", str("from the dead"))
	_ = dead.Seal()
	dead.Append("logs", "p/", "src", str("unsealed"))
	if err := dead.Close(); err != nil {
		t.Fatal(err)
	}
	live := openSpool(t, dir, "live000000000000", 0)
	live.Append("logs", "p/", "src", str("live's own"))
	me := openSpool(t, dir, "me00000000000000", 0)
	delete(store.fail, "broken")
	if err := newDelivery(me, store).Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got, want := store.bodies("logs"), []string{"from the dead\n", "unsealed\n"}; !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	if got, want := store.bodies("broken"), []string{"held by the dead\n"}; !slices.Equal(got, want) {
		t.Errorf("delivered %q, want %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, Dir, "dead000000000000")); !os.IsNotExist(err) {
		t.Errorf("the ended gateway's spool is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, Dir, "live000000000000", currentFile)); err != nil {
		t.Errorf("the live gateway's spool: %v", err)
	}
}

type targets map[string]*service.BucketLogging

func (t targets) BucketLoggingOf(_ context.Context, b string) (*service.BucketLogging, error) {
	return t[b], nil
}

// The observer spools records of buckets with logging only.
func TestLoggerObserve(t *testing.T) {
	sp := openSpool(t, t.TempDir(), "0123456789abcdef", 0)
	l := NewLogger(targets{"src": {TargetBucket: "logs", TargetPrefix: "p/", Owner: owner}}, sp)
	for _, b := range []string{"src", "other", "", "src"} {
		r := getRecord()
		r.Bucket = b
		l.Observe(r)
	}
	store := newStore(map[string]string{"src": "logs"})
	if err := newDelivery(sp, store).Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(store.objects) != 1 {
		t.Fatalf("objects %v", store.objects)
	}
	for k, v := range store.objects {
		if !strings.HasPrefix(k, "logs/p/") || strings.Count(v, "\n") != 2 || !strings.HasPrefix(v, owner+" src [") {
			t.Errorf("%s: %q", k, v)
		}
	}
}

// BenchmarkObserve is the cost a request on a bucket with logging pays
// for its record (format and queue; the spool's writes are the writer
// goroutine's).
func BenchmarkObserve(b *testing.B) {
	sp, err := OpenSpool(b.TempDir(), "0123456789abcdef", 1<<30, quiet())
	if err != nil {
		b.Fatal(err)
	}
	defer sp.Close()
	l := NewLogger(targets{"src": {TargetBucket: "logs", TargetPrefix: "p/", Owner: owner}}, sp)
	r := getRecord()
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			l.Observe(r)
		}
	})
}

// TestObjectSize: the Object Size field is the body of a write of object
// data (PutObject, UploadPart, PostObject) or the object a whole GET sends;
// "-" (0) for every other operation and for errors.
func TestObjectSize(t *testing.T) {
	writes := []s3api.Op{s3api.OpPutObject, s3api.OpUploadPart, s3api.OpPostObject}
	for _, o := range s3api.Routed() {
		want := int64(0)
		switch {
		case slices.Contains(writes, o):
			want = 5
		case o == s3api.OpGetObject:
			want = 7
		}
		if got := objectSize(&s3api.Record{Op: o, Status: 200, BytesIn: 5, BytesOut: 7}); got != want {
			t.Errorf("%v: object size %d, want %d", o, got, want)
		}
		if got := objectSize(&s3api.Record{Op: o, Status: 403, BytesIn: 5, BytesOut: 7}); got != 0 {
			t.Errorf("%v refused: object size %d, want 0", o, got)
		}
	}
}
