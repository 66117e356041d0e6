package integration

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestHostileContentLength: negative, non-numeric and overflowing
// Content-Length never reach JOG (net/http's 400); a declared 6 GiB is
// EntityTooLarge at once, for PutObject and UploadPart, without waiting
// for a single body byte.
func TestHostileContentLength(t *testing.T) {
	srv, c, keep := hostileStart(t)
	id, p1 := hostileUpload(t, c, "mp")
	for _, v := range []string{"-1", "abc", "99999999999999999999", "1 2", "0x10"} {
		req := hostileReq(t, srv, http.MethodPut, "/hostile/keep")
		hostileSign(req, sigv4.UnsignedPayload)
		resp, rb, _ := rawExchange(t, srv, req, rawHead(req, "Content-Length: "+v), strings.NewReader("evil"))
		if resp == nil || resp.StatusCode != http.StatusBadRequest || resp.Header.Get("X-Amz-Request-Id") != "" {
			t.Errorf("Content-Length %q: %v %q; want net/http's 400", v, resp, rb)
		}
	}
	// The client sends no body byte and waits for the answer: the server
	// must neither wait for the body nor, with Expect: 100-continue, ask
	// for it — whether or not JOG wrapped the body to verify a payload hash.
	for _, target := range []string{"/hostile/keep", "/hostile/huge", "/hostile/mp?partNumber=2&uploadId=" + id} {
		for _, hash := range []string{sigv4.UnsignedPayload, itest.SHA256Hex([]byte("never sent"))} {
			for _, expect := range []string{"", "Expect: 100-continue"} {
				req := hostileReq(t, srv, http.MethodPut, target)
				hostileSign(req, hash)
				extra := []string{"Content-Length: " + strconv.FormatInt(6<<30, 10)}
				if expect != "" {
					extra = append(extra, expect)
				}
				start := time.Now()
				resp, rb, _ := rawExchange(t, srv, req, rawHead(req, extra...), nil)
				if resp == nil {
					t.Fatalf("PUT %s with 6 GiB declared (%s, %q): no response", target, hash, expect)
				}
				itest.WantRawErr(t, resp, rb, http.StatusBadRequest, "EntityTooLarge")
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("PUT %s: EntityTooLarge after %v", target, d)
				}
			}
		}
	}
	wantParts(t, c, "mp", id, p1)
	itest.WantNoObject(t, c, "hostile", "huge")
	itest.WantObject(t, c, "hostile", "keep", keep)
}

// waitTemp polls the data dir's tmp/ until it holds want files (or, for
// want < 0, at least one).
func waitTemp(t *testing.T, srv *testutil.Server, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tmp, err := os.ReadDir(filepath.Join(srv.DataDir, "tmp"))
		if err != nil {
			t.Fatal(err)
		}
		if len(tmp) == want || want < 0 && len(tmp) > 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("tmp/ holds %d files, want %d", len(tmp), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHostileClientDisconnect: a client announces 4 MiB, sends 1 MiB and
// hangs up mid-upload. Nothing is stored, the temp file goes away, the
// previous version (or part) stays.
func TestHostileClientDisconnect(t *testing.T) {
	srv, c, keep := hostileStart(t)
	id, p1 := hostileUpload(t, c, "mp")
	full := itest.RandBytes(5, 4<<20)
	for _, tc := range []struct{ target, hash string }{
		{"/hostile/keep", sigv4.UnsignedPayload},
		{"/hostile/keep", itest.SHA256Hex(full)},
		{"/hostile/fresh", sigv4.UnsignedPayload},
		{"/hostile/mp?partNumber=1&uploadId=" + id, sigv4.UnsignedPayload},
		{"/hostile/mp?partNumber=2&uploadId=" + id, itest.SHA256Hex(full)},
	} {
		req := hostileReq(t, srv, http.MethodPut, tc.target)
		hostileSign(req, tc.hash)
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, rawHead(req, "Content-Length: "+strconv.Itoa(len(full)))+"\r\n"); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Write(full[:1<<20]); err != nil {
			t.Fatal(err)
		}
		waitTemp(t, srv, -1) // the server is writing the body
		conn.Close()
		waitTemp(t, srv, 0)
	}
	itest.WantObject(t, c, "hostile", "keep", keep)
	itest.WantNoObject(t, c, "hostile", "fresh")
	wantParts(t, c, "mp", id, p1)
	if _, err := c.AbortMultipartUpload(context.Background(), &s3.AbortMultipartUploadInput{Bucket: aws.String("hostile"),
		Key: aws.String("mp"), UploadId: aws.String(id)}); err != nil {
		t.Fatal(err)
	}
	itest.WantNoStrayFiles(t, srv, c)
}

// TestHostileReplay replays a captured signed request. SigV4 has no nonce:
// the identical request replayed within the 15-minute window is accepted,
// as by S3 (the write is idempotent). Changing a signed header breaks the
// signature; adding an x-amz-* header the signature does not cover is
// refused with AccessDenied, as S3 does, so a captured or presigned PUT
// cannot be turned into a copy of another object or given metadata its
// signer never sent.
func TestHostileReplay(t *testing.T) {
	srv, c, keep := hostileStart(t)
	secret := []byte("secret bytes the signer never sent")
	itest.Put(t, c, "hostile", "secret", secret)
	body := []byte("v1")
	req := hostileReq(t, srv, http.MethodPut, "/hostile/replay")
	req.Header.Set("X-Amz-Meta-A", "1")
	hostileSign(req, itest.SHA256Hex(body))
	send := func(extra ...string) (*http.Response, []byte) {
		t.Helper()
		resp, rb, _ := rawExchange(t, srv, req, rawHead(req, append(extra, "Content-Length: 2")...), bytes.NewReader(body))
		if resp == nil {
			t.Fatal("no response")
		}
		return resp, rb
	}
	for range 2 {
		if resp, rb := send(); resp.StatusCode != http.StatusOK {
			t.Fatalf("(re)played request: %d %s", resp.StatusCode, rb)
		}
	}
	orig := req.Header.Clone()
	req.Header.Set("X-Amz-Meta-A", "2")
	resp, rb := send()
	itest.WantRawErr(t, resp, rb, http.StatusForbidden, "SignatureDoesNotMatch")
	req.Header = orig

	for _, extra := range []string{
		"X-Amz-Copy-Source: /hostile/secret",
		"X-Amz-Meta-Injected: yes",
		"X-Amz-Storage-Class: GLACIER",
		"x-amz-metadata-directive: REPLACE",
	} {
		resp, rb := send(extra)
		itest.WantRawErr(t, resp, rb, http.StatusForbidden, "AccessDenied")
	}
	_, out := itest.Get(t, c, "hostile", "replay")
	if len(out.Metadata) != 1 || out.Metadata["a"] != "1" || out.StorageClass != "" {
		t.Errorf("metadata %v, storage class %q after refused replays", out.Metadata, out.StorageClass)
	}
	itest.WantObject(t, c, "hostile", "replay", body)

	// The holder of a presigned PUT URL cannot add an unsigned copy source
	// to copy an object it may not read into the key it may write.
	pre := hostileReq(t, srv, http.MethodPut, "/hostile/upload-here")
	sigv4.PresignRequest(pre, testutil.AccessKey, testutil.SecretKey, testutil.Region, time.Now(), time.Hour)
	resp, rb, _ = rawExchange(t, srv, pre, rawHead(pre, "X-Amz-Copy-Source: /hostile/secret", "Content-Length: 0"), nil)
	if resp == nil {
		t.Fatal("no response")
	}
	itest.WantRawErr(t, resp, rb, http.StatusForbidden, "AccessDenied")
	itest.WantNoObject(t, c, "hostile", "upload-here")
	resp, rb, _ = rawExchange(t, srv, pre, rawHead(pre, "Content-Length: 2"), bytes.NewReader(body))
	if resp == nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("presigned PUT as signed: %v %s", resp, rb)
	}
	sum := md5.Sum(body)
	if e := resp.Header.Get("ETag"); e != `"`+hex.EncodeToString(sum[:])+`"` {
		t.Errorf("presigned PUT ETag %s", e)
	}
	itest.WantObject(t, c, "hostile", "secret", secret)
	itest.WantObject(t, c, "hostile", "keep", keep)
}

// TestHostileHugeHeader: a header block over net/http's 1 MiB limit is 431
// before JOG sees it.
func TestHostileHugeHeader(t *testing.T) {
	srv, c, keep := hostileStart(t)
	req := hostileReq(t, srv, http.MethodPut, "/hostile/keep")
	hostileSign(req, sigv4.UnsignedPayload)
	resp, rb, _ := rawExchange(t, srv, req, rawHead(req, "X-Pad: "+strings.Repeat("p", 2<<20), "Content-Length: 4"), strings.NewReader("evil"))
	if resp == nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Fatalf("2 MiB header: %v %q", resp, rb)
	}
	itest.WantObject(t, c, "hostile", "keep", keep)
}
