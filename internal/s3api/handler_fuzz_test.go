package s3api

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sse"
)

// The handler fuzz targets drive the real Handler over a real Service
// (SQLite + disk blobs in a temp dir, fsync off) with requests parsed from
// raw bytes by net/http's own parser and signed with SigV4, so they get past
// authentication and reach the operations.

const (
	fuzzAccessKey = "FUZZACCESSKEY0000001"
	fuzzSecretKey = "fuzz-secret-key-000000000000000000000000"
	fuzzRegion    = "us-east-1"
	fuzzBucket    = "fuzz"
	fuzzUploadKey = "mp"
	// maxFuzzBody bounds one request body (and maxFuzzHeader the header
	// block): the inputs stay small, and every allocation with them.
	maxFuzzBody   = 64 << 10
	maxFuzzHeader = 8 << 10
	// uploadPlaceholder in a target or body is replaced by the ID of the
	// standing multipart upload of fuzzBucket/fuzzUploadKey.
	uploadPlaceholder = "{upload}"
)

// fuzzObjects are the objects every exec starts from.
var fuzzObjects = map[string]string{
	"k": "hello world", "dir/a": "a", "dir/b": "bb", "x&y<z>": "xml", "日本": "nihon", "sp ace": "",
}

// fuzzParts are the parts of the standing upload: both small, so a
// completion naming both fails with EntityTooSmall and one naming a single
// part succeeds.
var fuzzParts = []string{"part-one", "part-two"}

type fuzzServer struct {
	h      *Handler
	svc    *service.Service
	meta   *sqlite.Store // what leak checks ask the metadata directly
	blobs  *disk.Store
	root   string // holds only dir
	dir    string // the data dir
	upload string
}

func newFuzzServer(f testing.TB) *fuzzServer {
	ctx := context.Background()
	root := f.TempDir()
	dir := filepath.Join(root, "data")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		f.Fatal(err)
	}
	m, err := sqlite.OpenWith(ctx, filepath.Join(dir, "jog.db"), sqlite.Options{NoSync: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { m.Close() })
	blobs, err := disk.Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	blobs.NoSync = true
	log := slog.New(slog.DiscardHandler)
	svc := service.New(m, blobs, log)
	h := New(svc, Config{Region: fuzzRegion, Logger: log,
		Credentials: StaticCredentials{fuzzAccessKey: fuzzSecretKey}})
	return &fuzzServer{h: h, svc: svc, meta: m, blobs: blobs, root: root, dir: dir}
}

// reset restores the starting state: the bucket, fuzzObjects with their
// contents, and an upload in progress holding fuzzParts.
func (s *fuzzServer) reset(t *testing.T) {
	ctx := context.Background()
	if _, err := s.svc.GetBucket(ctx, fuzzBucket); errors.Is(err, meta.ErrBucketNotFound) {
		if err := s.svc.CreateBucket(ctx, fuzzBucket, fuzzRegion, fuzzAccessKey); err != nil {
			t.Fatal(err)
		}
	} else if err != nil {
		t.Fatal(err)
	}
	for k, v := range fuzzObjects {
		if o, err := s.svc.HeadObject(ctx, fuzzBucket, k, "", false); err == nil && o.ETag == md5Hex(v) && o.PartsCount == 0 {
			continue
		}
		if _, err := s.svc.PutObject(ctx, service.PutInput{Bucket: fuzzBucket, Key: k, Body: strings.NewReader(v),
			Size: int64(len(v)), Owner: fuzzAccessKey}); err != nil {
			t.Fatal(err)
		}
	}
	if s.upload != "" {
		if _, err := s.svc.GetUpload(ctx, fuzzBucket, fuzzUploadKey, s.upload); err == nil {
			parts, _, err := s.svc.ListParts(ctx, fuzzBucket, fuzzUploadKey, s.upload, 0, 10)
			if err == nil && len(parts) == len(fuzzParts) && parts[0].ETag == md5Hex(fuzzParts[0]) && parts[1].ETag == md5Hex(fuzzParts[1]) {
				return
			}
		}
		_ = s.svc.AbortUpload(ctx, fuzzBucket, fuzzUploadKey, s.upload, time.Time{})
	}
	u, err := s.svc.CreateUpload(ctx, meta.Upload{Bucket: fuzzBucket, Key: fuzzUploadKey, Owner: fuzzAccessKey}, sse.Request{})
	if err != nil {
		t.Fatal(err)
	}
	s.upload = u.UploadID
	for i, p := range fuzzParts {
		if _, err := s.svc.UploadPart(ctx, service.PartInput{Bucket: fuzzBucket, Key: fuzzUploadKey, UploadID: s.upload,
			Number: i + 1, Body: strings.NewReader(p), Size: int64(len(p))}); err != nil {
			t.Fatal(err)
		}
	}
}

func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// Payload modes of a fuzzed request (mode % 8): how it is signed.
const (
	payloadUnsigned  = iota // x-amz-content-sha256: UNSIGNED-PAYLOAD
	payloadSHA256           // the SHA-256 of the body
	payloadWrongHash        // the SHA-256 of something else
	payloadStreamingUnsignedTrailer
	payloadStreamingSigned // chunk signatures will not verify
	payloadPresigned       // presigned query instead of a header
	payloadSHA256NoLength  // as payloadSHA256, without Content-Length
	payloadUnsigned2
)

// buildRequest parses method, target, header lines and body as net/http's
// server would, then signs the request. ok is false for requests the HTTP
// server itself refuses before any handler runs, or inputs over the bounds.
func (s *fuzzServer) buildRequest(method, target, headers string, body []byte, mode uint8) (*http.Request, bool) {
	if len(body) > maxFuzzBody || len(headers) > maxFuzzHeader || !validToken(method) {
		return nil, false
	}
	target = strings.ReplaceAll(target, uploadPlaceholder, s.upload)
	body = bytes.ReplaceAll(body, []byte(uploadPlaceholder), []byte(s.upload))
	var raw bytes.Buffer
	raw.WriteString(method + " " + target + " HTTP/1.1\r\nHost: s3.test\r\n")
	hasLength := false
	for _, line := range strings.Split(headers, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if line == "" {
			continue
		}
		name, _, _ := strings.Cut(line, ":")
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "host":
			return nil, false // net/http refuses a second Host header
		case "content-length", "transfer-encoding":
			hasLength = true
		}
		raw.WriteString(line + "\r\n")
	}
	mode %= 8
	if !hasLength && mode != payloadSHA256NoLength {
		raw.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	raw.WriteString("\r\n")
	raw.Write(body)
	r, err := http.ReadRequest(bufio.NewReader(&raw))
	if err != nil {
		return nil, false
	}
	for k, vs := range r.Header {
		if !validToken(k) {
			return nil, false
		}
		for _, v := range vs {
			if !validHeaderValue(v) {
				return nil, false
			}
		}
	}
	r = r.WithContext(context.Background())
	r.RemoteAddr = "127.0.0.1:1"
	now := time.Now()
	switch mode {
	case payloadUnsigned, payloadUnsigned2:
		sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, sigv4.UnsignedPayload)
	case payloadSHA256, payloadSHA256NoLength:
		sum := sha256.Sum256(body)
		sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, hex.EncodeToString(sum[:]))
	case payloadWrongHash:
		sum := sha256.Sum256(append([]byte("x"), body...))
		sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, hex.EncodeToString(sum[:]))
	case payloadStreamingUnsignedTrailer:
		sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, sigv4.StreamingUnsignedPayloadTrailer)
	case payloadStreamingSigned:
		sigv4.SignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, sigv4.StreamingPayload)
	case payloadPresigned:
		sigv4.PresignRequest(r, fuzzAccessKey, fuzzSecretKey, fuzzRegion, now, time.Hour)
		r.RequestURI = r.URL.RequestURI()
	}
	return r, true
}

func validToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// validHeaderValue is net/http's rule: no control bytes but tab.
func validHeaderValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// serve runs one request and checks what must hold after any request.
func (s *fuzzServer) serve(t *testing.T, r *http.Request) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, r)
	s.check(t, r, rec)
	return rec
}

// check asserts the invariants of every response and of the data dir:
// no 5xx but 501; S3 error documents on errors; request IDs; well-formed
// XML; Content-Length honoured; no temp file left, no file outside the
// data layout, no committed blob that no metadata refers to.
func (s *fuzzServer) check(t *testing.T, r *http.Request, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.Bytes()
	status := rec.Code
	if status >= 500 && status != http.StatusNotImplemented {
		t.Fatalf("%s %s: %d %s", r.Method, r.URL, status, body)
	}
	if rec.Header().Get("X-Amz-Request-Id") == "" {
		t.Fatalf("%s %s: no x-amz-request-id", r.Method, r.URL)
	}
	switch {
	case r.Method == http.MethodHead || status == http.StatusNotModified || status == http.StatusNoContent:
		if len(body) != 0 {
			t.Fatalf("%s %s: %d with a %d-byte body", r.Method, r.URL, status, len(body))
		}
	case status >= 300:
		var e struct {
			XMLName xml.Name `xml:"Error"`
			Code    string   `xml:"Code"`
		}
		if err := xml.Unmarshal(body, &e); err != nil || e.Code == "" {
			t.Fatalf("%s %s: %d with body %q: not an S3 error (%v)", r.Method, r.URL, status, body, err)
		}
	case rec.Header().Get("Content-Type") == "application/xml":
		dec := xml.NewDecoder(bytes.NewReader(body))
		for {
			if _, err := dec.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s %s: malformed XML response %q: %v", r.Method, r.URL, body, err)
			}
		}
	}
	if v := rec.Header().Get("Content-Length"); v != "" && r.Method != http.MethodHead && status < 300 {
		if n, err := strconv.Atoi(v); err != nil || n != len(body) {
			t.Fatalf("%s %s: Content-Length %s, body %d bytes", r.Method, r.URL, v, len(body))
		}
	}

	if tmp, err := os.ReadDir(filepath.Join(s.dir, "tmp")); err != nil || len(tmp) != 0 {
		t.Fatalf("%s %s: temp files left: %v %v", r.Method, r.URL, tmp, err)
	}
	if top, _ := os.ReadDir(s.root); len(top) != 1 || top[0].Name() != "data" {
		t.Fatalf("%s %s: files next to the data dir: %v", r.Method, r.URL, top)
	}
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		if !slices.Contains([]string{"blobs", "tmp", "packs", "jog.db", "jog.db-wal", "jog.db-shm"}, e.Name()) {
			t.Fatalf("%s %s: unexpected file %s in the data dir", r.Method, r.URL, e.Name())
		}
	}
	var ids []string // blob files and records in packs
	if err := s.blobs.Walk(context.Background(), func(b blob.Info) error { ids = append(ids, b.ID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) > 0 {
		orphans, err := s.meta.UnreferencedBlobs(context.Background(), ids)
		if err != nil || len(orphans) > 0 {
			t.Fatalf("%s %s: leaked blobs %v (%v)", r.Method, r.URL, orphans, err)
		}
	}
}

// FuzzS3Request sends arbitrary signed requests — method, path, query,
// header lines, body and payload signing mode — to the handler. Beyond the
// invariants check asserts, the server must not crash or hang.
func FuzzS3Request(f *testing.F) {
	const xmlDelete = `<Delete><Object><Key>k</Key></Object><Object><Key>missing</Key></Object></Delete>`
	complete := `<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"` + md5Hex(fuzzParts[0]) + `"</ETag></Part></CompleteMultipartUpload>`
	seeds := []struct {
		method, target, headers, body string
		mode                          uint8
	}{
		{"GET", "/", "", "", payloadSHA256},
		{"PUT", "/newbucket", "", "", payloadSHA256},
		{"PUT", "/newbucket2", "", `<CreateBucketConfiguration><LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>`, payloadSHA256},
		{"PUT", "/..", "", "", payloadSHA256},
		{"HEAD", "/fuzz", "", "", payloadSHA256},
		{"DELETE", "/fuzz", "", "", payloadSHA256},
		{"GET", "/fuzz?location", "", "", payloadSHA256},
		{"GET", "/fuzz?list-type=2&prefix=d&delimiter=/&max-keys=1&fetch-owner=true&encoding-type=url", "", "", payloadSHA256},
		{"GET", "/fuzz?list-type=2&list-type=1&continuation-token=AWs", "", "", payloadSHA256},
		{"GET", "/fuzz?marker=a&max-keys=2", "", "", payloadUnsigned},
		{"GET", "/fuzz?uploads&prefix=m&delimiter=p&key-marker=a&upload-id-marker=0", "", "", payloadSHA256},
		{"POST", "/fuzz?delete", "Content-MD5: " + "1B2M2Y8AsgTpgAmY7PhCfg==", xmlDelete, payloadSHA256},
		{"POST", "/fuzz?delete", "", xmlDelete, payloadSHA256},
		{"PUT", "/fuzz/new", "Content-Type: text/plain\nX-Amz-Meta-Color: blue\nCache-Control: no-cache", "new body", payloadSHA256},
		{"PUT", "/fuzz/k", "If-None-Match: *", "again", payloadSHA256},
		{"PUT", "/fuzz/k", "If-Match: \"" + md5Hex("hello world") + "\"\nX-Amz-Storage-Class: GLACIER", "replaced", payloadUnsigned},
		{"PUT", "/fuzz/sum", "X-Amz-Checksum-Crc32: DUoRhQ==\nContent-MD5: XUFAKrxLKna5cZ2REBfFkg==", "hello", payloadSHA256},
		{"PUT", "/fuzz/chunked", "Content-Encoding: aws-chunked\nX-Amz-Decoded-Content-Length: 5\nX-Amz-Trailer: x-amz-checksum-crc32",
			"5\r\nhello\r\n0\r\nx-amz-checksum-crc32:NhCmhg==\r\n\r\n", payloadStreamingUnsignedTrailer},
		{"PUT", "/fuzz/chunked", "X-Amz-Decoded-Content-Length: 5", "5;chunk-signature=00\r\nhello\r\n0;chunk-signature=00\r\n\r\n", payloadStreamingSigned},
		{"PUT", "/fuzz/short", "Content-Length: 100", "only a few bytes", payloadUnsigned},
		{"PUT", "/fuzz/te", "Transfer-Encoding: chunked", "5\r\nhello\r\n0\r\n\r\n", payloadUnsigned},
		{"PUT", "/fuzz/bad", "", "tampered", payloadWrongHash},
		{"PUT", "/fuzz/%FF", "", "x", payloadSHA256},
		{"PUT", "/fuzz/..%2F..%2Fetc%2Fpasswd", "", "x", payloadSHA256},
		{"PUT", "/fuzz/../../etc/passwd", "", "x", payloadSHA256},
		{"PUT", "/fuzz/%2e%2e%2f%2e%2e%2fx", "", "x", payloadSHA256},
		{"PUT", "/fuzz/copy", "X-Amz-Copy-Source: /fuzz/k\nX-Amz-Metadata-Directive: REPLACE\nX-Amz-Copy-Source-If-Match: *", "", payloadSHA256},
		{"PUT", "/fuzz/copy", "X-Amz-Copy-Source: fuzz/dir%2Fa?versionId=null", "", payloadSHA256},
		{"GET", "/fuzz/k", "Range: bytes=2-5", "", payloadSHA256},
		{"GET", "/fuzz/k", "Range: bytes=-3\nIf-None-Match: \"x\"\nIf-Modified-Since: Mon, 02 Jan 2006 15:04:05 GMT", "", payloadSHA256},
		{"GET", "/fuzz/k?partNumber=1&response-content-type=text/html&versionId=null", "X-Amz-Checksum-Mode: ENABLED", "", payloadSHA256},
		{"GET", "/fuzz/k?attributes", "X-Amz-Object-Attributes: ETag,Checksum,ObjectParts,StorageClass,ObjectSize\nX-Amz-Max-Parts: 1", "", payloadSHA256},
		{"HEAD", "/fuzz/k", "If-Match: nope", "", payloadSHA256},
		{"DELETE", "/fuzz/k", "If-Match: \"x\"", "", payloadSHA256},
		{"DELETE", "/fuzz/k", "If-Match: *\nX-Amz-If-Match-Size: 11\nX-Amz-If-Match-Last-Modified-Time: Mon, 02 Jan 2006 15:04:05 GMT", "", payloadSHA256},
		{"DELETE", "/fuzz/k", "X-Amz-If-Match-Size: -1", "", payloadSHA256},
		{"PUT", "/fuzz/k", "If-Match: *\nContent-Encoding: deflate, aws-chunked, GZIP", "replaced", payloadSHA256},
		{"PUT", "/fuzz/te", "Transfer-Encoding: chunked\nContent-MD5: XUFAKrxLKna5cZ2REBfFkg==", "5\r\nhello\r\n0\r\n\r\n", payloadSHA256},
		{"DELETE", "/fuzz/dir/a", "", "", payloadSHA256},
		{"GET", "/fuzz/k", "", "", payloadPresigned},
		{"POST", "/fuzz/new?uploads", "X-Amz-Checksum-Algorithm: CRC32\nX-Amz-Checksum-Type: FULL_OBJECT", "", payloadSHA256},
		{"PUT", "/fuzz/mp?partNumber=3&uploadId=" + uploadPlaceholder, "", "part three", payloadSHA256},
		{"PUT", "/fuzz/mp?partNumber=3&uploadId=" + uploadPlaceholder, "X-Amz-Copy-Source: /fuzz/k\nX-Amz-Copy-Source-Range: bytes=0-4", "", payloadSHA256},
		{"PUT", "/fuzz/mp?partNumber=1&uploadId=a&uploadId=" + uploadPlaceholder, "", "dup", payloadSHA256},
		{"GET", "/fuzz/mp?uploadId=" + uploadPlaceholder + "&max-parts=1&part-number-marker=0", "", "", payloadSHA256},
		{"POST", "/fuzz/mp?uploadId=" + uploadPlaceholder, "", complete, payloadSHA256},
		{"POST", "/fuzz/mp?uploadId=" + uploadPlaceholder, "If-None-Match: *", complete, payloadSHA256},
		{"DELETE", "/fuzz/mp?uploadId=" + uploadPlaceholder, "", "", payloadSHA256},
		{"GET", "/fuzz?versioning", "", "", payloadSHA256},
		{"PATCH", "/fuzz/k", "", "", payloadSHA256},
		{"GET", "/fuzz/k", "X-Amz-Date: 20000101T000000Z", "", payloadSHA256},
	}
	for _, s := range seeds {
		f.Add(s.method, s.target, s.headers, []byte(s.body), s.mode)
	}
	s := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, method, target, headers string, body []byte, mode uint8) {
		s.reset(t)
		r, ok := s.buildRequest(method, target, headers, body, mode)
		if !ok {
			return
		}
		s.serve(t, r)
	})
}

// listKeys returns every key of the fuzz bucket.
func (s *fuzzServer) listKeys(t *testing.T) []string {
	page, err := s.svc.ListObjects(context.Background(), fuzzBucket, meta.ListOptions{Limit: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range page.Objects {
		keys = append(keys, o.Key)
	}
	return keys
}

// Plain encoding/xml decodings of the request documents, independent of
// the handlers' own decoders: the differential oracle of the XML targets.
type plainDelete struct {
	XMLName xml.Name `xml:"Delete"`
	Quiet   bool     `xml:"Quiet"`
	Objects []struct {
		Key       string `xml:"Key"`
		VersionID string `xml:"VersionId"`
		ETag      string `xml:"ETag"`
	} `xml:"Object"`
}

type plainComplete struct {
	XMLName xml.Name `xml:"CompleteMultipartUpload"`
	Parts   []struct {
		PartNumber int    `xml:"PartNumber"`
		ETag       string `xml:"ETag"`
	} `xml:"Part"`
}

type fuzzErr struct {
	Code string `xml:"Code"`
}

func errCode(rec *httptest.ResponseRecorder) string {
	var e fuzzErr
	_ = xml.Unmarshal(rec.Body.Bytes(), &e)
	return e.Code
}

// FuzzDeleteObjectsXML posts arbitrary DeleteObjects documents. Whatever
// the body, exactly the keys it names (as a plain encoding/xml decoding
// reads it) are deleted, and nothing at all when the request is refused;
// a document plain decoding refuses, or with no or over 1000 objects, is
// MalformedXML.
func FuzzDeleteObjectsXML(f *testing.F) {
	for _, b := range []string{
		`<Delete><Object><Key>k</Key></Object></Delete>`,
		`<Delete xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Quiet>true</Quiet><Object><Key>dir/a</Key></Object><Object><Key>x&amp;y&lt;z></Key></Object></Delete>`,
		`<Delete><Quiet>false</Quiet><Object><Key>日本</Key><ETag>"` + md5Hex("nihon") + `"</ETag></Object><Object><Key>sp ace</Key><ETag>"00"</ETag></Object></Delete>`,
		`<Delete><Object><Key>missing</Key><VersionId>null</VersionId></Object><Object><Key>dir/b</Key><VersionId>v1</VersionId></Object></Delete>`,
		`<Delete><Object><Key>k</Key><Size>11</Size><LastModifiedTime>2006-01-02T15:04:05.000Z</LastModifiedTime></Object><Object><Key>dir/a</Key><ETag>*</ETag><Size>0</Size></Object></Delete>`,
		`<Delete><Object><Key>k</Key><Size>x</Size></Object><Object><Key>dir/a</Key><LastModifiedTime>yesterday</LastModifiedTime></Object></Delete>`,
		`<Delete><Object/></Delete>`, `<Delete><Quiet>yes</Quiet></Delete>`, `<Other><Object><Key>k</Key></Object></Other>`,
		`<s3:Delete xmlns:s3="http://s3.amazonaws.com/doc/2006-03-01/"><s3:Object><s3:Key>k</s3:Key></s3:Object></s3:Delete>`,
		`<Delete><Object><Key></Key></Object></Delete>`, `<Delete><Object><Key>` + strings.Repeat("k", 1025) + `</Key></Object></Delete>`,
		`<Delete><Object><Key>k</Key></Object><Junk><Object><Key>dir/a</Key></Object></Junk></Delete>`,
		`<Delete><Object><Key>k</Key></Object>` + strings.Repeat(`<Object><Key>n</Key></Object>`, 1000) + `</Delete>`,
		"",
	} {
		f.Add([]byte(b))
	}
	s := newFuzzServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		s.reset(t)
		before := s.listKeys(t)
		r, ok := s.buildRequest("POST", "/"+fuzzBucket+"?delete", "", body, payloadSHA256)
		if !ok {
			return
		}
		rec := s.serve(t, r)
		after := s.listKeys(t)
		var plain plainDelete
		perr := xml.Unmarshal(body, &plain)
		if perr != nil || len(plain.Objects) == 0 || len(plain.Objects) > maxDeleteObjects {
			if rec.Code != http.StatusBadRequest || errCode(rec) != "MalformedXML" {
				t.Fatalf("body plain decoding refuses (%v, %d objects): %d %s", perr, len(plain.Objects), rec.Code, rec.Body)
			}
		}
		if rec.Code != http.StatusOK {
			if !slices.Equal(before, after) {
				t.Fatalf("refused DeleteObjects (%d %s) changed the keys %q to %q", rec.Code, rec.Body, before, after)
			}
			return
		}
		if perr != nil {
			t.Fatalf("DeleteObjects accepted a body plain decoding refuses: %v", perr)
		}
		var res struct {
			Deleted []struct {
				Key       string
				VersionID string `xml:"VersionId"`
			} `xml:"Deleted"`
			Errors []struct{ Key, Code string } `xml:"Error"`
		}
		if err := xml.Unmarshal(rec.Body.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		failed := map[string]bool{}
		for _, e := range res.Errors {
			failed[e.Key] = true
		}
		named := map[string]bool{}
		for _, o := range plain.Objects {
			// Only the null version exists: naming another deletes nothing.
			if o.VersionID == "" || o.VersionID == meta.NullVersion {
				named[o.Key] = true
			}
		}
		for _, k := range before {
			gone := !slices.Contains(after, k)
			if gone && !named[k] || !gone && named[k] && !failed[k] {
				t.Fatalf("key %q: deleted=%v, named in the request=%v, reported failed=%v (response %s)", k, gone, named[k], failed[k], rec.Body)
			}
		}
		for _, d := range res.Deleted {
			if (d.VersionID == "" || d.VersionID == meta.NullVersion) && slices.Contains(after, d.Key) {
				t.Fatalf("key %q reported deleted but still listed (response %s)", d.Key, rec.Body)
			}
		}
		if !plain.Quiet && len(res.Deleted)+len(res.Errors) != len(plain.Objects) {
			t.Fatalf("%d objects named, %d deleted + %d errors reported", len(plain.Objects), len(res.Deleted), len(res.Errors))
		}
	})
}

// FuzzCompleteMultipartUploadXML posts arbitrary completion documents for
// an upload holding two small parts. Success means plain decoding names
// parts and the object now exists with the reported ETag and the upload is
// gone; any refusal is a 4xx S3 error that leaves the upload, its parts and
// the previous object as they were.
func FuzzCompleteMultipartUploadXML(f *testing.F) {
	part := func(n int, etag string) string {
		return `<Part><PartNumber>` + strconv.Itoa(n) + `</PartNumber><ETag>"` + etag + `"</ETag></Part>`
	}
	e1, e2 := md5Hex(fuzzParts[0]), md5Hex(fuzzParts[1])
	for _, b := range []string{
		`<CompleteMultipartUpload>` + part(1, e1) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(2, e2) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(1, e1) + part(2, e2) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(2, e2) + part(1, e1) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(1, e2) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(3, e1) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(0, e1) + part(-1, e1) + part(10001, e1) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload>` + part(1, e1) + part(1, e1) + `</CompleteMultipartUpload>`,
		`<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>` + e1 + `</ETag><ChecksumCRC64NVME>AAAAAAAAAAA=</ChecksumCRC64NVME></Part></CompleteMultipartUpload>`,
		`<CompleteMultipartUpload><Part><PartNumber>x</PartNumber></Part></CompleteMultipartUpload>`,
		`<CompleteMultipartUpload></CompleteMultipartUpload>`, `<CompleteMultipartUpload>`, `<Other/>`, "",
	} {
		f.Add([]byte(b))
	}
	s := newFuzzServer(f)
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte) {
		s.reset(t)
		prev, prevErr := s.svc.HeadObject(ctx, fuzzBucket, fuzzUploadKey, "", false)
		r, ok := s.buildRequest("POST", "/"+fuzzBucket+"/"+fuzzUploadKey+"?uploadId="+uploadPlaceholder, "", body, payloadSHA256)
		if !ok {
			return
		}
		rec := s.serve(t, r)
		var plain plainComplete
		perr := xml.Unmarshal(body, &plain)
		if perr != nil && (rec.Code != http.StatusBadRequest || errCode(rec) != "MalformedXML") {
			t.Fatalf("body plain decoding refuses (%v): %d %s", perr, rec.Code, rec.Body)
		}
		_, uerr := s.svc.GetUpload(ctx, fuzzBucket, fuzzUploadKey, s.upload)
		o, oerr := s.svc.HeadObject(ctx, fuzzBucket, fuzzUploadKey, "", false)
		if rec.Code == http.StatusOK {
			var res struct{ ETag string }
			_ = xml.Unmarshal(rec.Body.Bytes(), &res)
			if perr != nil || len(plain.Parts) == 0 || !errors.Is(uerr, meta.ErrUploadNotFound) || oerr != nil ||
				`"`+o.ETag+`"` != res.ETag || o.UploadID != s.upload {
				t.Fatalf("completion succeeded (%s) but: plain decoding %v with %d parts, upload %v, object %+v %v",
					rec.Body, perr, len(plain.Parts), uerr, o, oerr)
			}
			return
		}
		if rec.Code/100 != 4 {
			t.Fatalf("completion: %d %s", rec.Code, rec.Body)
		}
		if uerr != nil || (oerr == nil) != (prevErr == nil) || o.ETag != prev.ETag {
			t.Fatalf("refused completion (%s) changed state: upload %v, object %+v %v, before %+v %v", rec.Body, uerr, o, oerr, prev, prevErr)
		}
	})
}

// FuzzCreateBucketXML sends arbitrary CreateBucketConfiguration bodies. A
// bucket is created only for an empty body or a document plain decoding
// reads with no or this region's LocationConstraint; anything else is a 400
// S3 error and creates nothing.
func FuzzCreateBucketXML(f *testing.F) {
	for _, b := range []string{
		`<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>us-east-1</LocationConstraint></CreateBucketConfiguration>`,
		`<CreateBucketConfiguration><LocationConstraint>eu-west-1</LocationConstraint></CreateBucketConfiguration>`,
		`<CreateBucketConfiguration/>`, `<CreateBucketConfiguration><LocationConstraint/></CreateBucketConfiguration>`,
		`<CreateBucketConfiguration><Bucket><Type>Directory</Type></Bucket></CreateBucketConfiguration>`,
		`<CreateBucketConfiguration><LocationConstraint>`, `<Other/>`, "not xml", "",
	} {
		f.Add([]byte(b))
	}
	s := newFuzzServer(f)
	ctx := context.Background()
	const bucket = "fuzz-created"
	f.Fuzz(func(t *testing.T, body []byte) {
		r, ok := s.buildRequest("PUT", "/"+bucket, "", body, payloadSHA256)
		if !ok {
			return
		}
		rec := s.serve(t, r)
		_, berr := s.svc.GetBucket(ctx, bucket)
		var plain createBucketConfiguration
		perr := xml.Unmarshal(body, &plain)
		valid := len(body) == 0 || perr == nil && (plain.LocationConstraint == "" || plain.LocationConstraint == fuzzRegion)
		if valid != (rec.Code == http.StatusOK) || (berr == nil) != valid {
			t.Fatalf("body plain decoding reads as %+v, %v: %d %s, bucket lookup %v", plain, perr, rec.Code, rec.Body, berr)
		}
		if !valid && rec.Code != http.StatusBadRequest {
			t.Fatalf("refused with %d %s", rec.Code, rec.Body)
		}
		if berr == nil {
			if err := s.svc.DeleteBucket(ctx, bucket); err != nil {
				t.Fatal(err)
			}
		}
	})
}
