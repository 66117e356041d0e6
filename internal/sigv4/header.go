package sigv4

import (
	"fmt"
	"net/http"
	"strings"
	"time"
)

// authorization is a parsed Authorization header.
type authorization struct {
	cred          credential
	signedHeaders []string
	signature     string
}

// parseAuthorization parses
//
//	AWS4-HMAC-SHA256 Credential=AK/date/region/s3/aws4_request, SignedHeaders=a;b, Signature=hex
//
// Fields may be separated by "," or ", ". Errors wrap ErrUnsupportedAlgorithm
// (another scheme, SigV2 or SigV4A) or ErrAuthHeaderMalformed. The credential
// scope is parsed here but checked against the request by the caller.
func parseAuthorization(h string) (authorization, error) {
	h = strings.TrimSpace(h)
	algo, rest, _ := strings.Cut(h, " ")
	if algo != Algorithm {
		if algo == "" {
			return authorization{}, fmt.Errorf("%w: empty Authorization header", ErrAuthHeaderMalformed)
		}
		return authorization{}, fmt.Errorf("%w: %q", ErrUnsupportedAlgorithm, algo)
	}
	var cred, signed, sig string
	var haveCred, haveSigned, haveSig bool
	for field := range strings.SplitSeq(rest, ",") {
		field = strings.TrimSpace(field)
		if field == "" {
			continue
		}
		k, v, ok := strings.Cut(field, "=")
		if !ok {
			return authorization{}, fmt.Errorf("%w: field %q is not key=value", ErrAuthHeaderMalformed, field)
		}
		var dup bool
		switch k {
		case "Credential":
			dup, cred, haveCred = haveCred, v, true
		case "SignedHeaders":
			dup, signed, haveSigned = haveSigned, v, true
		case "Signature":
			dup, sig, haveSig = haveSig, v, true
		default:
			return authorization{}, fmt.Errorf("%w: unknown field %q", ErrAuthHeaderMalformed, k)
		}
		if dup {
			return authorization{}, fmt.Errorf("%w: duplicate field %q", ErrAuthHeaderMalformed, k)
		}
	}
	var missing []string
	if !haveCred {
		missing = append(missing, "Credential")
	}
	if !haveSigned {
		missing = append(missing, "SignedHeaders")
	}
	if !haveSig || sig == "" {
		missing = append(missing, "Signature")
	}
	if len(missing) > 0 {
		return authorization{}, fmt.Errorf("%w: missing %s", ErrAuthHeaderMalformed, strings.Join(missing, ", "))
	}
	c, err := parseCredential(cred)
	if err != nil {
		return authorization{}, fmt.Errorf("%w: %v", ErrAuthHeaderMalformed, err)
	}
	names, err := parseSignedHeaders(signed)
	if err != nil {
		return authorization{}, fmt.Errorf("%w: %v", ErrAuthHeaderMalformed, err)
	}
	return authorization{cred: c, signedHeaders: names, signature: sig}, nil
}

// headerTime returns the request time for header authentication: X-Amz-Date,
// or the Date header (any form ParseDate reads) when X-Amz-Date is absent.
func headerTime(r *http.Request) (time.Time, error) {
	if v := r.Header.Values("X-Amz-Date"); len(v) > 0 {
		t, err := parseAmzDate(strings.TrimSpace(v[0]))
		if err != nil {
			return time.Time{}, fmt.Errorf("%w: invalid X-Amz-Date %q", ErrMissingDate, v[0])
		}
		return t, nil
	}
	if d := r.Header.Get("Date"); d != "" {
		t, ok := ParseDate(d)
		if !ok {
			return time.Time{}, fmt.Errorf("%w: invalid Date %q", ErrMissingDate, d)
		}
		return t, nil
	}
	return time.Time{}, ErrMissingDate
}

// headerPayloadHash returns the x-amz-content-sha256 value header
// authentication signs; S3 requires the header.
func headerPayloadHash(r *http.Request) (string, error) {
	v := r.Header.Values("X-Amz-Content-Sha256")
	if len(v) == 0 {
		return "", ErrMissingContentSHA256
	}
	if len(v) > 1 || !validContentSHA256(v[0]) {
		return "", fmt.Errorf("%w: got %q", ErrInvalidContentSHA256, strings.Join(v, ","))
	}
	return v[0], nil
}

// verifyHeader authenticates a request signed in the Authorization header.
func (v *Verifier) verifyHeader(r *http.Request, header string, params []QueryParam) (*Result, error) {
	a, err := parseAuthorization(header)
	if err != nil {
		return nil, err
	}
	t, err := headerTime(r)
	if err != nil {
		return nil, err
	}
	if err := checkScope(a.cred, v.region(), v.service(), t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAuthHeaderMalformed, err)
	}
	secret, session, err := v.secret(a.cred.accessKey, headerToken(r))
	if err != nil {
		return nil, err
	}
	now := v.now()
	if skew := now.Sub(t).Abs(); skew > v.maxSkew() {
		return nil, fmt.Errorf("%w: request time %s, server time %s", ErrRequestTimeTooSkewed,
			t.UTC().Format(AmzDateFormat), now.UTC().Format(AmzDateFormat))
	}
	payload, err := headerPayloadHash(r)
	if err != nil {
		return nil, err
	}
	creq := canonicalRequest(r, canonicalQuery(params, ""), a.signedHeaders, payload)
	return v.check(a.cred, secret, session, t, creq, a.signature, payload, false)
}
