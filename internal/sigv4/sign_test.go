package sigv4

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Round trips through this package's own client helpers, which tests and
// tools use to build valid requests.

func TestSignRequestRoundTrip(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	v := &Verifier{Region: "eu-west-3", Credentials: staticCreds{"AK": "SK"}, Now: fixedNow(now)}
	for _, key := range oddKeys {
		r := httptest.NewRequest(http.MethodPut, "http://s3.local/bucket/x?uploads&prefix=a%20b", strings.NewReader("body"))
		r.URL.Path = "/bucket/" + key
		r.Header.Set("Content-Type", "text/plain")
		r.Header.Set("X-Amz-Meta-A", " spaced   out ")
		SignRequest(r, "AK", "SK", "eu-west-3", now, hexSHA("body"))
		res, err := v.Verify(r)
		if err != nil {
			t.Errorf("key %q: %v", key, err)
			continue
		}
		if res.AccessKey != "AK" || res.Presigned || res.PayloadHash != hexSHA("body") || res.Scope != "20260701/eu-west-3/s3/aws4_request" {
			t.Errorf("key %q: result %+v", key, res)
		}
		r.Header.Set("Content-Type", "text/html")
		if _, err := v.Verify(r); !errors.Is(err, ErrSignatureDoesNotMatch) {
			t.Errorf("key %q: changed signed header: %v", key, err)
		}
	}
}

func TestPresignRequestRoundTrip(t *testing.T) {
	now := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	v := &Verifier{Credentials: staticCreds{"AK": "SK"}, Now: fixedNow(now.Add(time.Hour))}
	for _, key := range oddKeys {
		r := httptest.NewRequest(http.MethodGet, "http://s3.local/bucket/x?X-Amz-Expires=1&response-content-type=a%2Fb", nil)
		r.URL.Path = "/bucket/" + key
		PresignRequest(r, "AK", "SK", DefaultRegion, now, 2*time.Hour)
		if strings.Count(r.URL.RawQuery, "X-Amz-Expires=") != 1 {
			t.Fatalf("stale presign parameters kept: %s", r.URL.RawQuery)
		}
		res, err := v.Verify(r)
		if err != nil {
			t.Errorf("key %q: %v", key, err)
			continue
		}
		if !res.Presigned || res.PayloadHash != UnsignedPayload || !res.Date.Equal(now) {
			t.Errorf("key %q: result %+v", key, res)
		}
		late := *v
		late.Now = fixedNow(now.Add(2*time.Hour + time.Second))
		if _, err := late.Verify(r); !errors.Is(err, ErrExpired) {
			t.Errorf("key %q: after expiry: %v", key, err)
		}
	}
}

// TestSigningKeyCache exercises the cache concurrently past its bound.
func TestSigningKeyCache(t *testing.T) {
	var c keyCache
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2*maxCachedKeys; i++ {
				secret := fmt.Sprintf("secret-%d", i%(maxCachedKeys+100))
				got := c.get(secret, "20260101", "us-east-1", "s3")
				if i%97 == 0 && string(got) != string(SigningKey(secret, "20260101", "us-east-1", "s3")) {
					t.Errorf("wrong key for %s", secret)
					return
				}
			}
		}()
	}
	wg.Wait()
	c.mu.Lock()
	n := len(c.keys)
	c.mu.Unlock()
	if n > maxCachedKeys {
		t.Fatalf("cache holds %d keys, bound is %d", n, maxCachedKeys)
	}
}

// TestResultSigningKeyIsACopy: callers may scribble on Result.SigningKey
// without corrupting the shared cache.
func TestResultSigningKeyIsACopy(t *testing.T) {
	res, err := exampleVerifier().Verify(exampleGetObject())
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.SigningKey {
		res.SigningKey[i] = 0
	}
	if _, err := exampleVerifier().Verify(exampleGetObject()); err != nil {
		t.Fatalf("cache corrupted through Result.SigningKey: %v", err)
	}
}

// TestServiceMustMatch: a request signed for one service verifies only
// with a Verifier of that service, and ScopeService names it.
func TestServiceMustMatch(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct{ signed, verifier string }{{"iam", "iam"}, {"iam", ""}, {"s3", "iam"}, {"s3", "s3"}} {
		r, _ := http.NewRequest(http.MethodPost, "http://localhost/", nil)
		SignServiceRequest(r, tc.signed, "AK", "SK", DefaultRegion, now, EmptySHA256)
		if got := ScopeService(r); got != tc.signed {
			t.Errorf("ScopeService = %q, want %q", got, tc.signed)
		}
		v := &Verifier{Service: tc.verifier, Credentials: staticCreds{"AK": "SK"}, Now: func() time.Time { return now }}
		_, err := v.Verify(r)
		want := v.service() == tc.signed
		if (err == nil) != want {
			t.Errorf("signed for %q, verifier %q: err %v", tc.signed, tc.verifier, err)
		}
		if !want && !errors.Is(err, ErrAuthHeaderMalformed) {
			t.Errorf("signed for %q, verifier %q: err %v, want ErrAuthHeaderMalformed", tc.signed, tc.verifier, err)
		}
	}
}
