// Package queryapitest sends signed requests to a query API's handler in
// tests, as the SDKs do, and checks the error answered.
package queryapitest

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/sigv4"
)

// Do sends a form POSTed to h, signed for service by key (with a session
// token when token is not empty), with no x-amz-content-sha256, as the
// SDKs send query API requests.
func Do(h http.Handler, service, key, secret, token, form string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://localhost/", strings.NewReader(form))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if token != "" {
		r.Header.Set(sigv4.SecurityTokenHeader, token)
	}
	sum := sha256.Sum256([]byte(form))
	sigv4.SignServiceRequest(r, service, key, secret, sigv4.DefaultRegion, time.Now(), hex.EncodeToString(sum[:]))
	r.Header.Del("X-Amz-Content-Sha256") // the verifier hashes the body
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// WantCode fails the test unless w answered status with the error code.
func WantCode(t *testing.T, what string, w *httptest.ResponseRecorder, status int, code string) {
	t.Helper()
	if w.Code != status || !strings.Contains(w.Body.String(), "<Code>"+code+"</Code>") {
		t.Fatalf("%s: %d %s, want %d %s", what, w.Code, w.Body, status, code)
	}
}
