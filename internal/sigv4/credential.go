package sigv4

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// credential is a parsed "AK/yyyymmdd/region/service/aws4_request" value.
type credential struct {
	accessKey  string
	date       string
	region     string
	service    string
	terminator string
}

// scope returns "yyyymmdd/region/service/aws4_request".
func (c credential) scope() string {
	return c.date + "/" + c.region + "/" + c.service + "/" + c.terminator
}

// parseCredential splits a Credential value. The scope is the last four
// '/'-separated fields; everything before them is the access key. The errors
// are unwrapped detail: the caller wraps them with its own sentinel.
func parseCredential(s string) (credential, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 5 {
		return credential{}, fmt.Errorf("credential %q is not of the form <access-key>/<date>/<region>/<service>/aws4_request", s)
	}
	n := len(parts)
	c := credential{
		accessKey:  strings.Join(parts[:n-4], "/"),
		date:       parts[n-4],
		region:     parts[n-3],
		service:    parts[n-2],
		terminator: parts[n-1],
	}
	if c.accessKey == "" {
		return credential{}, errors.New("credential has an empty access key")
	}
	if _, err := time.Parse(scopeDateFormat, c.date); err != nil || len(c.date) != len(scopeDateFormat) {
		return credential{}, fmt.Errorf("invalid date %q in credential scope; expected yyyymmdd", c.date)
	}
	return c, nil
}

// checkScope validates a credential scope against the server region, the
// service the verifier serves and the request time. t is the request's
// X-Amz-Date (or Date).
func checkScope(c credential, region, service string, t time.Time) error {
	if c.region != region {
		return fmt.Errorf("the region '%s' is wrong; expecting '%s'", c.region, region)
	}
	if c.service != service {
		return fmt.Errorf("the service '%s' is wrong; expecting '%s'", c.service, service)
	}
	if c.terminator != scopeTerminator {
		return fmt.Errorf("incorrect terminal '%s'; expecting '%s'", c.terminator, scopeTerminator)
	}
	if d := t.UTC().Format(scopeDateFormat); c.date != d {
		return fmt.Errorf("invalid credential date '%s'; this date is not the same as the request date '%s'", c.date, d)
	}
	return nil
}

// parseSignedHeaders splits a SignedHeaders value on ';'. Every name must be
// non-empty and the list must include host.
func parseSignedHeaders(s string) ([]string, error) {
	if s == "" {
		return nil, errors.New("SignedHeaders is empty")
	}
	names := strings.Split(s, ";")
	host := false
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("SignedHeaders %q has an empty header name", s)
		}
		if strings.EqualFold(n, "host") {
			host = true
		}
	}
	if !host {
		return nil, fmt.Errorf("SignedHeaders %q does not include host", s)
	}
	return names, nil
}

// ScopeService returns the service named in r's credential scope (the
// Authorization header's Credential, or a presigned URL's X-Amz-Credential),
// "" when r carries none or it cannot be parsed ("s3" may be answered for a
// scope malformed elsewhere: S3's verifier refuses it). It is unverified:
// it only picks the API that serves r, whose Verifier then requires that
// service.
func ScopeService(r *http.Request) string {
	var cred string
	if h := r.Header.Get("Authorization"); h != "" {
		_, rest, ok := strings.Cut(h, "Credential=")
		if !ok {
			return ""
		}
		cred, _, _ = strings.Cut(rest, ",")
	} else if r.URL != nil {
		for _, p := range ParseQuery(r.URL.RawQuery) {
			if p.Key == paramCredential {
				cred = p.Value
			}
		}
	}
	cred = strings.TrimSpace(cred)
	// Every S3 request asks: the service field is found without splitting
	// (…/<service>/aws4_request), and "s3", where S3's verifier checks the
	// whole scope anyway, is answered as it stands.
	if i := strings.LastIndexByte(cred, '/'); i > 0 {
		if j := strings.LastIndexByte(cred[:i], '/'); j >= 0 && cred[j+1:i] == "s3" {
			return "s3"
		}
	}
	c, err := parseCredential(cred)
	if err != nil {
		return ""
	}
	return c.service
}
