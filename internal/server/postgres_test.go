package server_test

import (
	"errors"
	"net/http"
	"os"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// TestPostgresReady: a server with --meta postgres://… reports ready
// while PostgreSQL answers and not ready once it is stopped.
func TestPostgresReady(t *testing.T) {
	c, err := pgtest.Start() // the test's own: it stops it
	if errors.Is(err, pgtest.ErrNoPostgres) && os.Getenv("JOG_REQUIRE_POSTGRES") == "" && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			c.Stop()
		}
	}()
	url := c.NewDatabase(t)
	srv := testutil.StartServer(t, testutil.WithoutFsync(), func(cfg *config.Config) {
		cfg.Meta = url
		cfg.LifecycleInterval = 0 // no pass over buckets: this test is about readiness
	}) // waits until ready
	if _, err := os.Stat(srv.DataDir + "/jog.db"); err == nil {
		t.Error("the data dir holds jog.db")
	}
	stopped = true
	c.Stop()
	resp, err := srv.HTTPClient().Get(srv.URL + "/health/ready")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/health/ready with PostgreSQL stopped: %d, want 503", resp.StatusCode)
	}
	if resp, err := srv.HTTPClient().Get(srv.URL + "/health/live"); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("/health/live: %v, %v; want 200", resp, err)
	} else {
		resp.Body.Close()
	}
}
