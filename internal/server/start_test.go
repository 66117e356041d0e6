package server

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/notify/target"
	"github.com/jogstore/jog/internal/replicate"
	"github.com/jogstore/jog/internal/storage"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// startFault makes one step of a server's start-up fail for real, by
// giving it input it refuses.
type startFault struct {
	step string
	want string // in the error New returns: the step that was meant to fail did
	// config breaks the configuration or the data dir before New.
	config func(t *testing.T, c *config.Config)
	// opened breaks the data dir once the stores are open (the fault the
	// config cannot make: the stores' own opening would refuse it).
	opened func(t *testing.T, dataDir string)
}

// startFaults fail each step of open that can fail, in open's order.
var startFaults = []startFault{
	{step: "tls", want: "TLS certificate", config: func(t *testing.T, c *config.Config) {
		c.TLSCert, c.TLSKey = filepath.Join(t.TempDir(), "cert.pem"), filepath.Join(t.TempDir(), "key.pem")
	}},
	{step: "credentials", want: "not a valid credentials file", config: func(t *testing.T, c *config.Config) {
		c.AccessKey, c.SecretKey = "", ""
		writeFile(t, filepath.Join(c.DataDir, datadir.CredentialsFile), "{}")
	}},
	{step: "event queue", want: "notify", config: func(t *testing.T, c *config.Config) {
		writeFile(t, filepath.Join(c.DataDir, "notify"), "not a directory")
	}},
	{step: "recovery", want: "recovery", opened: func(t *testing.T, dataDir string) {
		if err := os.RemoveAll(filepath.Join(dataDir, "tmp")); err != nil {
			t.Fatal(err)
		}
	}},
	{step: "iam key", want: "chmod 600", config: func(t *testing.T, c *config.Config) {
		// A server key the group or others may read (keyring.ReadKeyFile).
		path := filepath.Join(c.DataDir, datadir.IAMKeyFile)
		if err := keyring.WriteKeyFile(path, make([]byte, keyring.KeySize)); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o640); err != nil {
			t.Fatal(err)
		}
	}},
	{step: "iam", want: "iam bootstrap", config: func(t *testing.T, c *config.Config) {
		c.IAMBootstrap = filepath.Join(t.TempDir(), "missing.json")
	}},
	{step: "qos", want: datadir.QoSFile, config: func(t *testing.T, c *config.Config) {
		writeFile(t, filepath.Join(c.DataDir, datadir.QoSFile), "not JSON")
	}},
	{step: "access log", want: "access log", config: func(t *testing.T, c *config.Config) {
		c.AccessLog = t.TempDir() // a directory
	}},
	{step: "replication", want: "replicate to", config: func(t *testing.T, c *config.Config) {
		if c.Meta != "sqlite" {
			t.Skip("replication is SQLite's")
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0") // a port that refuses: closed at once
		if err != nil {
			t.Fatal(err)
		}
		ln.Close()
		c.Replicate = replicate.Target{URL: "s3://replica/jog", Endpoint: "http://" + ln.Addr().String(), Region: "us-east-1",
			AccessKey: "replica-access", SecretKey: "replica-secret"}
	}},
}

// TestStartFailureLeavesNothingRunning fails the start-up at each step
// that can fail and checks that New leaves no goroutine behind: every
// component it had started is stopped, and the stores are closed (their
// own goroutines end). A server that starts, then is closed or served
// until its context ends, leaves none either. Every case has every
// background component there is: the event queue (a notification target),
// the lifecycle worker, the console's revocation sync, the bucket log
// delivery, the reservations' activator, the orphan sweep, and on
// PostgreSQL the cross-gateway cache relay.
func TestStartFailureLeavesNothingRunning(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) { testStartFailures(t, "sqlite") })
	t.Run("postgres", func(t *testing.T) {
		c := pgtest.Own(t)
		testStartFailures(t, c.NewDatabase(t))
	})
}

func testStartFailures(t *testing.T, metaURL string) {
	for _, f := range append(startFaults, startFault{step: "closed"}, startFault{step: "served"}) {
		t.Run(f.step, func(t *testing.T) {
			cfg := config.Default()
			cfg.DataDir, cfg.Meta, cfg.Addr = t.TempDir(), metaURL, "127.0.0.1:0"
			cfg.AccessKey, cfg.SecretKey, cfg.Fsync = "JOGTESTACCESSKEY0001", "jog-test-secret-key-0000000000000000000", config.FsyncNever
			cfg.Console, cfg.ConsoleAddr = true, config.ConsoleSame
			if err := cfg.Notify.Targets.Of(target.Webhook).Set("hook=http://127.0.0.1:1/events"); err != nil {
				t.Fatal(err)
			}
			if f.config != nil {
				f.config(t, &cfg)
			}
			ignore := goleak.IgnoreCurrent()
			srv, err := newForTest(t, cfg, f.opened)
			switch {
			case f.want == "" && err != nil:
				t.Fatalf("start: %v", err)
			case f.step == "closed":
				if err := srv.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			case f.step == "served":
				serveAndStop(t, srv)
			case err == nil:
				srv.Close()
				t.Fatalf("the start did not fail at %s", f.step)
			case !strings.Contains(err.Error(), f.want):
				t.Fatalf("the start failed elsewhere than at %s: %v", f.step, err)
			}
			noGoroutinesLeft(t, ignore)
		})
	}
}

// newForTest is New, with opened (when set) run on the data dir once the
// stores are open.
func newForTest(t *testing.T, cfg config.Config, opened func(*testing.T, string)) (*Server, error) {
	ctx, log := context.Background(), slog.New(slog.NewTextHandler(io.Discard, nil))
	if opened == nil {
		return New(ctx, cfg, log)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	stores, err := storage.Open(ctx, cfg, log)
	if err != nil {
		t.Fatal(err)
	}
	opened(t, cfg.DataDir)
	return open(ctx, cfg, log, stores, time.Now())
}

// serveAndStop serves srv on a loopback port and stops it as a signal
// does, by ending Serve's context.
func serveAndStop(t *testing.T, srv *Server) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	cancel()
	if err := <-done; err != nil {
		t.Errorf("serve: %v", err)
	}
}

// noGoroutinesLeft fails t if goroutines other than those ignore names
// are still running after a while: stopping a component waits for it,
// but a closed store's and a library's goroutines end on their own.
func noGoroutinesLeft(t *testing.T, ignore goleak.Option) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := goleak.Find(ignore)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}
