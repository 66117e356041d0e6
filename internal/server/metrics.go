package server

import (
	"crypto/subtle"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/metrics"
)

// metricsPath is where the S3 port serves Prometheus metrics.
const metricsPath = "/metrics"

// withMetrics serves GET/HEAD /metrics on the S3 port to a scraper
// (docs/OPERATIONS.md):
//
//   - with "Authorization: Bearer <--metrics-token>": the metrics. Bearer
//     is no S3 signature scheme, so no S3 request is taken; a Bearer
//     token that does not match (or with no token configured) is refused
//     here with 403, so that a misconfigured scraper is told why.
//   - unsigned, with --metrics-public: the metrics. This hides an
//     anonymous path-style request to a bucket named "metrics" (a signed
//     one still reaches it, and so does a virtual-hosted one).
//   - anything else goes on to S3, as any request: an unsigned scrape
//     without --metrics-public gets S3's answer to an anonymous request
//     for bucket "metrics" (403 AccessDenied unless that bucket is
//     public), which tells a prober nothing about the endpoint, and a
//     signed request for the bucket "metrics" is served as always.
func (s *Server) withMetrics(next http.Handler) http.Handler {
	h := s.metrics.Handler()
	token := []byte(s.cfg.MetricsToken)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != metricsPath || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
			next.ServeHTTP(w, r)
			return
		}
		if bearer, ok := bearerToken(r); ok {
			if len(token) == 0 || subtle.ConstantTimeCompare([]byte(bearer), token) != 1 {
				http.Error(w, "metrics: bearer token refused", http.StatusForbidden)
				return
			}
			h.ServeHTTP(w, r)
			return
		}
		if s.cfg.MetricsPublic && unsigned(r) {
			h.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bearerToken returns the token of an "Authorization: Bearer" header.
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// countInFlight counts the requests next is serving
// (jog_s3_requests_in_flight).
func countInFlight(next http.Handler, req *metrics.Requests) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req.Begin()
		defer req.End()
		next.ServeHTTP(w, r)
	})
}

// MetricsHandler serves the server's metrics without authentication: for
// --debug-addr, a private listener.
func (s *Server) MetricsHandler() http.Handler { return s.metrics.Handler() }
