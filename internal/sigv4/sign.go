package sigv4

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Client-side signing for tests and tools. A server never needs these; they
// sign exactly the way Verify checks, with service "s3" (SignServiceRequest:
// another).

// unsignedHeaders are left out of the signature by SignRequest, as AWS SDKs
// leave them out: proxies and transports may change them.
var unsignedHeaders = map[string]bool{
	"authorization":     true,
	"user-agent":        true,
	"expect":            true,
	"transfer-encoding": true,
	"x-amzn-trace-id":   true,
}

// SignRequest signs r in place for S3 with an Authorization header. It sets
// X-Amz-Date to t and X-Amz-Content-Sha256 to payloadHash, and signs host plus
// every header already in r.Header (except Authorization, User-Agent, Expect,
// Transfer-Encoding and X-Amzn-Trace-Id). The body is not read.
func SignRequest(r *http.Request, accessKey, secret, region string, t time.Time, payloadHash string) {
	SignServiceRequest(r, "s3", accessKey, secret, region, t, payloadHash)
}

// SignServiceRequest is SignRequest for service (e.g. "iam"): the
// credential scope names it.
func SignServiceRequest(r *http.Request, service, accessKey, secret, region string, t time.Time, payloadHash string) {
	if r.Header == nil {
		r.Header = make(http.Header)
	}
	r.Header.Set("X-Amz-Date", t.UTC().Format(AmzDateFormat))
	signAllHeaders(r, service, accessKey, secret, region, t, payloadHash)
}

// SignRequestDate is SignRequest for a request whose time is its Date
// header, which the caller has set (in any form ParseDate reads) to t: no
// X-Amz-Date is sent, as some clients do.
func SignRequestDate(r *http.Request, accessKey, secret, region string, t time.Time, payloadHash string) {
	r.Header.Del("X-Amz-Date")
	signAllHeaders(r, "s3", accessKey, secret, region, t, payloadHash)
}

// signAllHeaders is the common part of SignRequest and SignRequestDate.
func signAllHeaders(r *http.Request, service, accessKey, secret, region string, t time.Time, payloadHash string) {
	r.Header.Del("Authorization")
	r.Header.Set("X-Amz-Content-Sha256", payloadHash)
	names := []string{"host"}
	for k := range r.Header {
		if lk := strings.ToLower(k); !unsignedHeaders[lk] && lk != "host" {
			names = append(names, lk)
		}
	}
	slices.Sort(names)
	signRequestHeaders(r, service, accessKey, secret, region, t, payloadHash, slices.Compact(names))
}

// signRequestHeaders signs r with exactly the given (lowercase, sorted)
// header names and sets the Authorization header. X-Amz-Date and
// X-Amz-Content-Sha256 must already be set.
func signRequestHeaders(r *http.Request, service, accessKey, secret, region string, t time.Time, payloadHash string, names []string) {
	c := credential{
		accessKey:  accessKey,
		date:       t.UTC().Format(scopeDateFormat),
		region:     region,
		service:    service,
		terminator: scopeTerminator,
	}
	var rawQuery string
	if r.URL != nil {
		rawQuery = r.URL.RawQuery
	}
	creq := canonicalRequest(r, canonicalQuery(ParseQuery(rawQuery), ""), names, payloadHash)
	key := SigningKey(secret, c.date, c.region, c.service)
	sig := signHex(key, stringToSign(Algorithm, t.UTC().Format(AmzDateFormat), c.scope(), sha256Hex(creq)))
	r.Header.Set("Authorization", Algorithm+" Credential="+c.accessKey+"/"+c.scope()+
		", SignedHeaders="+strings.Join(names, ";")+", Signature="+sig)
}

// PresignRequest turns r into an S3 presigned URL valid for expires from t:
// it rewrites r.URL.RawQuery, replacing any presigned parameters already
// there, and signs host only with payload UNSIGNED-PAYLOAD.
func PresignRequest(r *http.Request, accessKey, secret, region string, t time.Time, expires time.Duration) {
	c := credential{
		accessKey:  accessKey,
		date:       t.UTC().Format(scopeDateFormat),
		region:     region,
		service:    "s3",
		terminator: scopeTerminator,
	}
	var parts []string
	for part := range strings.SplitSeq(r.URL.RawQuery, "&") {
		k, _, _ := strings.Cut(part, "=")
		switch queryUnescape(k) {
		case "", paramAlgorithm, paramCredential, paramDate, paramExpires, paramSignedHeaders, paramSignature:
			continue
		}
		parts = append(parts, part)
	}
	parts = append(parts,
		paramAlgorithm+"="+Algorithm,
		paramCredential+"="+uriEncode(c.accessKey+"/"+c.scope(), false),
		paramDate+"="+t.UTC().Format(AmzDateFormat),
		paramExpires+"="+strconv.FormatInt(int64(expires/time.Second), 10),
		paramSignedHeaders+"=host",
	)
	r.URL.RawQuery = strings.Join(parts, "&")
	creq := canonicalRequest(r, canonicalQuery(ParseQuery(r.URL.RawQuery), ""), []string{"host"}, UnsignedPayload)
	key := SigningKey(secret, c.date, c.region, c.service)
	sig := signHex(key, stringToSign(Algorithm, t.UTC().Format(AmzDateFormat), c.scope(), sha256Hex(creq)))
	r.URL.RawQuery += "&" + paramSignature + "=" + sig
}
