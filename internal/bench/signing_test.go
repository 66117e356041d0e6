package bench

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/s3client"
	"github.com/jogstore/jog/internal/testutil"
)

// TestSigningModes uploads with every signing mode against a real JOG
// server, in every key shape: PUTs of sizes around the 64 KiB chunk size
// (one chunk, several, an empty body) and a multipart upload must succeed,
// and every prepared object must read back byte for byte (--verify).
func TestSigningModes(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync())
	for i, mode := range SigningModes {
		t.Run(mode, func(t *testing.T) {
			ctx := t.Context()
			cfg := smokeConfig(s.URL, s.Config.AccessKey, s.Config.SecretKey)
			cfg.Signing, cfg.Keys = mode, KeyShapes[i%len(KeyShapes)]
			cfg.Workload, cfg.Objects, cfg.Ops = "get", 6, 12
			cfg.Size = SizeRange{0, 3*chunkSize + 17}
			b, err := Open(ctx, cfg, cfg.Concurrency, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close(ctx)
			r, err := b.Run(ctx, cfg)
			checkResult(t, r, err)
			if r.Config.Signing != mode || r.Config.Keys != cfg.Keys {
				t.Errorf("result config says keys %q signing %q, want %q %q", r.Config.Keys, r.Config.Signing, cfg.Keys, mode)
			}
			for _, exact := range []int64{0, 1, chunkSize, 2 * chunkSize} {
				key := "exact/" + strconv.FormatInt(exact, 10)
				if err := b.client.PutObject(ctx, b.bucket, key, exact); err != nil {
					t.Fatalf("PUT %d bytes: %v", exact, err)
				}
				if n, _, err := b.client.GetObject(ctx, b.bucket, key, true); err != nil || n != exact {
					t.Fatalf("GET %d bytes: got %d, %v", exact, n, err)
				}
			}
			mp := cfg
			mp.Workload, mp.Ops, mp.Size, mp.PartSize, mp.PartConcurrency = "multipart", 1, SizeRange{5<<20 + 1000, 5<<20 + 1000}, 5<<20, 2
			r, err = b.Run(ctx, mp)
			checkResult(t, r, err)
		})
	}
}

// TestSigningTampered sends each signing mode's body with one byte changed
// where the mode protects it, and expects the server to refuse it: the
// client really signs chunks, checksums trailers and hashes payloads.
func TestSigningTampered(t *testing.T) {
	s := testutil.StartServer(t, testutil.WithoutFsync())
	cases := []struct {
		mode, find, code string
		skip             int // bytes after find to the byte changed
	}{
		{SigningStreaming, ";chunk-signature=", "SignatureDoesNotMatch", 30},
		{SigningTrailer, "x-amz-checksum-crc32:", "BadDigest", 2},
		{SigningSigned, "", "XAmzContentSHA256Mismatch", 1000},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			ctx := t.Context()
			cfg := smokeConfig(s.URL, s.Config.AccessKey, s.Config.SecretKey)
			cfg.Signing = c.mode
			b, err := Open(ctx, cfg, 1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close(ctx)
			cl, key, size := b.client, "tampered", int64(2*chunkSize+5)
			send := func(tamper bool) *http.Response {
				req, err := http.NewRequestWithContext(ctx, http.MethodPut, cl.url(b.bucket, key, "").String(), nil)
				if err != nil {
					t.Fatal(err)
				}
				req.ContentLength = size
				cl.signBody(req, cl.payload.Reader(key, 0, size), size, time.Now())
				var body []byte
				if req.Body != nil {
					body, _ = io.ReadAll(req.Body)
				} else {
					body, _ = io.ReadAll(cl.payload.Reader(key, 0, size))
				}
				if tamper {
					i := bytes.Index(body, []byte(c.find)) + len(c.find) + c.skip
					body[i] ^= 1 // hex and base64 digits stay digits of their kind, or near
				}
				req.Body = io.NopCloser(bytes.NewReader(body))
				resp, err := cl.hc.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				return resp
			}
			resp := send(false)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("untampered PUT: status %d", resp.StatusCode)
			}
			resp = send(true)
			err = s3client.ReadError(resp)
			resp.Body.Close()
			if e, ok := err.(*S3Error); !ok || e.Code != c.code {
				t.Fatalf("tampered PUT: status %d, %v; want %s", resp.StatusCode, err, c.code)
			}
		})
	}
}
