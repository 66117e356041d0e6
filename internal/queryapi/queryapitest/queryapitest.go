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

	"github.com/jogstore/jog/internal/queryapi"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/testutil/golden"
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

// GoldenRequestID is the request ID of the golden files' responses.
const GoldenRequestID = "00000000-0000-0000-0000-000000000000"

// CheckResponse writes result as action's response (namespace xmlns) and
// compares it with testdata/golden/<name>.xml of package pkg
// (golden.Check).
func CheckResponse(t *testing.T, pkg, xmlns, name, action string, result any, update bool) {
	t.Helper()
	w := httptest.NewRecorder()
	if err := queryapi.WriteResponse(w, xmlns, action, GoldenRequestID, result); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, pkg, name, w.Body.Bytes(), update)
}
