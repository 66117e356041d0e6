package server_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/notify/target"
	"github.com/jogstore/jog/internal/testutil"
)

// TestEventsOffWithoutTargets: a server with no notification target
// builds no queue (no directory, no metric); one with a target has its
// queue on disk, locked, and its metrics.
func TestEventsOffWithoutTargets(t *testing.T) {
	scrape := func(srv *testutil.Server) string {
		resp, err := http.Get(srv.URL + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	public := func(c *config.Config) { c.MetricsPublic, c.LifecycleInterval = true, 0 }
	off := testutil.StartServer(t, testutil.WithoutFsync(), public)
	if _, err := os.Stat(filepath.Join(off.DataDir, "notify")); !os.IsNotExist(err) {
		t.Errorf("a server without targets made notify/: %v", err)
	}
	if m := scrape(off); strings.Contains(m, "jog_notify_") {
		t.Error("a server without targets has notification metrics")
	}
	on := testutil.StartServer(t, testutil.WithoutFsync(), public, func(c *config.Config) {
		_ = c.Notify.Targets.Of(target.Webhook).Set("hook=http://127.0.0.1:1/events")
	})
	gws, err := os.ReadDir(filepath.Join(on.DataDir, "notify"))
	if err != nil || len(gws) != 1 {
		t.Fatalf("notify/ of a server with a target: %v %v", gws, err)
	}
	if m := scrape(on); !strings.Contains(m, `jog_notify_queued_total{target="arn:jog:sqs:`+testutil.Region+`:hook:webhook"} 0`) {
		t.Errorf("no notification metrics:\n%s", m)
	}
}
