package integration

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
	"github.com/jogstore/jog/test/integration/itest"
)

// The bytes on disk are ciphertext (issue 39's proof): objects of every
// size class the server stores differently, each made of one random
// 16-byte marker repeated, are written under SSE-S3, SSE-KMS and SSE-C;
// then every file of the data dir (blobs, packs, jog.db and its WAL) and,
// with PostgreSQL, every table is searched for every marker. No encrypted
// object's marker may be found; the marker of each unencrypted control
// object must be, so that the search itself is shown to work.

// sseSizeClasses are the ways the server stores an object's bytes, with
// its defaults: inline in the metadata database (service.DefaultInlineMax,
// 16 KiB), a record in a pack file (disk.DefaultPackMax, 1 MiB), a blob
// file of its own, and a multipart upload's part blobs (3 parts of 5 MiB).
var sseSizeClasses = []struct {
	name  string
	size  int
	parts int // > 0: a multipart upload of that many equal parts
}{
	{"inline", 4 << 10, 0},
	{"packed", 100 << 10, 0},
	{"blob", 2 << 20, 0},
	{"multipart", 15 << 20, 3},
}

// sseClassPlaces is where each size class's bytes are stored: the prefix
// of the file the control object's marker must be found in. Inline rows
// are in the metadata store, whose place the caller names.
func sseClassPlaces(inline string) map[string]string {
	return map[string]string{"inline": inline, "packed": "packs/", "blob": "blobs/", "multipart": "blobs/"}
}

// sseMode is one way of asking for encryption, as a client sends it on
// each request of a write and a read.
type sseMode struct {
	name   string
	put    func(*s3.PutObjectInput)
	create func(*s3.CreateMultipartUploadInput)
	part   func(*s3.UploadPartInput)
	get    func(*s3.GetObjectInput)
}

// proofKMSKey is the SSE-KMS key the tests create in the data dir.
const proofKMSKey = "proof-key"

// sseModes returns the control ("none") and the three encryption modes.
func sseModes() []sseMode {
	ck := make([]byte, 32)
	rand.Read(ck)
	sum := md5.Sum(ck)
	key, keyMD5 := aws.String(base64.StdEncoding.EncodeToString(ck)), aws.String(base64.StdEncoding.EncodeToString(sum[:]))
	alg := aws.String("AES256")
	return []sseMode{
		{name: "none"},
		{
			name:   "sse-s3",
			put:    func(in *s3.PutObjectInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 },
			create: func(in *s3.CreateMultipartUploadInput) { in.ServerSideEncryption = types.ServerSideEncryptionAes256 },
		},
		{
			name: "sse-kms",
			put: func(in *s3.PutObjectInput) {
				in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(proofKMSKey)
			},
			create: func(in *s3.CreateMultipartUploadInput) {
				in.ServerSideEncryption, in.SSEKMSKeyId = types.ServerSideEncryptionAwsKms, aws.String(proofKMSKey)
			},
		},
		{
			name: "sse-c",
			put: func(in *s3.PutObjectInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, key, keyMD5
			},
			create: func(in *s3.CreateMultipartUploadInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, key, keyMD5
			},
			part: func(in *s3.UploadPartInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, key, keyMD5
			},
			get: func(in *s3.GetObjectInput) {
				in.SSECustomerAlgorithm, in.SSECustomerKey, in.SSECustomerKeyMD5 = alg, key, keyMD5
			},
		},
	}
}

// createProofKey creates proofKMSKey in the built-in KMS of dataDir, as
// `jog admin kms create` does: the server sees keys created while it runs.
func createProofKey(t *testing.T, dataDir string) {
	t.Helper()
	b, err := kms.OpenDataDir(context.Background(), dataDir, os.Getenv(kms.MasterKeyEnv))
	if err != nil {
		t.Fatalf("open the data dir's KMS: %v", err)
	}
	if _, err := b.Create(context.Background(), proofKMSKey, "issue 39 proofs"); err != nil {
		t.Fatalf("create KMS key %s: %v", proofKMSKey, err)
	}
}

// markedObject is an object written by the ciphertext proof.
type markedObject struct {
	mode, class, key string
	marker           []byte
}

// writeMarked writes one object of every size class under every mode, each
// of a marker of its own, reads each back and returns them.
func writeMarked(t *testing.T, c *s3.Client, bucket string) []markedObject {
	t.Helper()
	ctx := context.Background()
	var objs []markedObject
	for _, m := range sseModes() {
		for _, sc := range sseSizeClasses {
			o := markedObject{mode: m.name, class: sc.name, key: m.name + "/" + sc.name, marker: make([]byte, 16)}
			rand.Read(o.marker)
			body := bytes.Repeat(o.marker, sc.size/len(o.marker))
			if sc.parts == 0 {
				in := &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(o.key), Body: bytes.NewReader(body)}
				if m.put != nil {
					m.put(in)
				}
				if _, err := c.PutObject(ctx, in); err != nil {
					t.Fatalf("%s: PutObject: %v", o.key, err)
				}
			} else {
				putMultipart(t, c, bucket, o.key, body, sc.parts, m)
			}
			in := &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(o.key)}
			if m.get != nil {
				m.get(in)
			}
			out, err := c.GetObject(ctx, in)
			if err != nil {
				t.Fatalf("%s: GetObject: %v", o.key, err)
			}
			got, err := io.ReadAll(out.Body)
			out.Body.Close()
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%s: read back %d bytes (err %v), want the %d written", o.key, len(got), err, len(body))
			}
			if m.name != "none" && out.ServerSideEncryption == "" && out.SSECustomerAlgorithm == nil {
				t.Errorf("%s: GET names no encryption", o.key)
			}
			objs = append(objs, o)
		}
	}
	return objs
}

func putMultipart(t *testing.T, c *s3.Client, bucket, key string, body []byte, parts int, m sseMode) {
	t.Helper()
	ctx := context.Background()
	cin := &s3.CreateMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key)}
	if m.create != nil {
		m.create(cin)
	}
	up, err := c.CreateMultipartUpload(ctx, cin)
	if err != nil {
		t.Fatalf("%s: CreateMultipartUpload: %v", key, err)
	}
	size := len(body) / parts
	var done []types.CompletedPart
	for i := range parts {
		pin := &s3.UploadPartInput{Bucket: aws.String(bucket), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: aws.Int32(int32(i + 1)), Body: bytes.NewReader(body[i*size : (i+1)*size])}
		if m.part != nil {
			m.part(pin)
		}
		p, err := c.UploadPart(ctx, pin)
		if err != nil {
			t.Fatalf("%s: UploadPart %d: %v", key, i+1, err)
		}
		done = append(done, types.CompletedPart{ETag: p.ETag, PartNumber: aws.Int32(int32(i + 1))})
	}
	_, err = c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(bucket), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &types.CompletedMultipartUpload{Parts: done}})
	if err != nil {
		t.Fatalf("%s: CompleteMultipartUpload: %v", key, err)
	}
}

// markerFinder searches streams for markers and records where each was
// found.
type markerFinder struct {
	markers [][]byte
	found   map[string][]string // marker → where
}

func newMarkerFinder(objs []markedObject) *markerFinder {
	f := &markerFinder{found: map[string][]string{}}
	for _, o := range objs {
		f.markers = append(f.markers, o.marker)
	}
	return f
}

// search reads r in chunks (overlapping by a marker's length less one, so
// no marker straddling two chunks is missed) and notes the markers in it.
func (f *markerFinder) search(where string, r io.Reader) error {
	const chunk = 1 << 20
	buf := make([]byte, 0, chunk+16)
	tmp := make([]byte, chunk)
	for {
		n, err := io.ReadFull(r, tmp)
		buf = append(buf, tmp[:n]...)
		for _, m := range f.markers {
			if bytes.Contains(buf, m) && !slices.Contains(f.found[string(m)], where) {
				f.found[string(m)] = append(f.found[string(m)], where)
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil
		}
		if err != nil {
			return err
		}
		keep := min(len(buf), 15)
		buf = append(buf[:0], buf[len(buf)-keep:]...)
	}
}

// searchDir searches every regular file under dir.
func (f *markerFinder) searchDir(t *testing.T, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		fh, err := os.Open(p)
		if err != nil {
			return err
		}
		defer fh.Close()
		files++
		rel, _ := filepath.Rel(dir, p)
		return f.search(rel, fh)
	})
	if err != nil {
		t.Fatalf("search %s: %v", dir, err)
	}
	t.Logf("searched %d files under the data dir", files)
}

// check fails t for every encrypted object's marker that was found and
// for every control object's marker that was not.
func (f *markerFinder) check(t *testing.T, phase string, objs []markedObject, places map[string]string) {
	t.Helper()
	for _, o := range objs {
		where := f.found[string(o.marker)]
		switch {
		case o.mode == "none" && len(where) == 0:
			t.Errorf("%s: the marker of the unencrypted control %s was not found: the search cannot see %s objects", phase, o.key, o.class)
		case o.mode != "none" && len(where) > 0:
			t.Errorf("%s: PLAINTEXT of %s (%s, %s) found in %v", phase, o.key, o.mode, o.class, where)
		case o.mode == "none" && !slices.ContainsFunc(where, func(w string) bool { return strings.HasPrefix(w, places[o.class]) }):
			t.Errorf("%s: control %s found in %v, not under %q: the size class does not store where it should", phase, o.key, where, places[o.class])
		case o.mode == "none":
			t.Logf("%s: control %s found in %v", phase, o.key, where)
		}
	}
}

// ciphertextProof writes the marked objects on a TLS server (SSE-C needs
// it) started with opts, searches the data dir (and dump, when not nil)
// while the server runs and again after it stopped. inline is where the
// metadata store keeps inline objects (a file or dump name's prefix).
func ciphertextProof(t *testing.T, inline string, dump func(t *testing.T, f *markerFinder), opts ...testutil.Option) {
	srv := testutil.StartServer(t, append([]testutil.Option{testutil.WithTLS(t), testutil.WithoutFsync()}, opts...)...)
	createProofKey(t, srv.DataDir)
	c := itest.AWSClient(t, srv)
	itest.CreateBucket(t, c, "marked")
	objs := writeMarked(t, c, "marked")

	for _, phase := range []string{"running", "stopped"} {
		if phase == "stopped" {
			srv.Stop()
		}
		f := newMarkerFinder(objs)
		f.searchDir(t, srv.DataDir)
		if dump != nil {
			dump(t, f)
		}
		f.check(t, phase, objs, sseClassPlaces(inline))
	}
}

// TestSSECiphertextOnDisk: SQLite metadata (jog.db, jog.db-wal), packs
// and blob files hold no plaintext of an encrypted object.
func TestSSECiphertextOnDisk(t *testing.T) {
	ciphertextProof(t, "jog.db", nil)
}

// TestSSECiphertextOnDiskPostgres: the same with PostgreSQL metadata, its
// tables dumped (COPY … TO STDOUT in binary format, so bytea columns come
// out as their bytes) and searched too.
func TestSSECiphertextOnDiskPostgres(t *testing.T) {
	url := pgtest.Own(t).NewDatabase(t)
	ciphertextProof(t, "postgres:", func(t *testing.T, f *markerFinder) { dumpPostgres(t, url, f) },
		func(c *config.Config) { c.Meta = url })
}

// dumpPostgres copies every table of the database at url out and searches
// each.
func dumpPostgres(t *testing.T, url string, f *markerFinder) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT schemaname, tablename FROM pg_tables
		WHERE schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var schema, table string
		if err := rows.Scan(&schema, &table); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, pgx.Identifier{schema, table}.Sanitize())
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tables) == 0 {
		t.Fatal("the PostgreSQL database has no tables")
	}
	for _, tbl := range tables {
		var buf bytes.Buffer
		if _, err := conn.PgConn().CopyTo(ctx, &buf, "COPY "+tbl+" TO STDOUT (FORMAT binary)"); err != nil {
			t.Fatalf("COPY %s: %v", tbl, err)
		}
		if err := f.search("postgres:"+tbl, &buf); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("dumped and searched %d PostgreSQL tables", len(tables))
}

// TestSSEFlippedByteOnDisk: one byte of an encrypted blob flipped on disk
// makes the GET fail — an error status, or a body cut short — and never
// serves a byte other than the one written; the server logs an error that
// names the object.
// The real binary runs, so that its log can be read.
func TestSSEFlippedByteOnDisk(t *testing.T) {
	dir := t.TempDir()
	bin := testutil.BuildJog(t, dir)
	dataDir := filepath.Join(dir, "data")
	j := testutil.StartJog(t, bin, nil, "--data-dir", dataDir, "--access-key", testutil.AccessKey,
		"--secret-key", testutil.SecretKey, "--region", testutil.Region, "--console=false",
		"--fsync", "never", "--inline-max", "0", "--pack-max", "0")
	c := j.Client(testutil.Region, testutil.AccessKey, testutil.SecretKey)
	itest.CreateBucket(t, c, "flip")
	data := itest.RandBytes(39, 1<<20)
	ctx := context.Background()
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("flip"), Key: aws.String("victim"),
		Body: bytes.NewReader(data), ServerSideEncryption: types.ServerSideEncryptionAes256}); err != nil {
		t.Fatal(err)
	}
	blobs := blobPaths(dataDir)
	if len(blobs) != 1 {
		t.Fatalf("want the one blob of the object, found %v", blobs)
	}
	flipByte(t, blobs[0], 600<<10)

	logBefore := len(j.Log.String())
	for _, rng := range []string{"", "bytes=590000-700000"} {
		t.Run(fmt.Sprintf("range=%q", rng), func(t *testing.T) {
			in := &s3.GetObjectInput{Bucket: aws.String("flip"), Key: aws.String("victim")}
			want := data
			if rng != "" {
				in.Range = aws.String(rng)
				want = data[590000 : 700000+1]
			}
			out, err := c.GetObject(ctx, in)
			if err != nil {
				t.Logf("GET refused: %v", err)
				return
			}
			got, rerr := io.ReadAll(out.Body)
			out.Body.Close()
			if !bytes.Equal(got, want[:min(len(got), len(want))]) || len(got) > len(want) {
				t.Fatalf("GET served %d bytes that are not the ones written", len(got))
			}
			if rerr == nil && len(got) == len(want) {
				t.Fatalf("GET served the whole object although a byte of its blob was flipped")
			}
			t.Logf("GET broke off after %d of %d bytes: %v", len(got), len(want), rerr)
		})
	}
	// The log line may follow the broken response by a moment.
	deadline := time.Now().Add(10 * time.Second)
	for {
		logged := j.Log.String()[logBefore:]
		if slices.ContainsFunc(strings.Split(logged, "\n"), func(l string) bool {
			return strings.Contains(l, "level=ERROR") && strings.Contains(l, "key=victim")
		}) {
			t.Logf("server log:\n%s", logged)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server logged no error naming the object whose reads failed:\n%s", logged)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// blobPaths lists the paths of the files under the blobs directory of
// dataDir (blobFiles: their names).
func blobPaths(dataDir string) []string {
	var blobs []string
	_ = filepath.WalkDir(filepath.Join(dataDir, "blobs"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			blobs = append(blobs, p)
		}
		return nil
	})
	return blobs
}

// flipByte inverts the byte at off of file p.
func flipByte(t *testing.T, p string, off int64) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}
