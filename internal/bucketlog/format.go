package bucketlog

import (
	"crypto/tls"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/s3api"
)

// timeLayout is a record's [time] field.
const timeLayout = "[02/Jan/2006:15:04:05 -0700]"

// AppendRecord appends r's record in S3's server access log format (no
// newline): the documented space-separated fields, "-" where a field is
// unknown or does not apply, quoted fields escaped. owner is the source
// bucket owner's canonical ID, requester the Requester field (Requester). The fields, in order: bucket owner, bucket,
// [time], remote IP, requester, request ID, operation, key,
// "request-URI", HTTP status, error code, bytes sent, object size, total
// time (ms), turn-around time (ms), "referrer", "user-agent", version ID,
// host ID, signature version, cipher suite, authentication type, host
// header, TLS version, access point ARN, ACL required, source region.
func AppendRecord(b []byte, owner, requester string, r *s3api.Record) []byte {
	req := r.Request
	b = field(b, owner)
	b = field(b, r.Bucket)
	b = append(r.Start.UTC().AppendFormat(b, timeLayout), ' ')
	b = field(b, remoteIP(req))
	b = field(b, requester)
	b = field(b, r.ID)
	b = append(s3api.AppendLogOperation(b, r), ' ')
	b = appendKey(b, r.Key)
	if req != nil {
		u := req.RequestURI
		if u == "" && req.URL != nil {
			u = req.URL.RequestURI()
		}
		b = append(b, '"')
		b = escaped(b, req.Method)
		b = append(b, ' ')
		b = escaped(b, u)
		b = append(b, ' ')
		b = escaped(b, req.Proto)
		b = append(b, '"', ' ')
	} else {
		b = quoted(b, "")
	}
	b = append(strconv.AppendInt(b, int64(r.Status), 10), ' ')
	b = field(b, r.Code)
	b = count(b, r.BytesOut)
	b = count(b, objectSize(r))
	b = append(strconv.AppendInt(b, r.Duration.Milliseconds(), 10), ' ')
	if r.FirstByte > 0 {
		b = append(strconv.AppendInt(b, r.FirstByte.Milliseconds(), 10), ' ')
	} else {
		b = append(b, '-', ' ')
	}
	b = quoted(b, header(req, "Referer"))
	b = quoted(b, header(req, "User-Agent"))
	version := ""
	if req != nil && req.URL != nil && strings.Contains(req.URL.RawQuery, "versionId") {
		version = req.URL.Query().Get("versionId")
	}
	b = appendKey(b, version) // the client's text: escaped as a key is
	b = field(b, s3api.HostID(r.ID))
	sig, auth := signature(r)
	b = field(b, sig)
	cipher, tlsVersion := "", ""
	if req != nil && req.TLS != nil {
		cipher = tls.CipherSuiteName(req.TLS.CipherSuite)
		tlsVersion = strings.Replace(tls.VersionName(req.TLS.Version), "TLS 1.", "TLSv1.", 1)
	}
	b = field(b, cipher)
	b = field(b, auth)
	host := ""
	if req != nil {
		host = req.Host
	}
	b = field(b, host)
	b = field(b, tlsVersion)
	b = field(b, "") // access point ARN: JOG has no access points
	b = field(b, "") // ACL required: ACLs are never what allowed a request here alone
	return append(b, '-')
}

// field appends v, "-" when empty, and a space.
func field(b []byte, v string) []byte {
	if v == "" {
		return append(b, '-', ' ')
	}
	return append(append(b, v...), ' ')
}

// count appends n, "-" when zero, and a space.
func count(b []byte, n int64) []byte {
	if n <= 0 {
		return append(b, '-', ' ')
	}
	return append(strconv.AppendInt(b, n, 10), ' ')
}

// quoted appends "v" ("-" when empty) with '"' and '\' escaped and control
// characters as \xHH, then a space: a record stays one line.
func quoted(b []byte, v string) []byte {
	if v == "" {
		v = "-"
	}
	b = append(b, '"')
	b = escaped(b, v)
	return append(b, '"', ' ')
}

// escaped appends v with '"' and '\' escaped and control characters as
// \xHH.
func escaped(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < ' ' || c == 0x7f:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return b
}

const hexDigits = "0123456789ABCDEF"

// header is req's header name, "" without a request.
func header(req *http.Request, name string) string {
	if req == nil {
		return ""
	}
	return req.Header.Get(name)
}

// remoteIP is the client's address without its port.
func remoteIP(req *http.Request) string {
	if req == nil {
		return ""
	}
	if h, _, err := net.SplitHostPort(req.RemoteAddr); err == nil {
		return h
	}
	return req.RemoteAddr
}

// Requester is the Requester field of r: the root's canonical ID, an IAM
// user's or role session's ARN, or "" for an anonymous request.
func Requester(r *s3api.Record) string {
	switch r.Principal.Type {
	case policy.Root:
		return s3api.CanonicalID(r.AccessKey)
	case policy.Anonymous:
		return ""
	}
	return r.Principal.Name()
}

// appendKey appends key (or another value the client chose) URL-encoded as a path ('/' kept, every byte
// but the unreserved ones as %XX), "-" when empty, and a space.
func appendKey(b []byte, key string) []byte {
	if key == "" {
		return append(b, '-', ' ')
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '_' || c == '.' || c == '~' || c == '/' {
			b = append(b, c)
			continue
		}
		b = append(b, '%', hexDigits[c>>4], hexDigits[c&0xf])
	}
	return append(b, ' ')
}

// objectSize is the object's size where the request tells it: the body
// of a write, a whole object read.
func objectSize(r *s3api.Record) int64 {
	if r.Status >= 300 {
		return 0
	}
	switch {
	case r.Op.DataIn():
		return r.BytesIn
	case r.Op == s3api.OpGetObject && r.Status == 200:
		return r.BytesOut
	}
	return 0
}

// signature is the request's signature version (SigV4, SigV2) and how it
// was authenticated (AuthHeader, QueryString); "" for an unsigned one.
func signature(r *s3api.Record) (version, auth string) {
	req := r.Request
	if req == nil || r.AccessKey == "" {
		return "", ""
	}
	if a := req.Header.Get("Authorization"); a != "" {
		if strings.HasPrefix(a, "AWS4-") {
			return "SigV4", "AuthHeader"
		}
		return "SigV2", "AuthHeader"
	}
	q := req.URL.Query()
	switch {
	case q.Has("X-Amz-Algorithm"):
		return "SigV4", "QueryString"
	case q.Has("Signature"):
		return "SigV2", "QueryString"
	}
	return "", "" // a form upload's policy signature
}
