package console

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sigv4"
)

// proxiedHeaders are the request headers the proxy passes on, besides
// x-amz-* (but those in dropAmz).
var proxiedHeaders = []string{
	"Content-Type", "Content-Md5", "Range", "Cache-Control", "Content-Disposition", "Content-Encoding",
	"Content-Language", "Expires",
	"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since",
	// The client's address and scheme, which the S3 edge reads only
	// under --trust-forwarded-for, as for any request.
	"X-Forwarded-For", "X-Forwarded-Proto",
}

// dropAmz are the x-amz-* headers the proxy sets itself.
var dropAmz = map[string]bool{
	"X-Amz-Security-Token": true, "X-Amz-Date": true, "X-Amz-Content-Sha256": true,
}

// proxyResponseCSP confines whatever a proxied response holds (an HTML
// object, an SVG) should a browser render it: no script, in no origin.
const proxyResponseCSP = "sandbox; default-src 'none'"

// proxyS3 forwards /console/api/s3<path> to the S3 API as the session's
// principal: path-style, the same method and query, the allowed headers,
// the body streamed (UNSIGNED-PAYLOAD), the answer streamed back as S3
// gives it, errors too.
func (h *Handler) proxyS3(w http.ResponseWriter, r *http.Request, s *Session, path string) {
	if path == "" {
		path = "/"
	}
	out := h.outgoing(r, path, r.Body)
	out.ContentLength, out.TransferEncoding = r.ContentLength, r.TransferEncoding
	for _, name := range proxiedHeaders {
		if v, ok := r.Header[name]; ok {
			out.Header[name] = v
		}
	}
	for name, v := range r.Header {
		if strings.HasPrefix(name, "X-Amz-") && !dropAmz[name] {
			out.Header[name] = v
		}
	}
	h.forward(w, out, s, "s3", sigv4.UnsignedPayload)
}

// proxyIAM forwards POST /console/api/iam (a form Action=…) to the IAM
// API as the session's principal. The form is small (queryapi.MaxBody)
// and IAM wants it signed: it is read, hashed and passed on.
func (h *Handler) proxyIAM(w http.ResponseWriter, r *http.Request, s *Session) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, queryapi.MaxBody+1))
	if err != nil {
		writeError(w, http.StatusBadRequest, "IncompleteBody", "The request body could not be read.")
		return
	}
	out := h.outgoing(r, "/", bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	out.Header.Set("Content-Type", r.Header.Get("Content-Type"))
	sum := sha256.Sum256(body)
	h.forward(w, out, s, "iam", hex.EncodeToString(sum[:]))
}

// outgoing is the request the proxy makes of r: path (decoded) and r's
// query less any signature parameters, the client's address and TLS
// state (aws:SourceIp, aws:SecureTransport), r's context.
func (h *Handler) outgoing(r *http.Request, path string, body io.Reader) *http.Request {
	host := r.Host
	if h.cfg.Domain != "" {
		host = h.cfg.Domain // the bare domain is path-style; a sibling host could be a bucket's
	}
	u := &url.URL{Path: path, RawQuery: stripSignature(r.URL.RawQuery)}
	out := &http.Request{
		Method: r.Method, URL: u, RequestURI: u.RequestURI(),
		Proto: r.Proto, ProtoMajor: r.ProtoMajor, ProtoMinor: r.ProtoMinor,
		Header: make(http.Header), Host: host, RemoteAddr: r.RemoteAddr, TLS: r.TLS,
	}
	if body == nil {
		body = http.NoBody
	}
	out.Body = io.NopCloser(body)
	if rc, ok := body.(io.ReadCloser); ok {
		out.Body = rc
	}
	return out.WithContext(r.Context())
}

// stripSignature drops the query parameters of a presigned request, so
// that a proxied request is signed by its header only.
func stripSignature(raw string) string {
	if raw == "" {
		return ""
	}
	var kept []string
	for part := range strings.SplitSeq(raw, "&") {
		k, _, _ := strings.Cut(part, "=")
		if k, err := url.QueryUnescape(k); err == nil {
			lk := strings.ToLower(k)
			if strings.HasPrefix(lk, "x-amz-") || lk == "signature" || lk == "awsaccesskeyid" {
				continue
			}
		}
		kept = append(kept, part)
	}
	return strings.Join(kept, "&")
}

// forward signs out with the session's credentials for service and
// serves it through the server's handler, writing the answer straight
// to w: the body is neither buffered nor copied (sendfile kept).
func (h *Handler) forward(w http.ResponseWriter, out *http.Request, s *Session, service, payloadHash string) {
	out.Header.Set(sigv4.SecurityTokenHeader, s.Token)
	sigv4.SignServiceRequest(out, service, s.AccessKeyID, s.Secret.Reveal(), h.cfg.Region, time.Now(), payloadHash)
	w.Header().Set("Content-Security-Policy", proxyResponseCSP)
	w.Header().Del("Cache-Control") // S3's own, if any
	h.cfg.Handler.ServeHTTP(w, out)
}

// maxPresign is the longest a presigned URL lasts, as S3's.
const maxPresign = 7 * 24 * time.Hour

// defaultPresign is how long a presigned URL lasts unless asked.
const defaultPresign = time.Hour

// presign answers POST /console/api/presign {"bucket","key","versionId",
// "expires"} with a presigned GET URL of the object on the S3 origin
// (s3Origin), signed with the session's credentials: it lasts expires
// seconds (an hour when 0), at most 7 days and never past the session.
// With "inline": true the URL asks for Content-Disposition: inline (S3's
// response-content-disposition), so that a preview frame draws an object
// stored as an attachment instead of downloading it; with "download":
// true, for attachment with the key's base name, so that a link
// downloads the object (a link's download attribute is ignored across
// origins).
func (h *Handler) presign(w http.ResponseWriter, r *http.Request, s *Session) {
	if r.Method != http.MethodPost {
		methodNotAllowed(w, "POST")
		return
	}
	var in struct {
		Bucket    string `json:"bucket"`
		Key       string `json:"key"`
		VersionID string `json:"versionId"`
		Expires   int64  `json:"expires"`
		Inline    bool   `json:"inline"`
		Download  bool   `json:"download"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 16<<10)).Decode(&in); err != nil || in.Bucket == "" || in.Key == "" || in.Expires < 0 {
		writeError(w, http.StatusBadRequest, "InvalidRequest", "The body must be JSON {\"bucket\", \"key\", \"versionId\", \"expires\"} with a bucket, a key and expires in seconds.")
		return
	}
	now := time.Now()
	d := defaultPresign
	if in.Expires > 0 {
		d = time.Duration(min(in.Expires, int64(maxPresign/time.Second))) * time.Second
	}
	if left := s.Expires.Sub(now).Truncate(time.Second); left < d {
		d = left
	}
	if d < time.Second {
		writeError(w, http.StatusUnauthorized, codeExpired, "The session is about to expire; sign in again.")
		return
	}
	origin, err := url.Parse(h.s3Origin(r))
	if err != nil || origin.Host == "" {
		writeError(w, http.StatusBadRequest, "InvalidRequest", "The S3 endpoint's address cannot be made from this request's host.")
		return
	}
	q := sigv4.SecurityTokenHeader + "=" + queryEscape(s.Token)
	if in.VersionID != "" {
		q = "versionId=" + queryEscape(in.VersionID) + "&" + q
	}
	switch {
	case in.Inline:
		q = "response-content-disposition=inline&" + q
	case in.Download:
		q = "response-content-disposition=" + queryEscape(attachment(path.Base(in.Key))) + "&" + q
	}
	req := &http.Request{Method: http.MethodGet, URL: &url.URL{Scheme: origin.Scheme, Host: origin.Host, Path: "/" + in.Bucket + "/" + in.Key, RawQuery: q}}
	sigv4.PresignRequest(req, s.AccessKeyID, s.Secret.Reveal(), h.cfg.Region, now, d)
	writeJSON(w, http.StatusOK, struct {
		URL     string `json:"url"`
		Expires string `json:"expires"`
	}{req.URL.String(), now.Add(d).UTC().Format(time.RFC3339)})
}

// attachment is a Content-Disposition saving the object as name: RFC
// 6266's filename* (UTF-8, every byte but RFC 5987's attr-char
// percent-encoded).
func attachment(name string) string {
	var b strings.Builder
	b.WriteString("attachment; filename*=UTF-8''")
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$&+-.^_`|~", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// queryEscape percent-encodes a query value as SigV4 does (a space is
// %20, never +).
func queryEscape(v string) string { return strings.ReplaceAll(url.QueryEscape(v), "+", "%20") }

// metricsAction is the action GET /console/api/metrics needs.
const metricsAction = "jog:GetMetrics"

// metrics serves the server's Prometheus text to a principal allowed
// jog:GetMetrics (the root always), decided as the IAM API decides.
func (h *Handler) metrics(w http.ResponseWriter, r *http.Request, s *Session) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET")
		return
	}
	p, err := h.principal(r.Context(), s)
	if err != nil {
		writeError(w, http.StatusForbidden, "AccessDenied", "The session's principal is no longer valid: "+err.Error())
		return
	}
	if !p.IsRoot() && h.cfg.Authorizer.DecideIAM(r, p, metricsAction, "*", nil) != policy.Allowed {
		writeError(w, http.StatusForbidden, "AccessDenied", "User: "+s.ARN+" is not authorized to perform: "+metricsAction)
		return
	}
	if h.cfg.Metrics == nil {
		writeError(w, http.StatusNotFound, "NotFound", "This server serves no metrics.")
		return
	}
	h.cfg.Metrics.ServeHTTP(w, r)
}
