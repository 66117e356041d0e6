package server

import (
	"net/http"

	"github.com/jogstore/jog/internal/sigv4"
)

// byService sends a request whose credential scope names one of the
// services in apis (IAM's "iam") to that API, and every other to s3. The
// scope is read unverified here; each API's verifier requires its own
// service, so a request signed for one is never served by another.
func byService(s3 http.Handler, apis map[string]http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h, ok := apis[sigv4.ScopeService(r)]; ok {
			h.ServeHTTP(w, r)
			return
		}
		s3.ServeHTTP(w, r)
	})
}
