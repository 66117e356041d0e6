package sigv2

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

// Credentials looks up the secret key for an access key; ok is false when the
// access key is unknown. It has the shape of sigv4.Credentials, so one value
// serves both verifiers.
type Credentials interface {
	SecretKey(accessKey string) (secret string, ok bool)
}

// DefaultMaxSkew is the clock skew S3 tolerates for header authentication.
const DefaultMaxSkew = 15 * time.Minute

// Verifier authenticates SigV2-signed S3 requests. Its fields are read-only
// once it is in use; a Verifier is safe for concurrent use.
type Verifier struct {
	// Credentials resolves access keys. Nil rejects every access key.
	Credentials Credentials
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// MaxSkew is the largest accepted difference between the request's Date
	// (or x-amz-date) and Now; 0 means DefaultMaxSkew.
	MaxSkew time.Duration
	// Domain, when set, enables virtual-hosted-style requests: a Host of
	// "<bucket>.<Domain>[:port]" puts "/<bucket>" in front of the path in the
	// canonical resource. It must match the router's domain.
	Domain string
	// Routing names the query parameters, besides the sub-resources AWS
	// signs, by which the server chooses a request's operation. They are
	// signed too: appending one to a signed request (a presigned URL) must
	// break its signature, not turn it into another operation. The S3 edge
	// sets them from its router (s3api.SignedRoutingParams).
	Routing []string
}

// Result describes an authenticated request.
type Result struct {
	AccessKey string
	Presigned bool
	// Holder is who the credentials say holds the access key, as in
	// sigv4.Result.
	Holder any
}

// Query parameters of SigV2 query-string authentication.
const (
	paramAccessKey = "AWSAccessKeyId"
	paramSignature = "Signature"
	paramExpires   = "Expires"
)

// IsV2 reports whether r carries SigV2 authentication: an Authorization header
// of the "AWS" scheme ("AWS AKID:signature"), or the AWSAccessKeyId and
// Signature query parameters. Expires is not required here, so that a
// presigned URL missing it is routed to Verify and reported as malformed;
// this is exactly the set of requests sigv4 refuses as signature version 2.
func IsV2(r *http.Request) bool {
	if h := r.Header.Values("Authorization"); len(h) > 0 {
		scheme, _, _ := strings.Cut(strings.TrimSpace(h[0]), " ")
		return scheme == "AWS"
	}
	if r.URL == nil {
		return false
	}
	var ak, sig bool
	for _, p := range sigv4.ParseQuery(r.URL.RawQuery) {
		ak = ak || p.Key == paramAccessKey
		sig = sig || p.Key == paramSignature
	}
	return ak && sig
}

// Verify authenticates r without reading its body. It returns
// sigv4.ErrMissingAuth when r carries neither an Authorization header nor
// SigV2 query parameters; otherwise a *Result, or an error wrapping one of the
// sigv4 sentinels.
func (v *Verifier) Verify(r *http.Request) (*Result, error) {
	var params []sigv4.QueryParam
	if r.URL != nil {
		params = sigv4.ParseQuery(r.URL.RawQuery)
	}
	authz, hasHeader := r.Header["Authorization"]
	presigned := hasParam(params, paramAccessKey) || hasParam(params, paramSignature)
	switch {
	case hasHeader && presigned:
		return nil, fmt.Errorf("%w: only one of the Signature query string parameter or the Authorization header should be specified", sigv4.ErrMultipleAuth)
	case hasHeader:
		if len(authz) != 1 {
			return nil, fmt.Errorf("%w: %d Authorization headers", sigv4.ErrAuthHeaderMalformed, len(authz))
		}
		return v.verifyHeader(r, authz[0], params)
	case presigned:
		return v.verifyPresigned(r, params)
	}
	return nil, sigv4.ErrMissingAuth
}

func (v *Verifier) now() time.Time {
	if v.Now == nil {
		return time.Now()
	}
	return v.Now()
}

func (v *Verifier) maxSkew() time.Duration {
	if v.MaxSkew <= 0 {
		return DefaultMaxSkew
	}
	return v.MaxSkew
}

// secret resolves an access key, with the session token the request
// carries ("" when none), as sigv4's Verifier does.
func (v *Verifier) secret(accessKey, token string) (string, any, error) {
	return sigv4.Resolve(v.Credentials, accessKey, token)
}

// check computes the string to sign for each candidate canonical resource and
// compares its signature with the one the client provided, in constant time.
func (v *Verifier) check(r *http.Request, params []sigv4.QueryParam, secret, provided, date, amz string) error {
	prefix := stringToSignPrefix(r, date, amz)
	bucket := virtualHostBucket(requestHost(r), v.Domain)
	signed := signedSet(v.Routing)
	var first string
	for i, path := range resourcePaths(r, bucket != "") {
		sts := prefix + canonicalResource(bucket, path, params, signed)
		if i == 0 {
			first = sts
		}
		if signatureMatches(secret, sts, provided) {
			return nil
		}
	}
	return fmt.Errorf("%w: string to sign %q", sigv4.ErrSignatureDoesNotMatch, first)
}
