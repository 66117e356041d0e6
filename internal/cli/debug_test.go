package cli

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/server"
)

// TestDebugMetrics: the debug listener's mux serves a real server's
// metrics at /metrics without authentication, and the profiles.
func TestDebugMetrics(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir, cfg.AccessKey, cfg.SecretKey, cfg.LifecycleInterval = t.TempDir(), "AKDEBUGTEST", "debug-secret-key", 0
	srv, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(debugMux(srv.MetricsHandler()))
	defer ts.Close()
	for path, want := range map[string]string{"/metrics": "jog_disk_free_bytes", "/debug/pprof/": "goroutine"} {
		resp, err := http.Get(ts.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, %.100s; want 200 with %q", path, resp.StatusCode, body, want)
		}
	}
}
