package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Algorithm is the only signing algorithm Verify accepts.
const Algorithm = "AWS4-HMAC-SHA256"

// AmzDateFormat is the layout of X-Amz-Date ("20130524T000000Z").
const AmzDateFormat = "20060102T150405Z"

// parseAmzDate parses an X-Amz-Date value strictly: time.Parse alone would
// also accept fractional seconds, which the string to sign cannot carry.
func parseAmzDate(s string) (time.Time, error) {
	t, err := time.Parse(AmzDateFormat, s)
	if err != nil {
		return time.Time{}, err
	}
	if t.Format(AmzDateFormat) != s {
		return time.Time{}, fmt.Errorf("X-Amz-Date %q is not in the form %s", s, AmzDateFormat)
	}
	return t, nil
}

// scopeDateFormat is the layout of the date in a credential scope.
const scopeDateFormat = "20060102"

// scopeTerminator ends every SigV4 credential scope.
const scopeTerminator = "aws4_request"

// SigningKey derives the SigV4 signing key:
//
//	HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request")
//
// date is the scope date (yyyymmdd). The result is a fresh slice.
func SigningKey(secret, date, region, service string) []byte {
	k := hmacSHA256([]byte("AWS4"+secret), date)
	k = hmacSHA256(k, region)
	k = hmacSHA256(k, service)
	return hmacSHA256(k, scopeTerminator)
}

// hmacSHA256 returns HMAC-SHA256(key, data).
func hmacSHA256(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}

// sha256Hex returns the lowercase hex SHA-256 of s.
func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// signHex returns hex(HMAC-SHA256(signingKey, stringToSign)): the signature.
func signHex(signingKey []byte, stringToSign string) string {
	return hex.EncodeToString(hmacSHA256(signingKey, stringToSign))
}

// stringToSign joins algorithm, the request time (AmzDateFormat), the
// credential scope and the remaining lines with "\n". For a request, rest is
// the hex SHA-256 of the canonical request; for an aws-chunked chunk it is the
// previous signature, the empty-string hash and the chunk hash (algorithm
// "AWS4-HMAC-SHA256-PAYLOAD").
func stringToSign(algorithm, amzDate, scope string, rest ...string) string {
	var b strings.Builder
	n := len(algorithm) + len(amzDate) + len(scope) + 2
	for _, s := range rest {
		n += 1 + len(s)
	}
	b.Grow(n)
	b.WriteString(algorithm)
	b.WriteByte('\n')
	b.WriteString(amzDate)
	b.WriteByte('\n')
	b.WriteString(scope)
	for _, s := range rest {
		b.WriteByte('\n')
		b.WriteString(s)
	}
	return b.String()
}

// maxCachedKeys bounds the signing-key cache; it is cleared when full. Keys
// change once a day per credential, so the bound is only reached under churn.
const maxCachedKeys = 1024

// keyCache memoises SigningKey, which costs four HMACs per request otherwise.
type keyCache struct {
	mu   sync.Mutex
	keys map[string][]byte
}

// signingKeys is shared by all Verifiers; entries are keyed by the secret too,
// so verifiers with different credential sources cannot collide.
var signingKeys keyCache

// get returns the signing key for the arguments, deriving it on a miss. The
// returned slice is shared: callers must not modify it.
func (c *keyCache) get(secret, date, region, service string) []byte {
	id := secret + "\x00" + date + "\x00" + region + "\x00" + service
	c.mu.Lock()
	k, ok := c.keys[id]
	c.mu.Unlock()
	if ok {
		return k
	}
	k = SigningKey(secret, date, region, service)
	c.mu.Lock()
	if c.keys == nil || len(c.keys) >= maxCachedKeys {
		c.keys = make(map[string][]byte)
	}
	c.keys[id] = k
	c.mu.Unlock()
	return k
}
