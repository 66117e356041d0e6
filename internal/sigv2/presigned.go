package sigv2

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

// presignedAuth is the parsed authentication part of a SigV2 presigned URL.
type presignedAuth struct {
	accessKey string
	signature string
	expires   string // as sent: it is the Date line of the string to sign
	deadline  int64  // expires in unix seconds
}

// singleParam returns the value of a parameter that must appear at most once.
func singleParam(params []sigv4.QueryParam, name string) (string, error) {
	var v string
	seen := false
	for _, p := range params {
		if p.Key != name {
			continue
		}
		if seen {
			return "", fmt.Errorf("%w: %s given more than once", sigv4.ErrQueryMalformed, name)
		}
		v, seen = p.Value, true
	}
	return v, nil
}

// parsePresigned extracts and syntax-checks AWSAccessKeyId, Signature and
// Expires. Errors wrap sigv4.ErrQueryMalformed.
func parsePresigned(params []sigv4.QueryParam) (presignedAuth, error) {
	var a presignedAuth
	var missing []string
	for _, f := range []struct {
		name string
		dst  *string
	}{{paramAccessKey, &a.accessKey}, {paramSignature, &a.signature}, {paramExpires, &a.expires}} {
		v, err := singleParam(params, f.name)
		if err != nil {
			return presignedAuth{}, err
		}
		if v == "" {
			missing = append(missing, f.name)
		}
		*f.dst = v
	}
	if len(missing) > 0 {
		return presignedAuth{}, fmt.Errorf("%w: query-string authentication requires the Signature, Expires and AWSAccessKeyId parameters; missing %s",
			sigv4.ErrQueryMalformed, strings.Join(missing, ", "))
	}
	n, err := strconv.ParseInt(a.expires, 10, 64)
	if err != nil || n < 0 || a.expires[0] == '+' {
		return presignedAuth{}, fmt.Errorf("%w: Expires %q is not a number of seconds since the epoch", sigv4.ErrQueryMalformed, a.expires)
	}
	a.deadline = n
	// Base64 has no spaces: a space is a '+' the client left unescaped.
	a.signature = strings.ReplaceAll(a.signature, " ", "+")
	return a, nil
}

// amzQueryParams returns the x-amz-* query parameters of a presigned URL.
// boto moves the x-amz-* headers it signed (x-amz-security-token, metadata,
// x-amz-acl) into the query string, and S3 signs them as headers.
func amzQueryParams(params []sigv4.QueryParam) []sigv4.QueryParam {
	var out []sigv4.QueryParam
	for _, p := range params {
		if k := strings.ToLower(p.Key); strings.HasPrefix(k, "x-amz-") {
			out = append(out, sigv4.QueryParam{Key: k, Value: p.Value})
		}
	}
	return out
}

// verifyPresigned authenticates a SigV2 presigned-URL request.
func (v *Verifier) verifyPresigned(r *http.Request, params []sigv4.QueryParam) (*Result, error) {
	a, err := parsePresigned(params)
	if err != nil {
		return nil, err
	}
	var token string
	for _, p := range params {
		if strings.EqualFold(p.Key, sigv4.SecurityTokenHeader) {
			token = p.Value
			break
		}
	}
	secret, session, err := v.secret(a.accessKey, token)
	if err != nil {
		return nil, err
	}
	if now := v.now(); now.Unix() > a.deadline {
		return nil, fmt.Errorf("%w: expired at %s, server time %s", sigv4.ErrExpired,
			time.Unix(a.deadline, 0).UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	}
	amz := canonicalAmzHeaders(r.Header, amzQueryParams(params))
	if err := v.check(r, params, secret, a.signature, a.expires, amz); err != nil {
		return nil, err
	}
	return &Result{AccessKey: a.accessKey, Presigned: true, Holder: session}, nil
}
