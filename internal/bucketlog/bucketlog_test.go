package bucketlog

import (
	"context"
	"crypto/tls"
	"errors"
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

// memStore keeps the log objects written; fail makes puts fail.
type memStore struct {
	mu      sync.Mutex
	objects map[string]string // bucket/key → body
	puts    int
	fail    error
}

func (m *memStore) PutLogObject(_ context.Context, bucket, key string, body []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	if bucket == "gone" {
		return meta.ErrBucketNotFound
	}
	if m.objects == nil {
		m.objects = map[string]string{}
	}
	m.puts++
	m.objects[bucket+"/"+key] = string(body)
	return nil
}

// str is a record of fixed text.
func str(s string) func([]byte) []byte { return func(b []byte) []byte { return append(b, s...) } }

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// Records go into one object per target, prefix and source bucket, named
// prefix + date + 16 hex; the spool is empty once they are written; a
// failed write keeps the file, and the retry writes the same names.
func TestSpoolDelivery(t *testing.T) {
	dir := t.TempDir()
	sp, err := OpenSpool(dir, "0123456789abcdef", quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	store := &memStore{fail: errors.New("disk full")}
	d := NewDelivery(sp, store, quiet())
	sp.Append("logs", "a/", "src1", str("r1"))
	sp.Append("logs", "a/", "src2", str("r2"))
	sp.Append("logs", "a/", "src1", str("r3"))
	sp.Append("logs", "b\t\"/", "src1", str("r4"))
	sp.Append("gone", "x/", "src1", str("r5"))
	if err := d.Deliver(context.Background()); err == nil {
		t.Fatal("delivery into a failing store succeeded")
	}
	sealed, _ := sp.Sealed()
	if len(sealed) != 1 {
		t.Fatalf("sealed files after a failure: %v, want the one kept", sealed)
	}
	store.fail = nil
	if err := d.Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sealed, _ := sp.Sealed(); len(sealed) != 0 {
		t.Errorf("sealed files left after delivery: %v", sealed)
	}
	var bodies []string
	for k, v := range store.objects {
		name := k[strings.LastIndex(k, "/")+1:]
		if !strings.HasPrefix(k, "logs/a/") && !strings.HasPrefix(k, "logs/b\t\"/") {
			t.Errorf("object %q", k)
		}
		// YYYY-mm-DD-HH-MM-SS-<16 upper-case hex>
		if len(name) != len("2006-01-02-15-04-05-0123456789ABCDEF") || strings.ToUpper(name) != name {
			t.Errorf("object name %q", name)
		}
		bodies = append(bodies, v)
	}
	slices.Sort(bodies)
	if want := []string{"r1\nr3\n", "r2\n", "r4\n"}; !slices.Equal(bodies, want) {
		t.Errorf("objects %q, want %q", bodies, want)
	}
	// Nothing new: nothing written.
	puts := store.puts
	if err := d.Deliver(context.Background()); err != nil || store.puts != puts {
		t.Errorf("an empty spool wrote %d objects (%v)", store.puts-puts, err)
	}
}

// A gateway that ended (its lock free) left records: another adopts and
// delivers them, and never touches a live gateway's.
func TestAdoptEndedGateway(t *testing.T) {
	dir := t.TempDir()
	dead, err := OpenSpool(dir, "dead000000000000", quiet())
	if err != nil {
		t.Fatal(err)
	}
	dead.Append("logs", "p/", "src", str("from the dead"))
	dead.Seal()
	dead.Append("logs", "p/", "src", str("unsealed"))
	if err := dead.Close(); err != nil {
		t.Fatal(err)
	}
	live, err := OpenSpool(dir, "live000000000000", quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	live.Append("logs", "p/", "src", str("live's own"))
	me, err := OpenSpool(dir, "me00000000000000", quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer me.Close()
	store := &memStore{}
	if err := NewDelivery(me, store, quiet()).Deliver(context.Background()); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, v := range store.objects {
		all = append(all, v)
	}
	slices.Sort(all)
	if want := []string{"from the dead\n", "unsealed\n"}; !slices.Equal(all, want) {
		t.Errorf("delivered %q, want %q", all, want)
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
	sp, err := OpenSpool(t.TempDir(), "0123456789abcdef", quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	l := NewLogger(targets{"src": {TargetBucket: "logs", TargetPrefix: "p/", Owner: owner}}, sp)
	for _, b := range []string{"src", "other", "", "src"} {
		r := getRecord()
		r.Bucket = b
		l.Observe(r)
	}
	store := &memStore{}
	if err := NewDelivery(sp, store, quiet()).Deliver(context.Background()); err != nil {
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
	sp, err := OpenSpool(b.TempDir(), "0123456789abcdef", quiet())
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
