package integration

// jog cp against a real server: single and multipart uploads, ranged and
// part-by-part downloads, directory trees both ways, --resume after an
// interrupted upload and over a stale part, a corrupted download refused,
// and --reservation on the wire (through a recording proxy).

import (
	"bytes"
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

const cpPart = 5 << 20

// jogCp runs `jog cp` in process against endpoint and returns its exit
// code and stderr.
func jogCp(ctx context.Context, t *testing.T, endpoint string, args ...string) (int, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	full := append([]string{"cp", "--endpoint", endpoint, "--access-key", testutil.AccessKey,
		"--secret-key", testutil.SecretKey, "--region", testutil.Region, "--part-size", "5MiB", "--streams", "4"}, args...)
	code := cli.Run(ctx, full, &stdout, &stderr)
	return code, stderr.String()
}

func mustCp(t *testing.T, endpoint string, args ...string) {
	t.Helper()
	if code, errs := jogCp(context.Background(), t, endpoint, args...); code != 0 {
		t.Fatalf("jog cp %v: exit %d: %s", args, code, errs)
	}
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func wantFile(t *testing.T, path string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: got %d bytes %q, want %d bytes %q", path, len(got), itest.Short(got), len(want), itest.Short(want))
	}
}

// wantObject asserts that key holds exactly want (a multipart object's
// ETag is no MD5 of its bytes).
func wantObject(t *testing.T, c *s3.Client, bucket, key string, want []byte) {
	t.Helper()
	if got, _ := itest.Get(t, c, bucket, key); !bytes.Equal(got, want) {
		t.Fatalf("object %s/%q: got %d bytes %q, want %d bytes %q", bucket, key, len(got), itest.Short(got), len(want), itest.Short(want))
	}
}

func crc64(b []byte) string {
	h := checksum.CRC64NVME.New()
	h.Write(b)
	return checksum.Encode(h.Sum(nil))
}

// wantFullCRC asserts that key's stored checksum is the FULL_OBJECT
// CRC64NVME of want.
func wantFullCRC(t *testing.T, c *s3.Client, bucket, key string, want []byte) {
	t.Helper()
	out, err := c.HeadObject(context.Background(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumMode: types.ChecksumModeEnabled})
	if err != nil {
		t.Fatal(err)
	}
	if got := aws.ToString(out.ChecksumCRC64NVME); got != crc64(want) || out.ChecksumType != types.ChecksumTypeFullObject {
		t.Fatalf("%s: stored CRC64NVME %q (%s), want %q FULL_OBJECT", key, got, out.ChecksumType, crc64(want))
	}
}

func TestCpFile(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		size int
	}{{"empty", 0}, {"small", 1 << 20}, {"one-part", cpPart}, {"multipart", 4*cpPart + 12345}} {
		t.Run(tc.name, func(t *testing.T) {
			data := itest.RandBytes(uint64(tc.size), tc.size)
			src := filepath.Join(dir, tc.name)
			writeFile(t, src, data)
			mustCp(t, srv.URL, src, "s3://cpb/up/"+tc.name)
			wantObject(t, c, "cpb", "up/"+tc.name, data)
			wantFullCRC(t, c, "cpb", "up/"+tc.name, data)

			dst := filepath.Join(dir, tc.name+".down")
			mustCp(t, srv.URL, "s3://cpb/up/"+tc.name, dst)
			wantFile(t, dst, data)
		})
	}
	// A prefix destination takes the file's name; a directory destination
	// the key's.
	mustCp(t, srv.URL, filepath.Join(dir, "small"), "s3://cpb/named/")
	out := t.TempDir()
	mustCp(t, srv.URL, "s3://cpb/named/small", out)
	wantFile(t, filepath.Join(out, "small"), itest.RandBytes(1<<20, 1<<20))
	if left, _ := filepath.Glob(filepath.Join(out, ".*jogcp*")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// TestCpDownloadComposite downloads an object whose checksum is COMPOSITE
// (the SDK's multipart CRC32C): part by part, each part's checksum and the
// composite checked.
func TestCpDownloadComposite(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	ctx := context.Background()
	data := itest.RandBytes(7, 2*cpPart+999)
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("cpb"), Key: aws.String("comp"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c, ChecksumType: types.ChecksumTypeComposite})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for i, off := 0, 0; off < len(data); i, off = i+1, off+cpPart {
		end := min(off+cpPart, len(data))
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("cpb"), Key: aws.String("comp"), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(data[off:end]), ChecksumAlgorithm: types.ChecksumAlgorithmCrc32c})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(i + 1)), ETag: out.ETag, ChecksumCRC32C: out.ChecksumCRC32C})
	}
	if _, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String("cpb"), Key: aws.String("comp"),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "comp")
	mustCp(t, srv.URL, "s3://cpb/comp", dst)
	wantFile(t, dst, data)
}

func TestCpRecursive(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	src := t.TempDir()
	files := map[string][]byte{
		"a.txt":          []byte("alpha"),
		"sub/b.bin":      itest.RandBytes(2, 100<<10),
		"sub/deep/c.bin": itest.RandBytes(3, 2*cpPart+1),
		"sub/empty":      nil,
		"sub/a key+b%":   []byte("odd name"),
	}
	for name, b := range files {
		writeFile(t, filepath.Join(src, filepath.FromSlash(name)), b)
	}
	mustCp(t, srv.URL, src, "s3://cpb/tree", "-r")
	for name, b := range files {
		wantObject(t, c, "cpb", "tree/"+name, b)
	}
	// A folder marker is not a file.
	itest.Put(t, c, "cpb", "tree/sub/", nil)
	dst := t.TempDir()
	mustCp(t, srv.URL, "--recursive", "s3://cpb/tree/", dst)
	for name, b := range files {
		wantFile(t, filepath.Join(dst, filepath.FromSlash(name)), b)
	}
}

// recorder is a proxy in front of the server that records every request's
// method, query and reservation header, can cancel a context on the n-th
// UploadPart, corrupt GET bodies, and shed load.
type recorder struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string // "METHOD query reservation"
	parts    []string // partNumber of each UploadPart
	cancelAt int
	cancel   context.CancelFunc
	corrupt  bool
	shed     int // answer this many more UploadParts and ranged GETs 503 SlowDown
}

func newRecorder(t *testing.T, target string) *recorder {
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	r := &recorder{}
	p := httputil.NewSingleHostReverseProxy(u)
	p.ErrorLog = log.New(io.Discard, "", 0) // the interrupted upload's
	p.ModifyResponse = func(resp *http.Response) error {
		if r.corrupt && resp.Request.Method == http.MethodGet && resp.StatusCode/100 == 2 && resp.ContentLength > 0 {
			b, err := io.ReadAll(resp.Body)
			if err != nil {
				return err
			}
			b[len(b)/2] ^= 1
			resp.Body = io.NopCloser(bytes.NewReader(b))
		}
		return nil
	}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.Method+" "+req.URL.RawQuery+" "+req.Header.Get("X-Jog-Reservation-Id"))
		if req.Method == http.MethodPut && req.URL.Query().Has("partNumber") {
			r.parts = append(r.parts, req.URL.Query().Get("partNumber"))
			if len(r.parts) == r.cancelAt && r.cancel != nil {
				r.cancel()
			}
		}
		shed := r.shed > 0 && (req.URL.Query().Has("partNumber") || req.Header.Get("Range") != "")
		if shed {
			r.shed--
		}
		r.mu.Unlock()
		if shed {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>`)
			return
		}
		p.ServeHTTP(w, req)
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *recorder) reset() (requests, parts []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	requests, parts = r.requests, r.parts
	r.requests, r.parts = nil, nil
	return
}

// startRecorded starts a server with bucket cpb behind a recorder and
// writes a local file of size random bytes.
func startRecorded(t *testing.T, size int) (c *s3.Client, rec *recorder, src string, data []byte) {
	srv, c := itest.StartBucket(t, "cpb")
	rec = newRecorder(t, srv.URL)
	data = itest.RandBytes(uint64(size), size)
	src = filepath.Join(t.TempDir(), "f")
	writeFile(t, src, data)
	return c, rec, src, data
}

// TestCpResume interrupts an upload, resumes it, and resumes another over
// a part that no longer matches the file: only missing or stale parts are
// sent again, and the object is the file.
func TestCpResume(t *testing.T) {
	c, rec, src, data := startRecorded(t, 5*cpPart+77)

	ctx, cancel := context.WithCancel(context.Background())
	rec.cancelAt, rec.cancel = 2, cancel
	if code, errs := jogCp(ctx, t, rec.URL, "--streams", "1", src, "s3://cpb/f"); code == 0 || !strings.Contains(errs, "--resume") {
		t.Fatalf("interrupted jog cp: exit %d, stderr %q; want a failure that names --resume", code, errs)
	}
	itest.WantNoObject(t, c, "cpb", "f")
	rec.cancel = nil
	_, sent := rec.reset()
	mustCp(t, rec.URL, "--resume", src, "s3://cpb/f")
	_, resent := rec.reset()
	wantObject(t, c, "cpb", "f", data)
	wantFullCRC(t, c, "cpb", "f", data)
	if slices.Contains(resent, "1") || !slices.Contains(sent, "1") {
		t.Fatalf("parts sent before the interruption %v, after %v: want part 1 sent once", sent, resent)
	}
	for _, p := range []string{"3", "4", "5", "6"} {
		if !slices.Contains(resent, p) {
			t.Fatalf("parts sent after the interruption %v: want part %s among them", resent, p)
		}
	}

	// An upload whose part 2 was made from other bytes (the file changed
	// since): part 2 is sent again, parts 1 and 3 are kept.
	ctx = context.Background()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String("cpb"), Key: aws.String("stale"),
		ChecksumAlgorithm: types.ChecksumAlgorithmCrc64nvme, ChecksumType: types.ChecksumTypeFullObject})
	if err != nil {
		t.Fatal(err)
	}
	stale := bytes.Clone(data)
	stale[cpPart+10] ^= 0xff
	for _, n := range []int{1, 2, 3} {
		b := stale[(n-1)*cpPart : n*cpPart]
		if _, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String("cpb"), Key: aws.String("stale"), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(n)), Body: bytes.NewReader(b), ChecksumCRC64NVME: aws.String(crc64(b))}); err != nil {
			t.Fatal(err)
		}
	}
	mustCp(t, rec.URL, "--resume", src, "s3://cpb/stale")
	_, resent = rec.reset()
	wantObject(t, c, "cpb", "stale", data)
	slices.Sort(resent)
	if got := strings.Join(resent, ","); got != "2,4,5,6" {
		t.Fatalf("resumed upload sent parts %s, want 2,4,5,6", got)
	}
}

// TestCpReservation: --reservation (a real one: the server refuses an
// unknown ID) reaches the server, signed, on every
// GET, PUT and UploadPart.
func TestCpReservation(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb", testutil.WithQoSCapacity(300e6, 150e6))
	rec := newRecorder(t, srv.URL)
	data := itest.RandBytes(3, 2*cpPart+3)
	src := filepath.Join(t.TempDir(), "f")
	writeFile(t, src, data)
	now := time.Now().UTC().Truncate(time.Second)
	id := createRsv(t, srv, "cpb", rsvBody(100e6, 50e6, now, now.Add(time.Hour), "")).ID
	mustCp(t, rec.URL, "--reservation", id, src, "s3://cpb/f")
	mustCp(t, rec.URL, "--reservation", id, "s3://cpb/f", src+".down")
	wantObject(t, c, "cpb", "f", data)
	wantFile(t, src+".down", data)
	reqs, _ := rec.reset()
	data2 := 0
	for _, r := range reqs {
		method, rest, _ := strings.Cut(r, " ")
		query, res, _ := strings.Cut(rest, " ")
		if method == http.MethodGet && query == "" || method == http.MethodPut {
			data2++
			if res != id {
				t.Errorf("%s ?%s: reservation %q, want %s", method, query, res, id)
			}
		}
	}
	if data2 < 5 {
		t.Fatalf("saw %d data requests (%v), want the 3 parts and 2+ ranges", data2, reqs)
	}
}

// TestCpCorruptDownload: bytes changed on the way are caught; no file is
// left at the destination, nor a temporary one.
func TestCpCorruptDownload(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	rec := newRecorder(t, srv.URL)
	rec.corrupt = true
	for _, size := range []int{1000, 2*cpPart + 5} {
		data := itest.RandBytes(uint64(size), size)
		itest.Put(t, c, "cpb", "k", data)
		dir := t.TempDir()
		code, errs := jogCp(context.Background(), t, rec.URL, "s3://cpb/k", filepath.Join(dir, "k"))
		if code == 0 || !strings.Contains(errs, "does not match") {
			t.Fatalf("%d bytes corrupted on the way: exit %d, stderr %q; want a checksum mismatch", size, code, errs)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Fatalf("files left after a failed download: %v", left)
		}
	}
}

// TestCpServerCopy copies in the server: one CopyObject below a part, a
// parallel UploadPartCopy above, a prefix with -r; the copies' CRC64NVME
// is the source's.
func TestCpServerCopy(t *testing.T) {
	srv, c := itest.StartBucket(t, "cpb")
	itest.CreateBucket(t, c, "other")
	small, big := itest.RandBytes(1, 1000), itest.RandBytes(2, 2*cpPart+5)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "small"), small)
	writeFile(t, filepath.Join(dir, "src", "sub", "big"), big)
	mustCp(t, srv.URL, "-r", filepath.Join(dir, "src"), "s3://cpb/src")
	mustCp(t, srv.URL, "s3://cpb/src/small", "s3://other/copies/")
	mustCp(t, srv.URL, "s3://cpb/src/sub/big", "s3://other/big")
	wantObject(t, c, "other", "copies/small", small)
	wantFullCRC(t, c, "other", "copies/small", small)
	wantObject(t, c, "other", "big", big)
	wantFullCRC(t, c, "other", "big", big)
	mustCp(t, srv.URL, "-r", "s3://cpb/src", "s3://other/tree/")
	wantObject(t, c, "other", "tree/small", small)
	wantObject(t, c, "other", "tree/sub/big", big)
}

// TestCpRetry: parts and ranges the server refuses with 503 SlowDown (as a
// loaded or QoS-limited server does) are sent again; the copy succeeds.
func TestCpRetry(t *testing.T) {
	c, rec, src, data := startRecorded(t, 3*cpPart+1)
	rec.shed = 2
	mustCp(t, rec.URL, src, "s3://cpb/f")
	wantObject(t, c, "cpb", "f", data)
	rec.mu.Lock()
	if rec.shed != 0 {
		t.Fatalf("upload: %d requests left to shed: the test shed none", rec.shed)
	}
	rec.shed = 2
	rec.mu.Unlock()
	mustCp(t, rec.URL, "s3://cpb/f", src+".down")
	wantFile(t, src+".down", data)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if rec.shed != 0 {
		t.Fatalf("download: %d requests left to shed: the test shed none", rec.shed)
	}
}
