package sigv2

import (
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

// signature returns base64(HMAC-SHA1(secret, stringToSign)).
func signature(secret, stringToSign string) string {
	return base64.StdEncoding.EncodeToString(mac(secret, stringToSign))
}

func mac(secret, stringToSign string) []byte {
	h := hmac.New(sha1.New, []byte(secret))
	h.Write([]byte(stringToSign))
	return h.Sum(nil)
}

// signatureMatches compares the provided base64 signature with the expected
// one in constant time. It compares the decoded bytes, so padding-equivalent
// encodings are equal.
func signatureMatches(secret, stringToSign, provided string) bool {
	got, err := base64.StdEncoding.DecodeString(provided)
	if err != nil {
		return false
	}
	return hmac.Equal(got, mac(secret, stringToSign))
}

// Sign signs r for header authentication, path style: it sets Date to the
// current time when neither Date nor x-amz-date is present, then sets
// Authorization to "AWS accessKey:signature". The canonical resource is the
// path r will be sent with, so set r.URL (and r.URL.RawPath, for a particular
// encoding) before signing. routing names the parameters signed besides
// AWS's sub-resources, as Verifier.Routing. For tests and tools.
func Sign(r *http.Request, accessKey, secret string, routing ...string) {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	if r.Header.Get("Date") == "" && len(r.Header.Values("X-Amz-Date")) == 0 {
		r.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	date := r.Header.Get("Date")
	if len(r.Header.Values("X-Amz-Date")) > 0 {
		date = ""
	}
	var params []sigv4.QueryParam
	if r.URL != nil {
		params = sigv4.ParseQuery(r.URL.RawQuery)
	}
	sts := stringToSignPrefix(r, date, canonicalAmzHeaders(r.Header, nil)) +
		canonicalResource("", wirePath(r), params, signedSet(routing))
	r.Header.Set("Authorization", "AWS "+accessKey+":"+signature(secret, sts))
}

// Presign adds SigV2 query-string authentication to r, path style: the
// AWSAccessKeyId, Expires and Signature query parameters, valid until expires.
// Headers set on r that are signed (Content-MD5, Content-Type, x-amz-*) must be
// sent with the URL; routing is as for Sign. For tests and tools.
func Presign(r *http.Request, accessKey, secret string, expires time.Time, routing ...string) {
	if r.Header == nil {
		r.Header = http.Header{}
	}
	exp := strconv.FormatInt(expires.Unix(), 10)
	params := sigv4.ParseQuery(r.URL.RawQuery)
	sts := stringToSignPrefix(r, exp, canonicalAmzHeaders(r.Header, amzQueryParams(params))) +
		canonicalResource("", wirePath(r), params, signedSet(routing))
	q := paramAccessKey + "=" + url.QueryEscape(accessKey) + "&" + paramExpires + "=" + exp +
		"&" + paramSignature + "=" + url.QueryEscape(signature(secret, sts))
	if r.URL.RawQuery != "" {
		q = r.URL.RawQuery + "&" + q
	}
	r.URL.RawQuery = q
}
