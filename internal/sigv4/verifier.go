package sigv4

import (
	"crypto/hmac"
	"fmt"
	"net/http"
	"time"
)

// Credentials looks up the secret key for an access key. ok is false when the
// access key is unknown.
type Credentials interface {
	SecretKey(accessKey string) (secret string, ok bool)
}

// SessionCredentials are Credentials that also resolve temporary
// credentials: an access key sent with a session token (the
// X-Amz-Security-Token header, or query parameter of a presigned URL). The
// Verifier asks SessionKey, not SecretKey, for a request that carries a
// token; a request without one never costs more than SecretKey.
type SessionCredentials interface {
	Credentials
	// SessionKey returns the secret of accessKey as the token states it
	// and the session the token describes, which the Verifier hands back
	// in Result.Holder. Errors wrap ErrInvalidToken (a token that does
	// not open, or is not accessKey's), ErrExpiredToken or
	// ErrInvalidAccessKeyID.
	SessionKey(accessKey, token string) (secret string, session any, err error)
}

// HolderCredentials are Credentials that also say who holds a long-term
// key, found in the same look-up as its secret: the Verifier hands it
// back in Result.Holder, so that its caller need not look the key up a
// second time to learn whose request it is.
type HolderCredentials interface {
	Credentials
	KeyHolder(accessKey string) (secret string, holder any, ok bool)
}

// SecurityTokenHeader is the header, and query parameter of a presigned
// URL, that carries a session token.
const SecurityTokenHeader = "X-Amz-Security-Token"

// DefaultMaxSkew is the clock skew S3 tolerates.
const DefaultMaxSkew = 15 * time.Minute

// DefaultRegion is used when Verifier.Region is empty.
const DefaultRegion = "us-east-1"

// Verifier authenticates SigV4-signed S3 requests. Its fields are read-only
// once it is in use; a Verifier is safe for concurrent use.
type Verifier struct {
	// Region is the server's region; a credential scope's region must equal
	// it. Empty means DefaultRegion.
	Region string
	// Service is the service the requests are for; a credential scope's
	// service must equal it, so a request signed for one API is never
	// served by another. Empty means "s3".
	Service string
	// Credentials resolves access keys. Nil rejects every access key.
	Credentials Credentials
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// MaxSkew is the largest accepted difference between the request time
	// and Now; 0 means DefaultMaxSkew.
	MaxSkew time.Duration
}

// Result describes an authenticated request.
type Result struct {
	AccessKey string
	Presigned bool
	// PayloadHash is the x-amz-content-sha256 value the signature covers: a
	// lowercase hex SHA-256, UNSIGNED-PAYLOAD or a STREAMING-* value. For a
	// presigned URL it is UNSIGNED-PAYLOAD unless the query or a header
	// carried x-amz-content-sha256.
	PayloadHash string
	// Signature is the request's (seed) signature, lowercase hex.
	Signature string
	// SigningKey is the derived key, for verifying aws-chunked chunk
	// signatures. It is the caller's copy.
	SigningKey []byte
	// Date is the request time (X-Amz-Date, or Date for header auth), UTC.
	Date time.Time
	// Scope is the credential scope, e.g. "20130524/us-east-1/s3/aws4_request".
	Scope string
	// Holder is who the credentials say holds the access key: what
	// SessionCredentials.SessionKey returned for the request's session
	// token, or HolderCredentials.KeyHolder for a long-term key; nil when
	// the credentials do not say.
	Holder any
}

// Verify authenticates r without reading its body. It returns ErrMissingAuth
// when r carries neither an Authorization header nor presigned query
// parameters (an anonymous request); otherwise a *Result, or an error wrapping
// one of the sentinels in errors.go.
func (v *Verifier) Verify(r *http.Request) (*Result, error) {
	var rawQuery string
	if r.URL != nil {
		rawQuery = r.URL.RawQuery
	}
	params := ParseQuery(rawQuery)
	authz, hasHeader := r.Header["Authorization"]
	presigned := isPresigned(params)
	v2 := isSigV2Query(params)
	switch {
	case hasHeader && (presigned || v2):
		return nil, fmt.Errorf("%w: only one of the X-Amz-Algorithm query parameter, Signature query string parameter or the Authorization header should be specified", ErrMultipleAuth)
	case hasHeader:
		if len(authz) != 1 {
			return nil, fmt.Errorf("%w: %d Authorization headers", ErrAuthHeaderMalformed, len(authz))
		}
		return v.verifyHeader(r, authz[0], params)
	case presigned:
		return v.verifyPresigned(r, params)
	case v2:
		return nil, fmt.Errorf("%w: signature version 2 presigned URL", ErrUnsupportedAlgorithm)
	}
	return nil, ErrMissingAuth
}

func (v *Verifier) region() string {
	if v.Region == "" {
		return DefaultRegion
	}
	return v.Region
}

func (v *Verifier) service() string {
	if v.Service == "" {
		return "s3"
	}
	return v.Service
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

func (v *Verifier) secret(accessKey, token string) (string, any, error) {
	return Resolve(v.Credentials, accessKey, token)
}

// Resolve returns the secret of an access key and who holds it (nil when
// c does not say), with the session token the request carries ("" when
// none): ErrInvalidAccessKeyID for an unknown key (a temporary one sent
// without its token too), SessionKey's errors for a token. A nil c knows
// no key. It serves every signature version's verifier.
func Resolve(c Credentials, accessKey, token string) (string, any, error) {
	if token != "" {
		sc, ok := c.(SessionCredentials)
		if !ok {
			return "", nil, fmt.Errorf("%w: this server issues no session tokens", ErrInvalidToken)
		}
		return sc.SessionKey(accessKey, token)
	}
	switch c := c.(type) {
	case nil:
	case HolderCredentials:
		if s, holder, ok := c.KeyHolder(accessKey); ok {
			return s, holder, nil
		}
	default:
		if s, ok := c.SecretKey(accessKey); ok {
			return s, nil, nil
		}
	}
	return "", nil, fmt.Errorf("%w: %q", ErrInvalidAccessKeyID, accessKey)
}

// headerToken is the session token of a request signed in its headers
// ("" when none): a map lookup, no allocation.
func headerToken(r *http.Request) string {
	if v := r.Header[SecurityTokenHeader]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// check signs the canonical request and compares the result with the
// signature the client provided, in constant time.
func (v *Verifier) check(c credential, secret string, session any, t time.Time, creq, provided, payload string, presigned bool) (*Result, error) {
	key := signingKeys.get(secret, c.date, c.region, c.service)
	scope := c.scope()
	want := signHex(key, stringToSign(Algorithm, t.UTC().Format(AmzDateFormat), scope, sha256Hex(creq)))
	if !hmac.Equal([]byte(want), []byte(provided)) {
		return nil, ErrSignatureDoesNotMatch
	}
	return &Result{
		AccessKey:   c.accessKey,
		Presigned:   presigned,
		PayloadHash: payload,
		Signature:   want,
		SigningKey:  append([]byte(nil), key...),
		Date:        t.UTC(),
		Scope:       scope,
		Holder:      session,
	}, nil
}
