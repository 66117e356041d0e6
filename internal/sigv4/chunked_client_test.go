package sigv4

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/checksum"
)

// Round trips through real clients' aws-chunked encoders (aws-sdk-go-v2,
// minio-go) into a net/http server that authenticates with Verify and
// decodes with NewChunkedReader.

// chunkedUpload is what the test server saw of one upload.
type chunkedUpload struct {
	mode      string
	decoded   int64
	announced []string
	body      []byte
	trailers  map[string]string
	err       error
}

// chunkedServer starts a server that accepts PUTs as an S3 server would.
// The uploads it saw are returned by the func.
func chunkedServer(t *testing.T, useTLS bool) (*httptest.Server, func() []chunkedUpload) {
	t.Helper()
	v := &Verifier{Region: sdkRegion, Credentials: staticCreds{sdkAccessKey: sdkSecret}}
	var mu sync.Mutex
	var seen []chunkedUpload
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		up := chunkedUpload{decoded: -1, announced: r.Header.Values("X-Amz-Trailer")}
		defer func() {
			mu.Lock()
			seen = append(seen, up)
			mu.Unlock()
		}()
		res, err := v.Verify(r)
		if err != nil {
			up.err = err
			http.Error(w, err.Error(), http.StatusForbidden)
			return
		}
		up.mode = res.PayloadHash
		if d := r.Header.Get("X-Amz-Decoded-Content-Length"); d != "" {
			up.decoded, _ = strconv.ParseInt(d, 10, 64)
		}
		cr, err := NewChunkedReader(r.Body, res, up.decoded, up.announced)
		if err != nil {
			up.err = err
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		up.body, up.err = io.ReadAll(cr)
		if up.err != nil {
			http.Error(w, up.err.Error(), http.StatusBadRequest)
			return
		}
		up.trailers = map[string]string{}
		for _, a := range checksum.Algorithms {
			if v := cr.Trailer(a.HeaderName()); v != "" {
				up.trailers[a.HeaderName()] = v
			}
		}
		sum := md5.Sum(up.body)
		w.Header().Set("ETag", `"`+hex.EncodeToString(sum[:])+`"`)
	})
	var srv *httptest.Server
	if useTLS {
		srv = httptest.NewTLSServer(h)
	} else {
		srv = httptest.NewServer(h)
	}
	t.Cleanup(srv.Close)
	return srv, func() []chunkedUpload {
		mu.Lock()
		defer mu.Unlock()
		return append([]chunkedUpload(nil), seen...)
	}
}

// checkUpload checks that the server decoded data and, when alg is set, a
// trailer carrying data's checksum.
func checkUpload(t *testing.T, name string, up chunkedUpload, mode string, data []byte, alg checksum.Algorithm) {
	t.Helper()
	if up.err != nil {
		t.Errorf("%s: server: %v", name, up.err)
		return
	}
	if up.mode != mode {
		t.Errorf("%s: client sent %s, expected %s", name, up.mode, mode)
	}
	if !bytes.Equal(up.body, data) {
		t.Errorf("%s: decoded %d bytes, sent %d", name, len(up.body), len(data))
	}
	if alg == "" {
		if len(up.trailers) != 0 {
			t.Errorf("%s: unexpected trailers %v", name, up.trailers)
		}
		return
	}
	h := alg.New()
	h.Write(data)
	if got, want := up.trailers[alg.HeaderName()], checksum.Encode(h.Sum(nil)); got != want {
		t.Errorf("%s: trailer %s = %q, want %q (trailers %v, announced %v)", name, alg.HeaderName(), got, want, up.trailers, up.announced)
	}
}

// unseekable hides bytes.Reader's Seek, as a network or pipe body would.
type unseekable struct{ io.Reader }
