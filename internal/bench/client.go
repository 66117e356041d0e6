package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/s3client"
	"github.com/jogstore/jog/internal/sigv4"
)

// Client is a lean S3 client for load generation: one shared transport
// whose idle pool holds at least one connection per worker, SigV4 header
// signing, request bodies from the shared Payload (sent as the signing mode
// says: UNSIGNED-PAYLOAD by default, see signing.go), response bodies read
// into pooled buffers.
type Client struct {
	endpoints []*url.URL    // requests take turns (several gateways of one namespace)
	next      atomic.Uint64 // the turn
	accessKey string
	secretKey string
	region    string
	pathStyle bool
	hc        *http.Client
	payload   *Payload
	signing   string            // how PUT and UploadPart bodies are signed (SigningModes)
	sse       map[string]string // headers of new objects (Config.SSE), nil for none
	// reservation is sent as qos.Header on the data requests (GET, PUT,
	// UploadPart) when set (Config.Reservation).
	reservation string
	bufs        sync.Pool // *[]byte, 256 KiB
}

// NewClient builds a client for cfg's endpoint. conns is the number of
// requests that may be in flight at once; the idle pool keeps that many.
func NewClient(cfg Config, payload *Payload, conns int) (*Client, error) {
	us, err := cfg.Endpoints()
	if err != nil {
		return nil, err
	}
	c := &Client{
		endpoints: us,
		accessKey: cfg.AccessKey,
		secretKey: cfg.SecretKey,
		region:    cfg.Region,
		pathStyle: cfg.PathStyle,
		payload:   payload,
		signing:   cfg.Signing,
		sse:       cfg.sseHeaders(),
	}
	c.reservation = cfg.Reservation
	c.bufs.New = func() any { b := make([]byte, 256<<10); return &b }
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			// Virtual-hosted style: connect to the endpoint's own address
			// for <bucket>.<endpoint host>, so no wildcard DNS is needed.
			if _, rest, ok := strings.Cut(addr, "."); ok && !c.pathStyle {
				for _, u := range us {
					if rest == endpointAddr(u) {
						addr = rest
					}
				}
			}
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &bodyConn{Conn: conn, bufs: &c.bufs}, nil
		},
		MaxIdleConns:          len(us) * (conns + 16),
		MaxIdleConnsPerHost:   conns + 16, // the default of 2 exhausts ports under load
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
		DisableCompression:    true,
		WriteBufferSize:       64 << 10,
		ReadBufferSize:        64 << 10,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: cfg.InsecureTLS},
		// HTTP/1.1 only: one connection per worker, as S3 clients do, rather
		// than every worker multiplexed onto one HTTP/2 connection.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	c.hc = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// endpointAddr is u's host:port, with the scheme's default port.
func endpointAddr(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	if u.Scheme == "https" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// bodyConn copies request bodies to the connection through pooled 256 KiB
// buffers. The transport hands a body to the connection's ReadFrom, and
// (*net.TCPConn).ReadFrom copies anything but a file or socket through a
// fresh 32 KiB buffer per request.
type bodyConn struct {
	net.Conn
	bufs *sync.Pool
}

func (c *bodyConn) ReadFrom(r io.Reader) (int64, error) {
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	return io.CopyBuffer(struct{ io.Writer }{c.Conn}, r, *bp)
}

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// S3Error is an error response from the server.
type S3Error = s3client.Error

// request is one S3 call.
type request struct {
	method, bucket, key, query string
	body                       io.Reader // nil: no body
	size                       int64
	getBody                    func() io.Reader // replays body for transport retries
	header                     map[string]string
	data                       bool // a data request: carries the reservation
}

func (c *Client) url(bucket, key, query string) *url.URL {
	ep := c.endpoints[0]
	if len(c.endpoints) > 1 {
		ep = c.endpoints[c.next.Add(1)%uint64(len(c.endpoints))]
	}
	u := &url.URL{Scheme: ep.Scheme, Host: ep.Host, RawQuery: query}
	base := strings.TrimSuffix(ep.Path, "/")
	switch {
	case bucket == "":
		u.Path = base + "/"
	case c.pathStyle:
		u.Path = base + "/" + bucket + "/" + key
		if key == "" {
			u.Path = base + "/" + bucket
		}
	default:
		u.Host = bucket + "." + ep.Host
		u.Path = base + "/" + key
	}
	return u
}

// do sends r and returns the response once its headers are in, with the time
// that took (the time to first byte). Error statuses become *S3Error with the
// body consumed and closed.
func (c *Client) do(ctx context.Context, r request) (*http.Response, time.Duration, error) {
	req := &http.Request{
		Method:     r.method,
		URL:        c.url(r.bucket, r.key, r.query),
		Header:     make(http.Header, 4),
		Proto:      "HTTP/1.1",
		ProtoMajor: 1,
		ProtoMinor: 1,
	}
	req.Host = req.URL.Host
	req = req.WithContext(ctx)
	if r.body != nil {
		req.ContentLength = r.size
		req.Body = io.NopCloser(r.body)
		if r.size == 0 {
			req.Body = http.NoBody
		}
		if gb := r.getBody; gb != nil {
			req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(gb()), nil }
		}
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.data && c.reservation != "" {
		req.Header.Set(qos.Header, c.reservation) // signed like every other header
	}
	start := time.Now()
	if src, ok := r.body.(*PayloadReader); ok {
		c.signBody(req, src, r.size, start) // an object's or a part's bytes
	} else {
		sigv4.SignRequest(req, c.accessKey, c.secretKey, c.region, start, sigv4.UnsignedPayload)
	}
	resp, err := c.hc.Do(req)
	ttfb := time.Since(start)
	if err != nil {
		return nil, ttfb, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, ttfb, s3client.ReadError(resp)
	}
	return resp, ttfb, nil
}

// drain reads the body to the end into a pooled buffer, feeding w when not
// nil, and closes it.
func (c *Client) drain(body io.ReadCloser, w io.Writer) (int64, error) {
	defer body.Close()
	bp := c.bufs.Get().(*[]byte)
	defer c.bufs.Put(bp)
	var n int64
	for {
		k, err := body.Read(*bp)
		n += int64(k)
		if w != nil && k > 0 {
			_, _ = w.Write((*bp)[:k])
		}
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// PutObject uploads size bytes of key's payload.
func (c *Client) PutObject(ctx context.Context, bucket, key string, size int64) error {
	resp, _, err := c.do(ctx, request{ //nolint:bodyclose // c.drain closes it
		method: http.MethodPut, bucket: bucket, key: key, size: size, header: c.sse, data: true,
		body:    c.payload.Reader(key, 0, size),
		getBody: func() io.Reader { return c.payload.Reader(key, 0, size) },
	})
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// GetObject downloads key, discarding the bytes or, with verify, checking
// them against the payload and the ETag. It returns the byte count and the
// time to first byte.
func (c *Client) GetObject(ctx context.Context, bucket, key string, verify bool) (int64, time.Duration, error) {
	return c.GetRange(ctx, bucket, key, 0, -1, verify)
}

// GetRange downloads n bytes of key from off (n < 0: the whole object,
// with its ETag checked when verifying) and returns the byte count and the
// time to first byte.
func (c *Client) GetRange(ctx context.Context, bucket, key string, off, n int64, verify bool) (int64, time.Duration, error) {
	r := request{method: http.MethodGet, bucket: bucket, key: key, data: true}
	if n >= 0 {
		r.header = map[string]string{"Range": "bytes=" + strconv.FormatInt(off, 10) + "-" + strconv.FormatInt(off+n-1, 10)}
	}
	resp, ttfb, err := c.do(ctx, r) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return 0, ttfb, err
	}
	var v *verifier
	var w io.Writer
	switch {
	case verify && n < 0:
		v = c.payload.verifier(key)
		w = v
	case verify:
		v = c.payload.rangeVerifier(key, off)
		w = v
	}
	got, err := c.drain(resp.Body, w)
	if err == nil && resp.ContentLength >= 0 && got != resp.ContentLength {
		err = fmt.Errorf("GET %s: read %d bytes of %d: %w", key, got, resp.ContentLength, io.ErrUnexpectedEOF)
	}
	if err == nil && n >= 0 && got != n {
		err = fmt.Errorf("GET %s range %d+%d: got %d bytes (status %d)", key, off, n, got, resp.StatusCode)
	}
	if err == nil && v != nil {
		err = v.check(resp.Header.Get("ETag"))
	}
	return got, ttfb, err
}

// HeadObject returns key's size.
func (c *Client) HeadObject(ctx context.Context, bucket, key string) (int64, error) {
	resp, _, err := c.do(ctx, request{method: http.MethodHead, bucket: bucket, key: key})
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.ContentLength, nil
}

// DeleteObject deletes key.
func (c *Client) DeleteObject(ctx context.Context, bucket, key string) error {
	resp, _, err := c.do(ctx, request{method: http.MethodDelete, bucket: bucket, key: key}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// CreateBucket creates bucket; an existing bucket we own is not an error.
func (c *Client) CreateBucket(ctx context.Context, bucket string) error {
	var body io.Reader
	var size int64
	if c.region != "us-east-1" {
		x := `<CreateBucketConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><LocationConstraint>` +
			c.region + `</LocationConstraint></CreateBucketConfiguration>`
		body, size = strings.NewReader(x), int64(len(x))
	}
	resp, _, err := c.do(ctx, request{method: http.MethodPut, bucket: bucket, body: body, size: size}) //nolint:bodyclose // c.drain closes it
	if e, ok := err.(*S3Error); ok && e.Code == "BucketAlreadyOwnedByYou" {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// HeadBucket checks that a bucket exists and may be used.
func (c *Client) HeadBucket(ctx context.Context, bucket string) error {
	resp, _, err := c.do(ctx, request{method: http.MethodHead, bucket: bucket}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// DeleteBucket deletes an empty bucket.
func (c *Client) DeleteBucket(ctx context.Context, bucket string) error {
	resp, _, err := c.do(ctx, request{method: http.MethodDelete, bucket: bucket}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return err
	}
	_, err = c.drain(resp.Body, nil)
	return err
}

// ListPage is one ListObjectsV2 response.
type ListPage struct {
	Keys      []string
	Prefixes  []string // common prefixes, when listed with a delimiter
	NextToken string   // "" on the last page
	// Received is the time from sending the request to the response's last
	// byte: the server's part, without the client's parsing.
	Received time.Duration
}

// ListObjects lists one page of keys under prefix, continuing from token.
func (c *Client) ListObjects(ctx context.Context, bucket, prefix, token string, maxKeys int) (ListPage, error) {
	return c.ListDelimited(ctx, bucket, prefix, "", token, maxKeys)
}

// ListDelimited is ListObjects with a delimiter ("" for none): keys that
// have it after the prefix are rolled up into Prefixes.
func (c *Client) ListDelimited(ctx context.Context, bucket, prefix, delimiter, token string, maxKeys int) (ListPage, error) {
	q := url.Values{"list-type": {"2"}, "prefix": {prefix}, "max-keys": {strconv.Itoa(maxKeys)}}
	if delimiter != "" {
		q.Set("delimiter", delimiter)
	}
	if token != "" {
		q.Set("continuation-token", token)
	}
	body, received, err := c.getListing(ctx, bucket, q)
	if err != nil {
		return ListPage{}, err
	}
	p, err := parseListPage(body)
	p.Received = received
	return p, err
}

// getListing sends a listing request with query q and returns the body and
// the time to its last byte.
func (c *Client) getListing(ctx context.Context, bucket string, q url.Values) ([]byte, time.Duration, error) {
	start := time.Now()
	resp, _, err := c.do(ctx, request{method: http.MethodGet, bucket: bucket, query: strings.ReplaceAll(q.Encode(), "+", "%20")}) //nolint:bodyclose // c.drain closes it
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	if _, err := c.drain(resp.Body, &buf); err != nil {
		return nil, 0, err
	}
	return buf.Bytes(), time.Since(start), nil
}
