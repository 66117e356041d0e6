package server

import (
	"context"
	"net/http"
	"time"
)

// withHealth answers GET/HEAD /health/live and /health/ready without auth.
// Signed requests to those paths still reach S3 (a bucket named "health").
func (s *Server) withHealth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; (p == "/health/live" || p == "/health/ready") &&
			(r.Method == http.MethodGet || r.Method == http.MethodHead) && unsigned(r) {
			if p == "/health/live" {
				w.WriteHeader(http.StatusOK)
			} else {
				s.ready(w, r)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

func unsigned(r *http.Request) bool {
	return r.Header.Get("Authorization") == "" && r.URL.Query().Get("X-Amz-Signature") == ""
}

// ready reports 200 while the metadata store answers and the server is not
// draining, else 503.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		http.Error(w, "draining", http.StatusServiceUnavailable)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.stores.Ready(ctx); err != nil {
		http.Error(w, "metadata store unavailable", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}
