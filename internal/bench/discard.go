package bench

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DiscardHandler is a minimal S3 endpoint that stores nothing: it answers
// every request with success, discards uploaded bodies, and serves a GET as
// zeros of the length last PUT for that key (or 1 MiB). It checks no
// signature. It exists to measure the client's own ceiling: whatever the
// bench reaches against it is the most it can measure on this machine.
type DiscardHandler struct {
	sizes sync.Map // path → int64
	zero  []byte
	bufs  sync.Pool
}

// NewDiscardHandler returns a DiscardHandler.
func NewDiscardHandler() *DiscardHandler {
	h := &DiscardHandler{zero: make([]byte, 256<<10)}
	h.bufs.New = func() any { b := make([]byte, 256<<10); return &b }
	return h
}

const discardETag = `"00000000000000000000000000000000"`

func (h *DiscardHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bucketOnly := strings.Count(strings.Trim(r.URL.Path, "/"), "/") == 0
	q := r.URL.Query()
	switch r.Method {
	case http.MethodPut:
		n := h.discard(r.Body)
		if !bucketOnly && !q.Has("partNumber") {
			h.sizes.Store(r.URL.Path, n)
		}
		w.Header().Set("ETag", discardETag)
	case http.MethodPost:
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/xml")
		if q.Has("uploads") {
			_, _ = io.WriteString(w, `<InitiateMultipartUploadResult><UploadId>discard</UploadId></InitiateMultipartUploadResult>`)
		} else {
			_, _ = io.WriteString(w, `<CompleteMultipartUploadResult><ETag>"0-1"</ETag></CompleteMultipartUploadResult>`)
		}
	case http.MethodDelete:
		h.sizes.Delete(r.URL.Path)
		w.WriteHeader(http.StatusNoContent)
	case http.MethodGet, http.MethodHead:
		if bucketOnly {
			w.Header().Set("Content-Type", "application/xml")
			_, _ = io.WriteString(w, `<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>`)
			return
		}
		size := int64(1 << 20)
		if v, ok := h.sizes.Load(r.URL.Path); ok {
			size = v.(int64)
		}
		w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		w.Header().Set("ETag", `"discard-1"`)
		if r.Method == http.MethodHead {
			return
		}
		for size > 0 {
			n, err := w.Write(h.zero[:min(size, int64(len(h.zero)))])
			if err != nil {
				return
			}
			size -= int64(n)
		}
	}
}

// discard reads body to the end in large reads (io.Discard's ReadFrom
// would read 8 KiB at a time) and returns its length.
func (h *DiscardHandler) discard(body io.Reader) int64 {
	bp := h.bufs.Get().(*[]byte)
	defer h.bufs.Put(bp)
	var n int64
	for {
		k, err := body.Read(*bp)
		n += int64(k)
		if err != nil {
			return n
		}
	}
}

// SelfTest measures the client's ceiling: PUT and GET of 1 KiB and 1 MiB
// objects at concurrency 16 against an in-process DiscardHandler on a
// loopback port, d per run. Client and server share this machine's cores,
// so the numbers are a lower bound on the client alone.
func SelfTest(ctx context.Context, d time.Duration, opts Options) ([]*Result, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: NewDiscardHandler(), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	cfg := DefaultConfig()
	cfg.Endpoint = "http://" + ln.Addr().String()
	cfg.AccessKey, cfg.SecretKey = "selftest", "selftest"
	cfg.Bucket, cfg.Label, cfg.Duration, cfg.Objects = "selftest", "discard", d, 64
	b, err := Open(ctx, cfg, cfg.Concurrency, opts)
	if err != nil {
		return nil, err
	}
	defer b.Close(context.WithoutCancel(ctx))
	var out []*Result
	for _, size := range []int64{1 << 10, 1 << 20} {
		for _, wl := range []string{"put", "get"} {
			c := cfg
			c.Workload, c.Size = wl, SizeRange{size, size}
			r, err := b.Run(ctx, c)
			if r != nil {
				r.Label = "discard " + wl
				out = append(out, r)
			}
			if err != nil {
				return out, errors.Join(err, ctx.Err())
			}
		}
	}
	return out, nil
}
