package fsck_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/cli"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/fsck"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/server"
	"github.com/jogstore/jog/internal/testutil"

	_ "modernc.org/sqlite" // damage the database directly
)

const bucket = "fsck"

// serverWithBucket starts a server on a fresh data dir (every blob a file)
// holding the test bucket, created with opts applied.
func serverWithBucket(t *testing.T, opts ...func(*s3.CreateBucketInput)) (string, *testutil.Server, *s3.Client) {
	t.Helper()
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithFilesOnly())
	c := srv.AWSClient(t)
	in := &s3.CreateBucketInput{Bucket: aws.String(bucket)}
	for _, o := range opts {
		o(in)
	}
	if _, err := c.CreateBucket(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	return dir, srv, c
}

func seeded(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// store is a data dir filled through a real server, which is then stopped.
type store struct {
	dir string
	// blobs by name: "gone", "short", "flipped", "mp/2", "upload/1", …
	blob map[string]string
	// uploadID of the upload left in progress
	uploadID string
}

func put(t *testing.T, c *s3.Client, key string, body []byte, alg types.ChecksumAlgorithm) {
	t.Helper()
	_, err := c.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
		Body: bytes.NewReader(body), ChecksumAlgorithm: alg})
	if err != nil {
		t.Fatalf("PUT %s: %v", key, err)
	}
}

// multipart uploads parts of the given sizes; complete=false leaves the
// upload in progress. It returns the upload ID.
func multipart(t *testing.T, c *s3.Client, key string, alg types.ChecksumAlgorithm, complete bool, sizes ...int) string {
	t.Helper()
	ctx := t.Context()
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), ChecksumAlgorithm: alg})
	if err != nil {
		t.Fatal(err)
	}
	var parts []types.CompletedPart
	for i, n := range sizes {
		num := int32(i + 1)
		out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(num), Body: bytes.NewReader(seeded(uint64(100+i), n)), ChecksumAlgorithm: alg})
		if err != nil {
			t.Fatalf("UploadPart %s %d: %v", key, num, err)
		}
		parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(num), ETag: out.ETag,
			ChecksumCRC32: out.ChecksumCRC32, ChecksumCRC32C: out.ChecksumCRC32C, ChecksumSHA256: out.ChecksumSHA256,
			ChecksumSHA1: out.ChecksumSHA1, ChecksumCRC64NVME: out.ChecksumCRC64NVME})
	}
	if complete {
		_, err := c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
			UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
		if err != nil {
			t.Fatalf("complete %s: %v", key, err)
		}
	}
	return aws.ToString(up.UploadId)
}

// newStore writes: single-part objects in blob files (default checksum,
// CRC32C, SHA256, empty), two multipart objects (CRC64NVME full-object,
// SHA256 composite), an upload in progress with two parts, and, after a
// restart with inlining on, two objects stored in the database.
func newStore(t *testing.T) store {
	t.Helper()
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithFilesOnly())
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "good", seeded(1, 1000), "")
	put(t, c, "gone", seeded(2, 2000), "")
	put(t, c, "short", seeded(3, 3000), types.ChecksumAlgorithmCrc32c)
	put(t, c, "flipped", seeded(4, 4000), types.ChecksumAlgorithmSha256)
	put(t, c, "empty", nil, "")
	put(t, c, "dir/odd key\n", seeded(5, 10), types.ChecksumAlgorithmCrc32)
	multipart(t, c, "mp", "", true, 5<<20, 5<<20, 123)
	multipart(t, c, "mp-good", types.ChecksumAlgorithmSha256, true, 5<<20, 77)
	upload := multipart(t, c, "upload", types.ChecksumAlgorithmCrc32, false, 5<<20, 99)
	srv.Stop()
	srv = testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithInlineMax(1024))
	c = srv.AWSClient(t)
	put(t, c, "tiny", seeded(6, 500), "")
	put(t, c, "tiny-flipped", seeded(7, 600), types.ChecksumAlgorithmSha256)
	srv.Stop()

	s := store{dir: dir, blob: map[string]string{}, uploadID: upload}
	ctx := t.Context()
	m, err := sqlite.Open(ctx, filepath.Join(dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, k := range []string{"good", "gone", "short", "flipped", "mp", "mp-good"} {
		o, err := m.GetObject(ctx, bucket, k, "")
		if err != nil {
			t.Fatal(err)
		}
		s.blob[k] = o.BlobID
		if o.UploadID != "" {
			parts, err := m.ObjectParts(ctx, o.UploadID)
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				s.blob[fmt.Sprintf("%s/%d", k, p.Number)] = p.BlobID
			}
		}
	}
	parts, _, err := m.ListParts(ctx, bucket, "upload", upload, 0, 10)
	if err != nil || len(parts) != 2 {
		t.Fatalf("ListParts = %v, %v", parts, err)
	}
	for _, p := range parts {
		s.blob[fmt.Sprintf("upload/%d", p.Number)] = p.BlobID
	}
	return s
}

func (s store) path(t *testing.T, name string) string {
	t.Helper()
	id := s.blob[name]
	if id == "" {
		t.Fatalf("no blob %q", name)
	}
	b, err := disk.Open(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	return b.Path(id)
}

// fsckRun runs `jog fsck` through the CLI and returns its exit code and
// parsed JSON output.
type jsonReport struct {
	Problems  []fsck.Problem `json:"problems"`
	Summary   fsck.Summary   `json:"summary"`
	Remaining int            `json:"remaining"`
	Status    string         `json:"status"`
	Error     string         `json:"error"`
}

func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := cli.Run(context.Background(), append([]string{"fsck"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func runJSON(t *testing.T, dir string, args ...string) (int, jsonReport) {
	t.Helper()
	code, out, errOut := runCLI(t, append([]string{"--data-dir", dir, "--json"}, args...)...)
	var r jsonReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("fsck --json output is not JSON (%v): %s\nstderr: %s", err, out, errOut)
	}
	return code, r
}

// found renders problems as "kind name" with name the object key (and
// part), "orphan" or "temp", sorted.
func found(r jsonReport) []string {
	var out []string
	for _, p := range r.Problems {
		name := p.Key
		if p.Part > 0 {
			name = fmt.Sprintf("%s/%d", p.Key, p.Part)
		}
		if p.Key == "" {
			name = "-"
		}
		s := string(p.Kind) + " " + name
		if p.Action != "" {
			s += " " + p.Action
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func wantFound(t *testing.T, what string, r jsonReport, want ...string) {
	t.Helper()
	slices.Sort(want)
	if got := found(r); !slices.Equal(got, want) {
		t.Errorf("%s found\n  %q\nwant\n  %q", what, got, want)
	}
}

func TestCleanStore(t *testing.T) {
	s := newStore(t)
	for _, args := range [][]string{nil, {"--deep"}} {
		code, r := runJSON(t, s.dir, args...)
		if code != 0 || r.Status != "clean" || len(r.Problems) != 0 {
			t.Fatalf("fsck %v on a clean store: exit %d, %+v", args, code, r)
		}
		sum := r.Summary
		if sum.Objects != 10 || sum.MultipartObjects != 2 || sum.Uploads != 1 || sum.Parts != 7 || sum.Blobs != 12 || sum.Buckets != 1 {
			t.Errorf("fsck %v counts: %+v", args, sum)
		}
		dataBytes := int64(1000+2000+3000+4000+10+500+600) + 5<<20 + 5<<20 + 123 + 5<<20 + 77 + 5<<20 + 99
		if sum.BytesChecked != dataBytes {
			t.Errorf("fsck %v: %d bytes checked, want %d", args, sum.BytesChecked, dataBytes)
		}
		if wantVerified := map[bool]int64{false: 0, true: dataBytes}[len(args) > 0]; sum.BytesVerified != wantVerified {
			t.Errorf("fsck %v: %d bytes verified, want %d", args, sum.BytesVerified, wantVerified)
		}
	}
	code, out, _ := runCLI(t, "--data-dir", s.dir, "--deep")
	if code != 0 || !strings.Contains(out, "status:     clean") || !strings.Contains(out, "10 objects (2 multipart)") {
		t.Errorf("text output (exit %d):\n%s", code, out)
	}
}

// damage breaks the store in every way fsck knows: a deleted blob, a
// truncated one, a flipped byte (same size), a deleted part of a multipart
// object, a flipped byte in a part of an upload in progress, an orphan
// blob and a temp file.
func damage(t *testing.T, s store) (orphan, temp string) {
	t.Helper()
	if err := os.Remove(s.path(t, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(s.path(t, "short"), 2999); err != nil {
		t.Fatal(err)
	}
	flip(t, s.path(t, "flipped"), 1234)
	if err := os.Remove(s.path(t, "mp/2")); err != nil {
		t.Fatal(err)
	}
	flip(t, s.path(t, "upload/2"), 0)
	db, err := sql.Open("sqlite", filepath.Join(s.dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Exec(`UPDATE inline_data SET data = CAST(zeroblob(600) AS BLOB)
		WHERE id = (SELECT inline_id FROM objects WHERE key = 'tiny-flipped')`)
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("damaging inline data: %v (%d rows)", err, n)
	}
	orphan = filepath.Join(s.dir, "blobs", "ab", "cd", "abcd"+strings.Repeat("0", 27)+"1")
	if err := os.MkdirAll(filepath.Dir(orphan), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orphan, []byte("nobody's"), 0o640); err != nil {
		t.Fatal(err)
	}
	temp = filepath.Join(s.dir, "tmp", strings.Repeat("e", 32))
	if err := os.WriteFile(temp, []byte("half a wri"), 0o640); err != nil {
		t.Fatal(err)
	}
	return orphan, temp
}

func flip(t *testing.T, path string, off int64) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := []byte{0}
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0x40
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool { _, err := os.Stat(path); return err == nil }

func TestFindsAndRepairs(t *testing.T) {
	s := newStore(t)
	orphan, temp := damage(t, s)

	code, r := runJSON(t, s.dir)
	if code != 1 || r.Status != "problems" {
		t.Errorf("fsck: exit %d, status %s", code, r.Status)
	}
	wantFound(t, "fsck", r, "missing gone", "size short", "missing mp/2", "orphan -", "temp -")
	if sum := r.Summary; sum.Missing != 2 || sum.WrongSize != 1 || sum.Corrupt != 0 || sum.Orphans != 1 ||
		sum.TempFiles != 1 || sum.DamagedObjects != 3 || sum.Remaining() != 5 || r.Remaining != 5 {
		t.Errorf("fsck summary: %+v, remaining %d", sum, r.Remaining)
	}
	for _, p := range r.Problems {
		switch p.Kind {
		case fsck.Orphan:
			if p.Path != orphan || p.Size != 8 {
				t.Errorf("orphan reported as %+v, want %s", p, orphan)
			}
		case fsck.Temp:
			if p.Path != temp {
				t.Errorf("temp reported as %+v, want %s", p, temp)
			}
		case fsck.Size:
			if p.Size != 2999 || p.Want != 3000 || p.BlobID != s.blob["short"] {
				t.Errorf("size problem reported as %+v", p)
			}
		}
	}

	code, r = runJSON(t, s.dir, "--deep")
	if code != 1 {
		t.Errorf("fsck --deep: exit %d", code)
	}
	wantFound(t, "fsck --deep", r, "missing gone", "size short", "corrupt flipped", "corrupt tiny-flipped", "missing mp/2", "corrupt upload/2", "orphan -", "temp -")
	if sum := r.Summary; sum.Corrupt != 3 || sum.DamagedObjects != 5 || sum.DamagedUploads != 1 {
		t.Errorf("fsck --deep summary: %+v", sum)
	}
	// Verified: good, the odd key, tiny, mp-good, mp's parts 1 and 3 and
	// the upload's part 1; never the corrupt flipped, tiny-flipped and
	// upload/2.
	if want := int64(1000+10+500) + 5<<20 + 77 + 5<<20 + 123 + 5<<20; r.Summary.BytesVerified != want {
		t.Errorf("fsck --deep verified %d bytes, want %d (corrupt data counted?)", r.Summary.BytesVerified, want)
	}
	for _, p := range r.Problems {
		if p.Kind == fsck.Corrupt && p.Key == "upload" && (!p.InProgress || p.UploadID != s.uploadID) {
			t.Errorf("corrupt upload part reported as %+v", p)
		}
	}
	if !exists(orphan) || !exists(temp) {
		t.Fatal("a check without --repair removed files")
	}

	// Text output names each problem and the counts.
	code, out, _ := runCLI(t, "--data-dir", s.dir, "--deep")
	t.Logf("jog fsck --deep:\n%s", out)
	for _, want := range []string{"missing  fsck/gone: blob file is missing", "corrupt  fsck/flipped:", "orphan   " + orphan + " (8 B): ",
		"missing:    2", "corrupt:    3", "orphans:    1 (8 B)", "status:     8 problems remain", "1 upload in progress", ", 1 bucket\n",
		"bytes:      15.0 MiB of the right size, 15.0 MiB verified"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q (exit %d):\n%s", want, code, out)
		}
	}

	// --repair removes the orphan and the temp file; damaged objects stay.
	code, r = runJSON(t, s.dir, "--repair", "--deep")
	if code != 1 {
		t.Errorf("fsck --repair: exit %d, want 1 (damaged objects remain)", code)
	}
	wantFound(t, "fsck --repair", r, "missing gone", "size short", "corrupt flipped", "corrupt tiny-flipped", "missing mp/2", "corrupt upload/2",
		"orphan - removed", "temp - removed")
	if exists(orphan) || exists(temp) {
		t.Error("--repair left the orphan or the temp file")
	}
	if r.Remaining != 6 {
		t.Errorf("after --repair remaining = %d, want 6", r.Remaining)
	}
	if code, r = runJSON(t, s.dir, "--deep"); code != 1 {
		t.Errorf("fsck after --repair: exit %d, want 1", code)
	}
	wantFound(t, "fsck after --repair", r, "missing gone", "size short", "corrupt flipped", "corrupt tiny-flipped", "missing mp/2", "corrupt upload/2")

	// --repair-drop-lost deletes the damaged objects and aborts the upload.
	mpBlobs := []string{s.path(t, "mp/1"), s.path(t, "mp/3")}
	code, r = runJSON(t, s.dir, "--repair-drop-lost", "--deep")
	if code != 0 || r.Remaining != 0 {
		t.Errorf("fsck --repair-drop-lost: exit %d, remaining %d", code, r.Remaining)
	}
	wantFound(t, "fsck --repair-drop-lost", r, "missing gone dropped", "size short dropped", "corrupt flipped dropped",
		"corrupt tiny-flipped dropped", "missing mp/2 dropped", "corrupt upload/2 aborted")
	for _, p := range mpBlobs {
		if exists(p) {
			t.Errorf("dropping mp left its part blob %s", p)
		}
	}
	code, r = runJSON(t, s.dir, "--deep")
	if code != 0 || len(r.Problems) != 0 || r.Summary.Objects != 5 || r.Summary.Uploads != 0 {
		t.Errorf("fsck after drop: exit %d, %+v", code, r)
	}

	// The server starts on the repaired data; what was dropped is gone and
	// the rest reads back.
	srv := testutil.StartServer(t, testutil.WithDataDir(s.dir))
	c := srv.AWSClient(t)
	for _, k := range []string{"good", "empty", "mp-good", "tiny"} {
		out, err := c.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)})
		if err != nil {
			t.Errorf("GET %s after repair: %v", k, err)
			continue
		}
		out.Body.Close()
	}
	for _, k := range []string{"gone", "tiny-flipped"} {
		if _, err := c.HeadObject(t.Context(), &s3.HeadObjectInput{Bucket: aws.String(bucket), Key: aws.String(k)}); err == nil {
			t.Errorf("dropped object %s still there", k)
		}
	}
}

func TestLock(t *testing.T) {
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir))
	c := srv.AWSClient(t)
	if _, err := c.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	put(t, c, "k", seeded(9, 100), "")
	temp := filepath.Join(dir, "tmp", strings.Repeat("f", 32))
	if err := os.WriteFile(temp, []byte("a write in progress"), 0o640); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI(t, "--data-dir", dir, "--repair")
	if code != 2 || !strings.Contains(errOut, "in use by another jog process") || !strings.Contains(errOut, "stop the server") {
		t.Errorf("--repair beside a server: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !exists(temp) {
		t.Error("a refused --repair removed a file")
	}
	// A read-only check runs beside the server; its temp files are writes
	// in progress.
	code, r := runJSON(t, dir, "--deep")
	if code != 0 || !r.Summary.Live || r.Summary.Objects != 1 || r.Summary.TempFiles != 1 || len(r.Problems) != 0 {
		t.Errorf("read-only fsck beside a server: exit %d, %+v", code, r)
	}
	// A second server on the same data dir is refused.
	if _, err := server.New(t.Context(), srv.Config, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("second server on a locked data dir: %v", err)
	}
	srv.Stop()
	code, r = runJSON(t, dir, "--repair")
	if code != 0 || r.Summary.Live || r.Summary.TempRemoved != 1 {
		t.Errorf("--repair after stop: exit %d, %+v", code, r)
	}
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--data-dir", dir}, // no jog.db
		{"--data-dir", filepath.Join(dir, "nonexistent")}, // no dir
		{"--data-dir", dir, "extra"},
		{"--bogus"},
	} {
		if code, out, errOut := runCLI(t, args...); code != 2 {
			t.Errorf("fsck %q: exit %d, want 2\n%s%s", args, code, out, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, datadir.DBFile)); err == nil {
		t.Error("fsck of a non-data dir created a database")
	}
	_, err := fsck.Run(t.Context(), fsck.Options{DataDir: dir, DropLost: true})
	if err == nil {
		t.Error("DropLost without Repair accepted")
	}
}

// TestLiveCheck runs read-only checks while clients overwrite, delete and
// complete uploads: blobs vanishing under the check are not problems.
func TestLiveCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of concurrent writes")
	}
	dir := t.TempDir()
	srv := testutil.StartServer(t, testutil.WithDataDir(dir), testutil.WithoutFsync())
	c := srv.AWSClient(t)
	ctx := t.Context()
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(bucket)}); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	for w := range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				key := fmt.Sprintf("k%d", i%7)
				switch i % 5 {
				case 0, 1, 2:
					_, _ = c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
						Body: bytes.NewReader(seeded(uint64(w*1000+i), 1000+i%5000))})
				case 3:
					_, _ = c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
				case 4: // an upload: left in progress, completed or aborted
					up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)})
					if err != nil {
						continue
					}
					var parts []types.CompletedPart
					for n, size := range []int{5 << 20, 10} {
						out, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
							PartNumber: aws.Int32(int32(n + 1)), Body: bytes.NewReader(seeded(uint64(i), size))})
						if err == nil {
							parts = append(parts, types.CompletedPart{PartNumber: aws.Int32(int32(n + 1)), ETag: out.ETag, ChecksumCRC32: out.ChecksumCRC32})
						}
					}
					switch i % 3 {
					case 0:
						_, _ = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
							UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}})
					case 1:
						_, _ = c.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId})
					}
				}
			}
		}()
	}
	runs, skipped := 0, 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		var probs []fsck.Problem
		sum, err := fsck.Run(ctx, fsck.Options{DataDir: dir, Deep: true, Problem: func(p fsck.Problem) { probs = append(probs, p) }})
		if err != nil {
			t.Fatal(err)
		}
		if !sum.Live || len(probs) != 0 || sum.Remaining() != 0 {
			t.Errorf("live check: %+v, problems %v", sum, probs)
		}
		runs++
		skipped += sum.Skipped
	}
	t.Logf("%d live checks, %d objects or parts changed under them", runs, skipped)
	close(stop)
	for range 3 {
		<-done
	}
	srv.Stop()
	sum, err := fsck.Run(ctx, fsck.Options{DataDir: dir, Deep: true})
	if err != nil || sum.Remaining() != 0 || sum.Live {
		t.Errorf("check after stop: %+v, %v", sum, err)
	}
}

// TestDirectoryIndex damages the directory index (a phantom directory, a
// missing one) and checks that fsck reports both, that --repair rebuilds
// the index, and that the store is clean and lists right afterwards.
func TestDirectoryIndex(t *testing.T) {
	s := newStore(t)
	db, err := sql.Open("sqlite", filepath.Join(s.dir, datadir.DBFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"INSERT INTO dirs (bucket_id, parent, name) SELECT id, '', 'ghost/' FROM buckets",
		"DELETE FROM dirs WHERE name = 'dir/'",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	code, r := runJSON(t, s.dir)
	wantFound(t, "check", r, "index dir/", "index ghost/")
	if code != 1 || r.Summary.Index != 2 || r.Remaining != 2 {
		t.Errorf("check: exit %d, index %d, remaining %d", code, r.Summary.Index, r.Remaining)
	}
	code, r = runJSON(t, s.dir, "--repair")
	wantFound(t, "repair", r, "index dir/ rebuilt", "index ghost/ rebuilt")
	if code != 0 || r.Summary.IndexRebuilt != 2 || r.Remaining != 0 {
		t.Errorf("repair: exit %d, rebuilt %d, remaining %d", code, r.Summary.IndexRebuilt, r.Remaining)
	}
	if code, r = runJSON(t, s.dir); code != 0 || len(r.Problems) != 0 {
		t.Errorf("after the repair: exit %d, %+v", code, r.Problems)
	}
	srv := testutil.StartServer(t, testutil.WithDataDir(s.dir))
	out, err := srv.AWSClient(t).ListObjectsV2(t.Context(), &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Delimiter: aws.String("/")})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.CommonPrefixes) != 1 || aws.ToString(out.CommonPrefixes[0].Prefix) != "dir/" {
		t.Errorf("listing by / after the repair: %+v", out.CommonPrefixes)
	}
}
