package authz

// The condition keys a request gives: built lazily, as the policies that
// apply read them (Check.fill).

import (
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/iam/policy"
)

// key sets the condition key k (lower case) from the request, if it has
// a value.
func (c *Check) key(k string) {
	ctx, r, h := c.pr.Context, c.in, c.in.HTTP
	set := func(v string) {
		if c.vals == nil {
			c.vals = make([]string, 0, 8)
		}
		c.vals = append(c.vals, v)
		n := len(c.vals)
		ctx[k] = c.vals[n-1 : n : n]
	}
	switch k {
	case "aws:principaltype", "aws:username", "aws:userid", "aws:principalarn", "aws:principalaccount":
		if v, ok := c.principalKey(k); ok {
			set(v)
		}
	case "aws:tokenissuetime":
		if s := r.Principal.Session; s != nil {
			set(s.Issued.UTC().Format(time.RFC3339))
		}
	case "aws:multifactorauthpresent":
		if r.Principal.Session != nil {
			set("false")
		}
	case "aws:currenttime":
		set(c.a.currentTime(c.pr.Time))
	case "aws:epochtime":
		set(strconv.FormatInt(c.pr.Time.Unix(), 10))
	case "aws:sourceip":
		if ip, _ := c.a.source(h); ip != "" {
			set(ip)
		}
	case "aws:securetransport":
		_, secure := c.a.source(h)
		set(strconv.FormatBool(secure))
	case "s3:signatureversion":
		if r.SignatureVersion != "" {
			set(r.SignatureVersion)
		}
	case "s3:authtype":
		if r.SignatureVersion != "" {
			set(r.AuthType)
		}
	case "s3:versionid":
		if v, ok := c.params()["versionId"]; ok && !c.version {
			ctx[k] = v
		}
	case "s3:prefix", "s3:delimiter", "s3:max-keys":
		if v, ok := c.params()[k[len("s3:"):]]; ok && r.List {
			ctx[k] = v
		}
	case requestTagKeys:
		c.requestTags()
	default:
		switch name, ok := headerKeys[k]; {
		case ok:
			if v := h.Header[name]; len(v) > 0 {
				ctx[k] = v
			}
		case strings.HasPrefix(k, requestTagPrefix):
			c.requestTags()
		case strings.HasPrefix(k, existingTagPrefix):
			if c.tags != nil {
				c.loadTags()
			}
		}
	}
}

// params is the request's query, parsed once.
func (c *Check) params() url.Values {
	if c.query == nil {
		c.query = c.in.HTTP.URL.Query()
	}
	return c.query
}

// principalKey is the value of a key that describes the principal.
func (c *Check) principalKey(k string) (string, bool) {
	a := c.a
	switch c.in.Principal.Type {
	case policy.Root:
		switch k {
		case "aws:principaltype":
			return "Account", true
		case "aws:userid", "aws:principalaccount":
			return a.account, true
		case "aws:principalarn":
			return a.rootARN, true
		}
	case policy.User:
		u := c.in.Principal.User
		switch k {
		case "aws:principaltype":
			return "User", true
		case "aws:username":
			return u.UserName, true
		case "aws:userid":
			return u.UserID, true
		case "aws:principalarn":
			return u.ARN, true
		case "aws:principalaccount":
			return a.account, true
		}
	case policy.AssumedRole:
		switch k {
		case "aws:principaltype":
			return "AssumedRole", true
		case "aws:userid":
			return c.in.Principal.Session.UserID, true
		case "aws:principalarn":
			return c.in.Principal.User.ARN, true
		case "aws:principalaccount":
			return a.account, true
		}
	default:
		if k == "aws:principaltype" {
			return "Anonymous", true
		}
	}
	return "", false
}

// SourceIP is the request's aws:SourceIp: the peer's address, or the
// proxy's word for it under Options.TrustForwardedFor. Logs name it.
func (a *Authorizer) SourceIP(h *http.Request) string {
	ip, _ := a.source(h)
	return ip
}

// source is the request's source address and whether it came over TLS:
// the proxy's word for both under Options.TrustForwardedFor.
func (a *Authorizer) source(h *http.Request) (ip string, secure bool) {
	secure = h.TLS != nil
	ip = remoteIP(h.RemoteAddr)
	if a.opts.TrustForwardedFor {
		if fwd := lastForwarded(h.Header.Values("X-Forwarded-For")); fwd != "" {
			ip = fwd
		}
		if p := h.Header.Get("X-Forwarded-Proto"); p != "" {
			secure = strings.EqualFold(p, "https")
		}
	}
	return ip, secure
}

// Secure reports whether h came over TLS, as aws:SecureTransport says it
// (the proxy's word under Options.TrustForwardedFor): SSE-C keys are
// refused over plain HTTP on the same terms.
func (a *Authorizer) Secure(h *http.Request) bool {
	_, secure := a.source(h)
	return secure
}

const (
	requestTagPrefix = "s3:requestobjecttag/"
	requestTagKeys   = "s3:requestobjecttagkeys"
)

// requestTags sets the keys of the x-amz-tagging header, once: each one
// set marks them done (s3:RequestObjectTagKeys is set, if only empty).
func (c *Check) requestTags() {
	if _, done := c.pr.Context[requestTagKeys]; done {
		return
	}
	c.pr.Context[requestTagKeys] = nil
	if t := c.in.HTTP.Header.Get("X-Amz-Tagging"); t != "" {
		setTags(c.pr.Context, t)
	}
}

// setTags sets s3:RequestObjectTag/<key> for each tag of an x-amz-tagging
// header (URL-encoded) and s3:RequestObjectTagKeys. A header that does not
// parse sets none: the operation refuses it before anything is stored.
func setTags(ctx policy.Context, header string) {
	q, err := url.ParseQuery(header)
	if err != nil {
		return
	}
	keys := make([]string, 0, len(q))
	for k, v := range q {
		keys = append(keys, k)
		ctx.Add("s3:RequestObjectTag/"+k, v...)
	}
	ctx.Set("s3:RequestObjectTagKeys", keys...)
}

// headerKeys are the condition keys whose value is a request header's,
// as sent: key (lower case) → header (canonical). The S3 edge refuses a
// request that repeats any of them (Headers), so a key holds one value,
// the one the handler reads.
var headerKeys = map[string]string{
	"aws:referer":                                    "Referer",
	"aws:useragent":                                  "User-Agent",
	"s3:x-amz-content-sha256":                        "X-Amz-Content-Sha256",
	"s3:x-amz-acl":                                   "X-Amz-Acl",
	"s3:x-amz-grant-full-control":                    "X-Amz-Grant-Full-Control",
	"s3:x-amz-grant-read":                            "X-Amz-Grant-Read",
	"s3:x-amz-grant-read-acp":                        "X-Amz-Grant-Read-Acp",
	"s3:x-amz-grant-write":                           "X-Amz-Grant-Write",
	"s3:x-amz-grant-write-acp":                       "X-Amz-Grant-Write-Acp",
	"s3:x-amz-copy-source":                           "X-Amz-Copy-Source",
	"s3:x-amz-metadata-directive":                    "X-Amz-Metadata-Directive",
	"s3:x-amz-storage-class":                         "X-Amz-Storage-Class",
	"s3:object-lock-mode":                            "X-Amz-Object-Lock-Mode",
	"s3:object-lock-retain-until-date":               "X-Amz-Object-Lock-Retain-Until-Date",
	"s3:object-lock-legal-hold":                      "X-Amz-Object-Lock-Legal-Hold",
	"s3:x-amz-server-side-encryption":                "X-Amz-Server-Side-Encryption",
	"s3:x-amz-server-side-encryption-aws-kms-key-id": "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id",
}

// Headers lists the request headers (canonical names) that condition
// keys are read from: a request that sends one of them twice must be
// refused before it is authorized, or a policy would see two values and
// the handler act on one.
func Headers() []string { return slices.Sorted(maps.Values(headerKeys)) }

// HeaderKeys lists the condition keys (lower case) whose value is a
// request header's, for tests.
func HeaderKeys() []string { return slices.Sorted(maps.Keys(headerKeys)) }

// remoteIP is the address part of a RemoteAddr ("1.2.3.4:5678", "[::1]:9").
func remoteIP(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// lastForwarded is the last address of X-Forwarded-For's values, "" when
// it is not an IP address.
func lastForwarded(values []string) string {
	if len(values) == 0 {
		return ""
	}
	v := values[len(values)-1]
	if i := strings.LastIndexByte(v, ','); i >= 0 {
		v = v[i+1:]
	}
	v = strings.TrimSpace(v)
	if net.ParseIP(v) == nil {
		return ""
	}
	return v
}
