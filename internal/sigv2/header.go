package sigv2

import (
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"

	"github.com/jogstore/jog/internal/sigv4"
)

// parseV2Header parses an Authorization header "AWS AccessKeyId:Signature".
// Errors wrap sigv4.ErrUnsupportedAlgorithm (another scheme, such as
// AWS4-HMAC-SHA256) or sigv4.ErrAuthHeaderMalformed.
func parseV2Header(h string) (accessKey, signature string, err error) {
	h = strings.TrimSpace(h)
	scheme, rest, _ := strings.Cut(h, " ")
	switch scheme {
	case "AWS":
	case "":
		return "", "", fmt.Errorf("%w: empty Authorization header", sigv4.ErrAuthHeaderMalformed)
	default:
		return "", "", fmt.Errorf("%w: %q is not signature version 2", sigv4.ErrUnsupportedAlgorithm, scheme)
	}
	rest = strings.TrimSpace(rest)
	if strings.IndexFunc(rest, func(c rune) bool { return unicode.IsSpace(c) || unicode.IsControl(c) }) >= 0 {
		return "", "", fmt.Errorf("%w: want \"AWS AccessKeyId:Signature\"", sigv4.ErrAuthHeaderMalformed)
	}
	accessKey, signature, ok := strings.Cut(rest, ":")
	switch {
	case !ok:
		return "", "", fmt.Errorf("%w: missing ':' between access key and signature", sigv4.ErrAuthHeaderMalformed)
	case accessKey == "":
		return "", "", fmt.Errorf("%w: missing access key", sigv4.ErrAuthHeaderMalformed)
	case signature == "":
		return "", "", fmt.Errorf("%w: missing signature", sigv4.ErrAuthHeaderMalformed)
	case strings.Contains(signature, ":"):
		return "", "", fmt.Errorf("%w: more than one ':'", sigv4.ErrAuthHeaderMalformed)
	}
	return accessKey, signature, nil
}

// parseDate reads a Date or x-amz-date value: the forms sigv4.ParseDate
// reads, and RFC 3339, which SigV2 clients have sent in x-amz-date.
func parseDate(s string) (time.Time, bool) {
	if t, ok := sigv4.ParseDate(s); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339, strings.TrimSpace(s))
	return t.UTC(), err == nil
}

// headerDate returns the Date line of the string to sign and the request time
// for header authentication. With x-amz-date the Date line is empty (the value
// is signed among the x-amz-* headers instead) and x-amz-date is the request
// time; otherwise both come from the Date header.
func headerDate(r *http.Request) (line string, t time.Time, err error) {
	if v := r.Header.Values("X-Amz-Date"); len(v) > 0 {
		t, ok := parseDate(v[0])
		if !ok {
			return "", time.Time{}, fmt.Errorf("%w: invalid x-amz-date %q", sigv4.ErrMissingDate, v[0])
		}
		return "", t, nil
	}
	d := r.Header.Get("Date")
	if d == "" {
		return "", time.Time{}, sigv4.ErrMissingDate
	}
	t, ok := parseDate(d)
	if !ok {
		return "", time.Time{}, fmt.Errorf("%w: invalid Date %q", sigv4.ErrMissingDate, d)
	}
	return d, t, nil
}

// verifyHeader authenticates a request signed in the Authorization header.
func (v *Verifier) verifyHeader(r *http.Request, header string, params []sigv4.QueryParam) (*Result, error) {
	accessKey, signature, err := parseV2Header(header)
	if err != nil {
		return nil, err
	}
	date, t, err := headerDate(r)
	if err != nil {
		return nil, err
	}
	var token string
	if t := r.Header[sigv4.SecurityTokenHeader]; len(t) > 0 {
		token = t[0]
	}
	secret, session, err := v.secret(accessKey, token)
	if err != nil {
		return nil, err
	}
	now := v.now()
	if now.Sub(t).Abs() > v.maxSkew() {
		return nil, fmt.Errorf("%w: request time %s, server time %s", sigv4.ErrRequestTimeTooSkewed,
			t.Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	if err := v.check(r, params, secret, signature, date, canonicalAmzHeaders(r.Header, nil)); err != nil {
		return nil, err
	}
	return &Result{AccessKey: accessKey, Holder: session}, nil
}
