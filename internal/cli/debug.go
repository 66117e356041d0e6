package cli

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// serveDebug serves Go's runtime profiles, and the server's Prometheus
// metrics at /metrics, on addr until ctx ends, unauthenticated. The
// handlers are registered on their own mux, so nothing of them reaches the
// S3 listener.
func serveDebug(ctx context.Context, addr string, log *slog.Logger, metrics http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: debugMux(metrics), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	log.Warn("serving Go profiles and metrics without authentication", "addr", ln.Addr().String())
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug listener stopped", "err", err)
		}
	}()
	return nil
}

// debugMux routes the debug listener: Go's profiles under /debug/pprof/
// and the metrics at /metrics.
func debugMux(metrics http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.Handle("/metrics", metrics)
	return mux
}
