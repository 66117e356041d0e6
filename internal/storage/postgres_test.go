package storage

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta/postgres"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// startPostgres starts a cluster of the test's own (it is stopped by the
// test), skipped without PostgreSQL as pgtest.Shared is. stop stops it
// once, and again not at all.
func startPostgres(t *testing.T) (c *pgtest.Cluster, stop func()) {
	t.Helper()
	c, err := pgtest.Start()
	if errors.Is(err, pgtest.ErrNoPostgres) && os.Getenv("JOG_REQUIRE_POSTGRES") == "" && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			c.Stop()
		}
	}
	t.Cleanup(stop)
	return c, stop
}

// TestPostgres: --meta postgres://… opens the metadata in PostgreSQL and
// blobs in the data dir; an Existing open (jog fsck) refuses a database
// without a JOG schema and creates none; Ready follows the server; the
// URL's password shows in no log line and no error.
func TestPostgres(t *testing.T) {
	c, stop := startPostgres(t)
	const password = "s3cret-pw"
	url := strings.Replace(c.NewDatabase(t), "jog@", "jog:"+password+"@", 1) // trust auth: any password is accepted
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg := testConfig(t)
	cfg.Meta = url
	ctx := t.Context()

	if err := os.MkdirAll(cfg.DataDir, 0o750); err != nil {
		t.Fatal(err)
	}
	if s, err := OpenWith(ctx, cfg, log, Options{Existing: true, Unlocked: true}); !errors.Is(err, datadir.ErrNotDataDir) {
		if err == nil {
			s.Close()
		}
		t.Fatalf("Existing open of an empty database: %v, want ErrNotDataDir", err)
	}
	if ok, err := postgres.HasSchema(ctx, url); err != nil || ok {
		t.Fatalf("after the refused open: schema %v, %v; want none created", ok, err)
	}

	s, err := Open(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.DataDir, datadir.DBFile)); err == nil {
		t.Errorf("a PostgreSQL data dir holds %s", datadir.DBFile)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenWith(ctx, cfg, log, Options{Existing: true, Unlocked: true})
	if err != nil {
		t.Fatalf("Existing open once migrated: %v", err)
	}
	ro.Close()

	s, err = Open(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stop()
	readyCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.Ready(readyCtx); err == nil {
		t.Error("Ready with PostgreSQL stopped: nil, want an error")
	}
	if again, err := OpenWith(ctx, cfg, log, Options{Unlocked: true}); err == nil {
		again.Close()
		t.Error("Open with PostgreSQL stopped succeeded")
	} else if strings.Contains(err.Error(), password) {
		t.Errorf("the error shows the password: %v", err)
	} else {
		t.Logf("open with PostgreSQL stopped: %v", err)
	}
	if strings.Contains(logs.String(), password) {
		t.Errorf("the log shows the password:\n%s", logs.String())
	}
	if !strings.Contains(logs.String(), "jog:xxxxx@") {
		t.Errorf("the log does not name the database (redacted):\n%s", logs.String())
	}
}

// TestPostgresErrorRedacted: a connection string the driver refuses is
// reported without its password, wherever in the string it is.
func TestPostgresErrorRedacted(t *testing.T) {
	for _, meta := range []string{
		"postgres://jog:s3cret-pw@127.0.0.1/x?connect_timeout=soon",
		"postgres://jog@127.0.0.1/x?password=s3cret-pw&connect_timeout=soon",
		"host=127.0.0.1 password=s3cret-pw connect_timeout=soon",
	} {
		cfg := testConfig(t)
		cfg.Meta = meta
		s, err := Open(t.Context(), cfg, nil)
		if err == nil {
			s.Close()
			t.Fatalf("%s: opened", config.RedactMeta(meta))
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("the error shows the password: %v", err)
		}
	}
}
