package sigv4

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Presigned-URL query parameter names.
const (
	paramAlgorithm     = "X-Amz-Algorithm"
	paramCredential    = "X-Amz-Credential"
	paramDate          = "X-Amz-Date"
	paramExpires       = "X-Amz-Expires"
	paramSignedHeaders = "X-Amz-SignedHeaders"
	paramSignature     = "X-Amz-Signature"
)

// MaxPresignExpires is the longest X-Amz-Expires S3 accepts: seven days.
const MaxPresignExpires = 7 * 24 * time.Hour

// presignedAuth is the parsed authentication part of a presigned URL.
type presignedAuth struct {
	cred          credential
	date          time.Time
	expires       time.Duration
	signedHeaders []string
	signature     string
}

// isPresigned reports whether the query carries SigV4 presigned parameters.
func isPresigned(params []QueryParam) bool {
	for _, p := range params {
		switch p.Key {
		case paramAlgorithm, paramSignature, paramCredential:
			return true
		}
	}
	return false
}

// isSigV2Query reports whether the query carries SigV2 presigned parameters.
func isSigV2Query(params []QueryParam) bool {
	var ak, sig bool
	for _, p := range params {
		switch p.Key {
		case "AWSAccessKeyId":
			ak = true
		case "Signature":
			sig = true
		}
	}
	return ak && sig
}

// presignedParam returns the single value of the named parameter. A
// parameter given more than once is an error.
func presignedParam(params []QueryParam, name string) (value string, ok bool, err error) {
	for _, p := range params {
		if p.Key != name {
			continue
		}
		if ok {
			return "", false, fmt.Errorf("%w: %s given more than once", ErrQueryMalformed, name)
		}
		value, ok = p.Value, true
	}
	return value, ok, nil
}

// parsePresigned extracts and syntax-checks the presigned parameters. Errors
// wrap ErrUnsupportedAlgorithm or ErrQueryMalformed.
func parsePresigned(params []QueryParam) (presignedAuth, error) {
	names := []string{paramAlgorithm, paramCredential, paramDate, paramExpires, paramSignedHeaders, paramSignature}
	vals := make(map[string]string, len(names))
	var missing []string
	for _, n := range names {
		v, ok, err := presignedParam(params, n)
		if err != nil {
			return presignedAuth{}, err
		}
		if !ok || v == "" {
			missing = append(missing, n)
		}
		vals[n] = v
	}
	if a := vals[paramAlgorithm]; a != "" && a != Algorithm {
		return presignedAuth{}, fmt.Errorf("%w: X-Amz-Algorithm %q", ErrUnsupportedAlgorithm, a)
	}
	if len(missing) > 0 {
		return presignedAuth{}, fmt.Errorf("%w: query-string authentication version 4 requires the X-Amz-Algorithm, X-Amz-Credential, X-Amz-Signature, X-Amz-Date, X-Amz-SignedHeaders, and X-Amz-Expires parameters; missing %s",
			ErrQueryMalformed, strings.Join(missing, ", "))
	}
	var p presignedAuth
	var err error
	if p.cred, err = parseCredential(vals[paramCredential]); err != nil {
		return presignedAuth{}, fmt.Errorf("%w: error parsing the X-Amz-Credential parameter: %v", ErrQueryMalformed, err)
	}
	if p.date, err = parseAmzDate(vals[paramDate]); err != nil {
		return presignedAuth{}, fmt.Errorf("%w: X-Amz-Date must be in the ISO8601 long format \"yyyyMMdd'T'HHmmss'Z'\"", ErrQueryMalformed)
	}
	secs, err := strconv.ParseInt(vals[paramExpires], 10, 64)
	switch {
	case err != nil:
		return presignedAuth{}, fmt.Errorf("%w: X-Amz-Expires should be a number", ErrQueryMalformed)
	case secs < 1:
		return presignedAuth{}, fmt.Errorf("%w: X-Amz-Expires must be at least 1", ErrQueryMalformed)
	case secs > int64(MaxPresignExpires/time.Second):
		return presignedAuth{}, fmt.Errorf("%w: X-Amz-Expires must be less than a week (in seconds) that is 604800", ErrQueryMalformed)
	}
	p.expires = time.Duration(secs) * time.Second
	if p.signedHeaders, err = parseSignedHeaders(vals[paramSignedHeaders]); err != nil {
		return presignedAuth{}, fmt.Errorf("%w: %v", ErrQueryMalformed, err)
	}
	p.signature = vals[paramSignature]
	return p, nil
}

// presignedPayloadHash returns the payload hash a presigned request signs:
// UNSIGNED-PAYLOAD unless x-amz-content-sha256 is given as a query parameter
// or a header.
func presignedPayloadHash(r *http.Request, params []QueryParam) (string, error) {
	for _, p := range params {
		if strings.EqualFold(p.Key, "X-Amz-Content-Sha256") {
			if !validContentSHA256(p.Value) {
				return "", fmt.Errorf("%w: got %q", ErrInvalidContentSHA256, p.Value)
			}
			return p.Value, nil
		}
	}
	if v := r.Header.Values("X-Amz-Content-Sha256"); len(v) > 0 {
		if len(v) > 1 || !validContentSHA256(v[0]) {
			return "", fmt.Errorf("%w: got %q", ErrInvalidContentSHA256, strings.Join(v, ","))
		}
		return v[0], nil
	}
	return UnsignedPayload, nil
}

// verifyPresigned authenticates a presigned-URL request.
func (v *Verifier) verifyPresigned(r *http.Request, params []QueryParam) (*Result, error) {
	p, err := parsePresigned(params)
	if err != nil {
		return nil, err
	}
	if err := checkScope(p.cred, v.region(), v.service(), p.date); err != nil {
		return nil, fmt.Errorf("%w: error parsing the X-Amz-Credential parameter; %v", ErrQueryMalformed, err)
	}
	var token string
	for _, q := range params {
		if q.Key == SecurityTokenHeader {
			token = q.Value
			break
		}
	}
	secret, session, err := v.secret(p.cred.accessKey, token)
	if err != nil {
		return nil, err
	}
	now := v.now()
	if p.date.Sub(now) > v.maxSkew() {
		return nil, fmt.Errorf("%w: X-Amz-Date %s is in the future (server time %s)", ErrRequestTimeTooSkewed,
			p.date.Format(AmzDateFormat), now.UTC().Format(AmzDateFormat))
	}
	if expiry := p.date.Add(p.expires); now.After(expiry) {
		return nil, fmt.Errorf("%w: expired at %s, server time %s", ErrExpired,
			expiry.Format(AmzDateFormat), now.UTC().Format(AmzDateFormat))
	}
	payload, err := presignedPayloadHash(r, params)
	if err != nil {
		return nil, err
	}
	creq := canonicalRequest(r, canonicalQuery(params, paramSignature), p.signedHeaders, payload)
	return v.check(p.cred, secret, session, p.date, creq, p.signature, payload, true)
}
