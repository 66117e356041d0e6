package cp

import (
	"context"
	"crypto/tls"
	"encoding/xml"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/s3client"
	"github.com/jogstore/jog/internal/sigv4"
)

// ClientConfig says where and as whom a Client talks.
type ClientConfig struct {
	Endpoint     string // http(s)://host:port
	AccessKey    string
	SecretKey    string
	SessionToken string
	Region       string
	// VirtualHost addresses buckets as bucket.host; the default is
	// path-style (host/bucket/key), which JOG, MinIO and AWS all take.
	VirtualHost bool
	InsecureTLS bool
	// Reservation, when set, is sent as qos.Header on every GET,
	// PUT and UploadPart.
	Reservation string
	// Conns is the number of requests that may be in flight at once; the
	// idle pool keeps that many connections.
	Conns int
}

// Client is a lean S3 client: one transport with a connection per stream,
// SigV4 header signing with UNSIGNED-PAYLOAD (the body's integrity is
// carried by x-amz-checksum-* instead of a SHA-256 over every byte).
type Client struct {
	cfg      ClientConfig
	endpoint *url.URL
	hc       *http.Client
}

// NewClient returns a client for cfg.
func NewClient(cfg ClientConfig) (*Client, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("invalid endpoint %q: want http(s)://host[:port]", cfg.Endpoint)
	}
	if cfg.Region == "" {
		cfg.Region = sigv4.DefaultRegion
	}
	conns := max(cfg.Conns, 1)
	dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		Proxy: http.ProxyFromEnvironment,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := dialer.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return fileConn{conn}, nil
		},
		MaxIdleConns:          conns + 4,
		MaxIdleConnsPerHost:   conns + 4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 5 * time.Minute,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		WriteBufferSize:       256 << 10,
		ReadBufferSize:        256 << 10,
		TLSClientConfig:       &tls.Config{InsecureSkipVerify: cfg.InsecureTLS},
		// HTTP/1.1: one connection per stream, so parallel parts really run
		// on parallel connections.
		TLSNextProto: map[string]func(string, *tls.Conn) http.RoundTripper{},
	}
	return &Client{cfg: cfg, endpoint: u, hc: &http.Client{Transport: tr}}, nil
}

// Close drops idle connections.
func (c *Client) Close() { c.hc.CloseIdleConnections() }

// S3Error is an error answer from the server.
type S3Error = s3client.Error

// request is one S3 call.
type request struct {
	method, bucket, key string
	query               url.Values
	header              http.Header
	// body opens the request body; it is called again for a transport
	// retry. A *sectionBody goes out with sendfile (fileConn). nil: no
	// body.
	body func() (io.ReadCloser, error)
	size int64
	data bool // a data request: carries the reservation
}

func (c *Client) url(bucket, key string, q url.Values) *url.URL {
	u := &url.URL{Scheme: c.endpoint.Scheme, Host: c.endpoint.Host}
	if q != nil {
		u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	}
	base := strings.TrimSuffix(c.endpoint.Path, "/")
	switch {
	case bucket == "":
		u.Path = base + "/"
	case c.cfg.VirtualHost:
		u.Host = bucket + "." + c.endpoint.Host
		u.Path = base + "/" + key
	default:
		u.Path = base + "/" + bucket + "/" + key
	}
	return u
}

// do sends r and returns the response once its headers are in. An error
// status becomes *S3Error with the body consumed and closed.
func (c *Client) do(ctx context.Context, r request) (*http.Response, error) {
	u := c.url(r.bucket, r.key, r.query)
	req := &http.Request{Method: r.method, URL: u, Host: u.Host, Header: r.header,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1}
	if req.Header == nil {
		req.Header = make(http.Header, 6)
	}
	req = req.WithContext(ctx)
	if r.body != nil {
		body, err := r.body()
		if err != nil {
			return nil, err
		}
		req.Body, req.ContentLength, req.GetBody = body, r.size, r.body
		if r.size == 0 {
			body.Close()
			req.Body = http.NoBody
		}
	}
	if r.data && c.cfg.Reservation != "" {
		req.Header.Set(qos.Header, c.cfg.Reservation) // signed like every other header
	}
	if c.cfg.SessionToken != "" {
		req.Header.Set(sigv4.SecurityTokenHeader, c.cfg.SessionToken)
	}
	sigv4.SignRequest(req, c.cfg.AccessKey, c.cfg.SecretKey, c.cfg.Region, time.Now(), sigv4.UnsignedPayload)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		return nil, s3client.ReadError(resp)
	}
	return resp, nil
}

// Send sends one S3 request of the caller's making (bucket replication
// builds its own: internal/bucketrepl/delivery) and returns the response
// once its headers are in; an error status is *S3Error, its body read and
// closed. body is opened once per attempt (nil: no body); a data request
// carries the reservation.
func (c *Client) Send(ctx context.Context, method, bucket, key string, q url.Values, h http.Header, body func() (io.ReadCloser, error), size int64) (*http.Response, error) {
	return c.do(ctx, request{method: method, bucket: bucket, key: key, query: q, header: h, body: body, size: size, data: body != nil})
}

// doXML sends r and decodes a 200 answer's XML body into v (nil: discard
// it). S3 may answer a long CompleteMultipartUpload 200 with an <Error>.
func (c *Client) doXML(ctx context.Context, r request, v any) (http.Header, error) {
	resp, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if err := s3client.ErrorIn(resp.StatusCode, body); err != nil {
		return nil, err
	}
	if v != nil {
		if err := xml.Unmarshal(body, v); err != nil {
			return nil, fmt.Errorf("%s %s: malformed answer: %w", r.method, r.key, err)
		}
	}
	return resp.Header, nil
}

// ObjectInfo is what HEAD says about an object.
type ObjectInfo struct {
	Size int64
	ETag string // with its quotes removed
	// Checksum is the stored x-amz-checksum-* (algorithm and S3's base64
	// value, a COMPOSITE one with its "-N"), when the server sent one.
	Algorithm, Checksum, ChecksumType string
	PartsCount                        int // x-amz-mp-parts-count (HEAD with partNumber)
	// Encryption is how the server keeps the object: "AES256", "aws:kms",
	// "SSE-C" (a customer key), or "" (as sent).
	Encryption string
}

// Head returns key's size, ETag and stored checksum (x-amz-checksum-mode:
// ENABLED). part > 0 asks about that part, which also answers the number
// of parts. ck is the object's SSE-C key (nil: none).
func (c *Client) Head(ctx context.Context, bucket, key string, part int, ck []byte) (ObjectInfo, error) {
	r := request{method: http.MethodHead, bucket: bucket, key: key, header: http.Header{"X-Amz-Checksum-Mode": {"ENABLED"}}}
	customerHeaders(r.header, ssecPrefix, ck)
	if part > 0 {
		r.query = url.Values{"partNumber": {strconv.Itoa(part)}}
	}
	resp, err := c.do(ctx, r)
	if err != nil {
		return ObjectInfo{}, err
	}
	resp.Body.Close()
	info := objectInfo(resp.Header)
	info.Size = resp.ContentLength
	return info, nil
}

// objectInfo reads the ETag and checksum headers of a HEAD or GET answer.
func objectInfo(h http.Header) ObjectInfo {
	info := ObjectInfo{ETag: strings.Trim(h.Get("ETag"), `"`), ChecksumType: h.Get("X-Amz-Checksum-Type")}
	info.PartsCount, _ = strconv.Atoi(h.Get("X-Amz-Mp-Parts-Count"))
	info.Encryption = h.Get(sseHeader)
	if h.Get(ssecPrefix+"Algorithm") != "" {
		info.Encryption = "SSE-C"
	}
	for _, a := range algorithms {
		if v := h.Get(a.HeaderName()); v != "" {
			info.Algorithm, info.Checksum = string(a), v
			break
		}
	}
	return info
}

// GetRange is one GET: bytes [off, off+n) (n < 0: the whole object), or
// part when part > 0. ifMatch (an ETag) makes the server refuse with 412 if
// the object changed since it was learnt; ck is the object's SSE-C key
// (nil: none). The caller closes the body.
func (c *Client) GetRange(ctx context.Context, bucket, key, ifMatch string, off, n int64, part int, ck []byte) (*http.Response, error) {
	h := http.Header{"X-Amz-Checksum-Mode": {"ENABLED"}}
	customerHeaders(h, ssecPrefix, ck)
	if ifMatch != "" {
		h.Set("If-Match", `"`+ifMatch+`"`)
	}
	r := request{method: http.MethodGet, bucket: bucket, key: key, header: h, data: true}
	switch {
	case part > 0:
		r.query = url.Values{"partNumber": {strconv.Itoa(part)}}
	case n >= 0:
		h.Set("Range", "bytes="+strconv.FormatInt(off, 10)+"-"+strconv.FormatInt(off+n-1, 10))
	}
	return c.do(ctx, r)
}

// Put uploads one object of size bytes from body with its CRC64NVME
// (base64), encrypted as enc asks, and returns the answer's headers.
func (c *Client) Put(ctx context.Context, bucket, key string, body func() (io.ReadCloser, error), size int64, crc string, enc Encryption) (http.Header, error) {
	h := http.Header{}
	enc.create(h)
	h.Set(uploadAlgorithm.HeaderName(), crc)
	return c.doXML(ctx, request{method: http.MethodPut, bucket: bucket, key: key, header: h, body: body, size: size, data: true}, nil)
}
