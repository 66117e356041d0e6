package service

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/sse/format"
)

// sealTest is a service whose built-in KMS keeps its keys in the
// service's data dir, as a server's does, with its log kept.
type sealTest struct {
	s   *Service
	b   *disk.Store
	kms *kms.Builtin
	dir string
	// log is what the service logged, read by the goroutine whose reads
	// log (the handler serialises its writes).
	log *bytes.Buffer
}

// kmsKey is the named SSE-KMS key of newSealTest's KMS.
const kmsKey = "app"

func newSealTest(t *testing.T, inlineMax int) *sealTest {
	t.Helper()
	dir := t.TempDir()
	k, err := kms.OpenDataDir(t.Context(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Create(t.Context(), kmsKey, "test key"); err != nil {
		t.Fatal(err)
	}
	log := &bytes.Buffer{}
	s, b := newTestServiceIn(t, dir, slog.New(slog.NewTextHandler(log, nil)), Options{InlineMax: inlineMax, Keys: sse.NewKeys(k)})
	return &sealTest{s: s, b: b, kms: k, dir: dir, log: log}
}

var (
	customerKey  = bytes.Repeat([]byte{0x5c}, kms.DataKeySize)
	customerKey2 = bytes.Repeat([]byte{0xa7}, kms.DataKeySize)
)

// sseModes are a request of every mode.
func sseModes() []sse.Request {
	return []sse.Request{
		{Mode: sse.ModeS3},
		{Mode: sse.ModeKMS, KeyID: kmsKey, Context: kms.Context{"team": "blue"}},
		{Mode: sse.ModeC, CustomerKey: customerKey},
	}
}

// testBytes returns n bytes that repeat nowhere (seeded by n and seed).
func testBytes(n int, seed uint64) []byte {
	b := make([]byte, n)
	var s [32]byte
	s[0], s[1] = byte(n), byte(seed)
	s[2], s[3] = byte(n>>8), byte(n>>16)
	_, _ = rand.NewChaCha8(s).Read(b) // never fails
	return b
}

func (st *sealTest) put(t *testing.T, key string, data []byte, known bool, req sse.Request) meta.Object {
	t.Helper()
	var body io.Reader = bytes.NewReader(data)
	size := int64(len(data))
	if !known {
		body, size = onlyReader{body}, -1
	}
	o, err := st.s.PutObject(t.Context(), PutInput{Bucket: "b", Key: key, Body: body, Size: size, SSE: req})
	if err != nil {
		t.Fatalf("put %s: %v", key, err)
	}
	return o
}

// get reads key whole (Read) and checks it is want.
func (st *sealTest) get(t *testing.T, key string, customerKey, want []byte) {
	t.Helper()
	_, r, err := st.s.OpenObject(t.Context(), "b", key, "", customerKey)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("%s: read %d bytes (%v), want the %d written", key, len(got), err, len(want))
	}
}

// checkRanges reads ranges of key (CopyRange, as GET does) around every
// boundary in bounds (packages, parts) and checks them against want.
func (st *sealTest) checkRanges(t *testing.T, key string, customerKey, want []byte, bounds ...int) {
	t.Helper()
	n := len(want)
	_, r, err := st.s.OpenObject(t.Context(), "b", key, "", customerKey)
	if err != nil {
		t.Fatalf("open %s: %v", key, err)
	}
	defer r.Close()
	var offs []int
	for _, b := range append(bounds, 0, n) {
		offs = append(offs, b-1, b, b+1)
	}
	for _, off := range offs {
		for _, l := range []int{1, 17, format.PackageSize + 3, n - off} {
			if off < 0 || l <= 0 || off+l > n {
				continue
			}
			var buf bytes.Buffer
			m, err := r.CopyRange(&buf, int64(off), int64(l))
			if err != nil || m != int64(l) || !bytes.Equal(buf.Bytes(), want[off:off+l]) {
				t.Fatalf("%s: range [%d, +%d): %d bytes (%v), not the bytes written", key, off, l, m, err)
			}
		}
	}
}

func readKey(req sse.Request) []byte {
	if req.Mode == sse.ModeC {
		return req.CustomerKey
	}
	return nil
}

// checkETag: SSE-S3's ETag is the plaintext's MD5, as S3's; SSE-C's and
// SSE-KMS's is not.
func checkETag(t *testing.T, what, mode, etag string, data []byte) {
	t.Helper()
	sum := md5.Sum(data)
	if isMD5 := etag == hex.EncodeToString(sum[:]); isMD5 != (mode == "" || mode == sse.ModeS3) || len(etag) != 32 {
		t.Errorf("%s (%s): ETag %s, the plaintext's MD5 %v", what, mode, etag, isMD5)
	}
}

// TestSSERoundTrip: under every mode, objects of every size class (empty,
// inline, a pack record, a blob file; of known and unknown length) read
// back as written, whole and in ranges across packages; the metadata says
// how they are sealed, and what is stored is the sealed size.
func TestSSERoundTrip(t *testing.T) {
	const inlineMax = 4096
	st := newSealTest(t, inlineMax)
	ctx := t.Context()
	overhead := int(format.HeaderSize + format.TagSize)
	sizes := []int{0, 1, inlineMax - overhead, inlineMax - overhead + 1, format.PackageSize - 1, format.PackageSize, format.PackageSize + 1, 1<<20 + 7}
	for _, req := range sseModes() {
		for _, n := range sizes {
			for _, known := range []bool{true, false} {
				key := fmt.Sprintf("%s/%d/%v", req.Mode, n, known)
				data := testBytes(n, 1)
				o := st.put(t, key, data, known, req)
				if o.Encryption.Mode != req.Mode || o.Size != int64(n) {
					t.Fatalf("%s: stored as %q, %d bytes", key, o.Encryption.Mode, o.Size)
				}
				checkETag(t, key, req.Mode, o.ETag, data)
				st.get(t, key, readKey(req), data)
				st.checkRanges(t, key, readKey(req), data, format.PackageSize)
				stored, err := sse.StoredSize(int64(n))
				if err != nil {
					t.Fatal(err)
				}
				h, err := st.s.HeadObject(ctx, "b", key, "", false)
				if err != nil {
					t.Fatal(err)
				}
				switch {
				case n == 0:
					if h.BlobID != "" || len(h.Inline) != 0 {
						t.Errorf("%s: an empty object stored bytes", key)
					}
				case stored <= inlineMax:
					if int64(len(h.Inline)) != stored || h.BlobID != "" {
						t.Errorf("%s: %d inline bytes (blob %q), want %d inline", key, len(h.Inline), h.BlobID, stored)
					}
				default:
					if got := st.blobSize(t, h.BlobID); len(h.Inline) != 0 || got != stored {
						t.Errorf("%s: blob of %d bytes (%d inline), want %d", key, got, len(h.Inline), stored)
					}
				}
			}
		}
	}
}

func (st *sealTest) blobSize(t *testing.T, id string) int64 {
	t.Helper()
	f, err := st.b.Open(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	n, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// multipart uploads parts of the given sizes to key under req and
// completes it, returning the object and its bytes.
func (st *sealTest) multipart(t *testing.T, key string, req sse.Request, sizes ...int) (meta.Object, []byte) {
	t.Helper()
	ctx := t.Context()
	u, err := st.s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: key}, req)
	if err != nil {
		t.Fatal(err)
	}
	if u.Encryption.Mode != req.Mode {
		t.Fatalf("%s: upload sealed as %q, want %q", key, u.Encryption.Mode, req.Mode)
	}
	var parts []CompletedPart
	var whole []byte
	for i, n := range sizes {
		data := testBytes(n, uint64(i))
		p, err := st.s.UploadPart(ctx, PartInput{Bucket: "b", Key: key, UploadID: u.UploadID, Number: i + 1,
			Body: bytes.NewReader(data), Size: int64(n), CustomerKey: readKey(req)})
		if err != nil {
			t.Fatalf("%s: part %d: %v", key, i+1, err)
		}
		checkETag(t, fmt.Sprintf("%s part %d", key, i+1), req.Mode, p.ETag, data)
		parts = append(parts, CompletedPart{Number: p.Number, ETag: p.ETag})
		whole = append(whole, data...)
	}
	o, err := st.s.CompleteUpload(ctx, CompleteInput{Bucket: "b", Key: key, UploadID: u.UploadID, Parts: parts, ObjectSize: -1})
	if err != nil {
		t.Fatalf("%s: complete: %v", key, err)
	}
	if o.Encryption.Mode != req.Mode || o.Size != int64(len(whole)) {
		t.Fatalf("%s: completed as %q, %d bytes", key, o.Encryption.Mode, o.Size)
	}
	return o, whole
}

// TestSSEMultipart: every part of an upload is sealed under its own key;
// the object reads back whole and in ranges across parts and packages,
// and one of a single empty part reads as empty.
func TestSSEMultipart(t *testing.T) {
	st := newSealTest(t, 4096)
	for _, req := range sseModes() {
		key := "mp/" + req.Mode
		_, whole := st.multipart(t, key, req, MinPartSize, MinPartSize+1, 100<<10)
		st.get(t, key, readKey(req), whole)
		st.checkRanges(t, key, readKey(req), whole, MinPartSize, 2*MinPartSize+1)
	}
	for _, req := range append(sseModes(), sse.Request{}) { // one empty part: nothing stored
		key := "mp-empty/" + req.Mode
		_, whole := st.multipart(t, key, req, 0)
		st.get(t, key, readKey(req), whole)
	}
}

// TestSSEPartKeys: an SSE-C upload takes parts only with its key, and
// one of another mode refuses an SSE-C key.
func TestSSEPartKeys(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	data := testBytes(1000, 0)
	upload := func(key string, req sse.Request) string {
		u, err := st.s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: key}, req)
		if err != nil {
			t.Fatal(err)
		}
		return u.UploadID
	}
	for _, tc := range []struct {
		name string
		req  sse.Request
		key  []byte
		want error
	}{
		{"SSE-C without its key", sse.Request{Mode: sse.ModeC, CustomerKey: customerKey}, nil, kms.ErrSSECRequired},
		{"SSE-C with another key", sse.Request{Mode: sse.ModeC, CustomerKey: customerKey}, customerKey2, kms.ErrSSECPartKey},
		{"SSE-S3 with a customer key", sse.Request{Mode: sse.ModeS3}, customerKey, kms.ErrSSECNotApplicable},
		{"plain with a customer key", sse.Request{}, customerKey, kms.ErrSSECNotApplicable},
	} {
		id := upload(tc.name, tc.req)
		_, err := st.s.UploadPart(ctx, PartInput{Bucket: "b", Key: tc.name, UploadID: id, Number: 1,
			Body: bytes.NewReader(data), Size: int64(len(data)), CustomerKey: tc.key})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: UploadPart: %v, want %v", tc.name, err, tc.want)
		}
		_, _, err = st.s.UploadPartCopy(ctx, PartCopyInput{Bucket: "b", Key: tc.name, UploadID: id, Number: 1,
			SrcBucket: "b", SrcKey: "src", CustomerKey: tc.key})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: UploadPartCopy: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// TestSSECustomerKeyOnRead: an SSE-C object opens only with its key; an
// object of another mode refuses one.
func TestSSECustomerKeyOnRead(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	for _, n := range []int{100, 200 << 10} {
		st.put(t, "c", testBytes(n, 0), true, sse.Request{Mode: sse.ModeC, CustomerKey: customerKey})
		st.put(t, "s3", testBytes(n, 0), true, sse.Request{Mode: sse.ModeS3})
		for _, tc := range []struct {
			key  string
			ck   []byte
			want error
		}{
			{"c", nil, kms.ErrSSECRequired},
			{"c", customerKey2, kms.ErrSSECWrongKey},
			{"s3", customerKey, kms.ErrSSECNotApplicable},
		} {
			if _, _, err := st.s.OpenObject(ctx, "b", tc.key, "", tc.ck); !errors.Is(err, tc.want) {
				t.Errorf("%d bytes: open %s: %v, want %v", n, tc.key, err, tc.want)
			}
		}
	}
}

// TestSSEWithoutKMS: a service without a KMS refuses SSE-S3 and SSE-KMS
// writes and serves SSE-C.
func TestSSEWithoutKMS(t *testing.T) {
	s, _ := newTestService(t, 4096)
	ctx := t.Context()
	for _, req := range sseModes()[:2] {
		_, err := s.PutObject(ctx, PutInput{Bucket: "b", Key: "k", Body: strings.NewReader("x"), Size: 1, SSE: req})
		if !errors.Is(err, kms.ErrUnavailable) {
			t.Errorf("%s put without a KMS: %v", req.Mode, err)
		}
		if _, err := s.CreateUpload(ctx, meta.Upload{Bucket: "b", Key: "k"}, req); !errors.Is(err, kms.ErrUnavailable) {
			t.Errorf("%s upload without a KMS: %v", req.Mode, err)
		}
	}
	st := &sealTest{s: s}
	data := testBytes(70_000, 3)
	st.put(t, "c", data, true, sse.Request{Mode: sse.ModeC, CustomerKey: customerKey})
	st.get(t, "c", customerKey, data)
}

// TestSSEBodyChecks: a sealed body's length, Content-MD5 and checksum are
// checked against its plaintext; a body that fails leaves nothing behind.
func TestSSEBodyChecks(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	for _, req := range sseModes() {
		for _, n := range []int{100, 200 << 10, 2 << 20} {
			data := testBytes(n, 7)
			sum := md5.Sum(data)
			bad := md5.Sum(data[1:])
			for _, tc := range []struct {
				name string
				body []byte
				size int64
				md5  []byte
				want error
			}{
				{"short", data[:n-1], int64(n), nil, ErrIncompleteBody},
				{"long", append(data, 'x'), int64(n), nil, ErrIncompleteBody},
				{"bad MD5", data, int64(n), bad[:], ErrBadDigest},
				{"bad MD5, unknown length", data, -1, bad[:], ErrBadDigest},
				{"its MD5", data, int64(n), sum[:], nil},
			} {
				_, err := st.s.PutObject(ctx, PutInput{Bucket: "b", Key: "k", Body: bytes.NewReader(tc.body), Size: tc.size, ContentMD5: tc.md5, SSE: req})
				if !errors.Is(err, tc.want) {
					t.Errorf("%s, %d bytes, %s: %v, want %v", req.Mode, n, tc.name, err, tc.want)
				}
				if blobs := countBlobs(t, st.b); tc.want != nil && blobs != 0 {
					t.Errorf("%s, %d bytes, %s: %d blobs left", req.Mode, n, tc.name, blobs)
				}
			}
			st.get(t, "k", readKey(req), data)
			if _, err := st.s.DeleteObject(ctx, "b", "k", "", "", meta.Condition{}); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestSSEKMSKeyDisabled: an object whose KMS key is disabled neither
// reads nor copies (kms.ErrDisabled), and no write seals under that key;
// enabled again, it reads as written.
func TestSSEKMSKeyDisabled(t *testing.T) {
	st := newSealTest(t, 4096)
	ctx := t.Context()
	req := sseModes()[1]
	data := testBytes(200<<10, 8)
	st.put(t, "k", data, true, req)
	if err := st.kms.SetEnabled(ctx, kmsKey, false); err != nil {
		t.Fatal(err)
	}
	if _, _, err := st.s.OpenObject(ctx, "b", "k", "", nil); !errors.Is(err, kms.ErrDisabled) {
		t.Errorf("read with the key disabled: %v", err)
	}
	if _, _, err := st.s.CopyObject(ctx, CopyInput{SrcBucket: "b", SrcKey: "k", Dst: PutInput{Bucket: "b", Key: "copy"}}); !errors.Is(err, kms.ErrDisabled) {
		t.Errorf("copy with the key disabled: %v", err)
	}
	_, err := st.s.PutObject(ctx, PutInput{Bucket: "b", Key: "new", Body: bytes.NewReader(data), Size: int64(len(data)), SSE: req})
	if !errors.Is(err, kms.ErrDisabled) {
		t.Errorf("write with the key disabled: %v", err)
	}
	if err := st.kms.SetEnabled(ctx, kmsKey, true); err != nil {
		t.Fatal(err)
	}
	st.get(t, "k", nil, data)
}
