package integration

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
)

func TestMinioPresigned(t *testing.T) {
	_, c, bucket := mcSetup(t)
	ctx := context.Background()
	data := mcSeeded(5, 70_000)
	const key = "pre/signed key ü+&.bin"

	// Presigned PUT with plain net/http.
	pu, err := c.PresignedPutObject(ctx, bucket, key, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPut, pu.String(), bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-presigned")
	resp := mcDo(t, req)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") != `"`+mcMD5(data)+`"` {
		t.Fatalf("presigned PUT: %s ETag %s: %s", resp.Status, resp.Header.Get("ETag"), resp.body)
	}
	st, err := c.StatObject(ctx, bucket, key, minio.StatObjectOptions{})
	if err != nil || st.Size != int64(len(data)) || st.ContentType != "application/x-presigned" {
		t.Fatalf("after presigned PUT: size %d type %q, %v", st.Size, st.ContentType, err)
	}

	// Presigned GET, with a response-* override and a Range header.
	params := url.Values{"response-content-disposition": {`attachment; filename="x.bin"`}}
	gu, err := c.PresignedGetObject(ctx, bucket, key, 5*time.Minute, params)
	if err != nil {
		t.Fatal(err)
	}
	resp = mcDo(t, mcRequest(t, http.MethodGet, gu.String()))
	if resp.StatusCode != http.StatusOK || !bytes.Equal(resp.body, data) {
		t.Fatalf("presigned GET: %s, %d bytes (equal %v)", resp.Status, len(resp.body), bytes.Equal(resp.body, data))
	}
	if cd := resp.Header.Get("Content-Disposition"); cd != `attachment; filename="x.bin"` {
		t.Errorf("response-content-disposition override: got %q", cd)
	}
	req = mcRequest(t, http.MethodGet, gu.String())
	req.Header.Set("Range", "bytes=100-199")
	resp = mcDo(t, req)
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(resp.body, data[100:200]) {
		t.Fatalf("presigned ranged GET: %s, %d bytes", resp.Status, len(resp.body))
	}

	// Presigned HEAD.
	hu, err := c.PresignedHeadObject(ctx, bucket, key, time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp = mcDo(t, mcRequest(t, http.MethodHead, hu.String()))
	if resp.StatusCode != http.StatusOK || resp.ContentLength != int64(len(data)) {
		t.Fatalf("presigned HEAD: %s length %d", resp.Status, resp.ContentLength)
	}

	// A URL signed for GET does not authorize a PUT, nor does a tampered
	// one anything.
	req, _ = http.NewRequest(http.MethodPut, gu.String(), bytes.NewReader([]byte("evil")))
	if resp = mcDo(t, req); resp.StatusCode != http.StatusForbidden || resp.code != "SignatureDoesNotMatch" {
		t.Errorf("PUT with a GET URL: %s %s, want 403 SignatureDoesNotMatch", resp.Status, resp.code)
	}
	tampered := *gu
	q := tampered.Query()
	q.Set("response-content-type", "text/html")
	tampered.RawQuery = q.Encode()
	if resp = mcDo(t, mcRequest(t, http.MethodGet, tampered.String())); resp.StatusCode != http.StatusForbidden {
		t.Errorf("GET with an added query parameter: %s, want 403", resp.Status)
	}

	// Expired URL: one second of validity, then wait it out (expiry is the
	// behaviour under test, not readiness).
	eu, err := c.PresignedGetObject(ctx, bucket, key, time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond)
	if resp = mcDo(t, mcRequest(t, http.MethodGet, eu.String())); resp.StatusCode != http.StatusForbidden || resp.code != "AccessDenied" {
		t.Errorf("expired presigned GET: %s %s, want 403 AccessDenied", resp.Status, resp.code)
	}

	// Presigned GET of a missing key.
	mu, err := c.PresignedGetObject(ctx, bucket, "missing", time.Minute, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp = mcDo(t, mcRequest(t, http.MethodGet, mu.String())); resp.StatusCode != http.StatusNotFound || resp.code != "NoSuchKey" {
		t.Errorf("presigned GET of a missing key: %s %s, want 404 NoSuchKey", resp.Status, resp.code)
	}
}
