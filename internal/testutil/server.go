// Package testutil starts real JOG servers for tests: the production server
// code on a loopback port chosen by the kernel, over a fresh data dir.
package testutil

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/server"
)

// Fixed test credentials and region.
const (
	AccessKey = "JOGTESTACCESSKEY0001"
	SecretKey = "jog-test-secret-key-0000000000000000000"
	Region    = "us-east-1"
)

// Server is a running JOG server.
type Server struct {
	URL  string // http://127.0.0.1:port
	Addr string // 127.0.0.1:port
	// Console is the web console's origin (http://127.0.0.1:port): its
	// own listener's, or URL with --console-addr=same; "" when it is off.
	Console string
	DataDir string
	Config  config.Config
	// Blobs is the running server's blob store, for tests that count or
	// walk blobs (its own packs included, which another store would skip).
	Blobs blob.Store
	// Swept is closed when the start-up orphan sweep has ended.
	Swept <-chan struct{}
	stop  func()
}

// Option adjusts the config before start.
type Option func(*config.Config)

// WithDomain enables virtual-hosted-style addressing under domain.
func WithDomain(d string) Option { return func(c *config.Config) { c.Domain = d } }

// WithRegion sets --region, the region clients must sign for (the
// default is Region).
func WithRegion(r string) Option { return func(c *config.Config) { c.Region = r } }

// WithoutFsync runs the server with --fsync never, for tests that write many
// objects and do not test durability.
func WithoutFsync() Option { return func(c *config.Config) { c.Fsync = config.FsyncNever } }

// WithMaxRequests bounds concurrent S3 requests (503 SlowDown beyond).
func WithMaxRequests(n int) Option { return func(c *config.Config) { c.MaxRequests = n } }

// WithBodyLimits sets how slowly a request body may arrive
// (--body-idle-timeout, --body-min-rate in bytes/s).
func WithBodyLimits(idle time.Duration, minRate int64) Option {
	return func(c *config.Config) { c.BodyIdleTimeout, c.BodyMinRate = idle, config.Rate(minRate) }
}

// WithInlineMax sets --inline-max: objects up to n bytes are stored in the
// metadata database (0: none).
func WithInlineMax(n int) Option { return func(c *config.Config) { c.InlineMax = n } }

// WithPackMax sets --pack-max: blobs up to n bytes go into pack files
// (0: none).
func WithPackMax(n int) Option { return func(c *config.Config) { c.PackMax = n } }

// WithFilesOnly stores every object's data in a blob file of its own (no
// inline data, no packs), for tests that count or damage blob files.
func WithFilesOnly() Option {
	return func(c *config.Config) { c.InlineMax, c.PackMax = 0, 0 }
}

// WithLifecycle sets the length of a lifecycle day and how often the
// lifecycle worker runs: tests shorten both to watch rules apply.
func WithLifecycle(day, interval time.Duration) Option {
	return func(c *config.Config) { c.LifecycleDay, c.LifecycleInterval = day, interval }
}

// WithIAMBootstrap starts the server with --iam-bootstrap file.
func WithIAMBootstrap(file string) Option { return func(c *config.Config) { c.IAMBootstrap = file } }

// WithQoSCapacity sets the capacity throughput reservations are admitted
// against, bytes/s per direction (--qos-read-capacity, --qos-write-capacity).
func WithQoSCapacity(read, write int64) Option {
	return func(c *config.Config) { c.QoSReadCapacity, c.QoSWriteCapacity = config.Rate(read), config.Rate(write) }
}

// WithQoSRequestCapacity sets the requests per second request-rate
// reservations are admitted against and paced at (--qos-request-capacity).
func WithQoSRequestCapacity(rps int64) Option {
	return func(c *config.Config) { c.QoSRequestCapacity = config.RequestRate(rps) }
}

// WithInsecureSSEC sets --allow-insecure-sse-c: the test servers speak
// plain HTTP on loopback, where SSE-C is otherwise refused.
func WithInsecureSSEC() Option { return func(c *config.Config) { c.AllowInsecureSSEC = true } }

// WithDataDir reuses an existing data dir (to test restarts).
func WithDataDir(dir string) Option { return func(c *config.Config) { c.DataDir = dir } }

// StartServer starts a server for the duration of the test and waits until
// it answers /health/ready. Logs go to the test log when -v is set.
func StartServer(t testing.TB, opts ...Option) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.AccessKey, cfg.SecretKey, cfg.Region = AccessKey, SecretKey, Region
	cfg.Addr = "127.0.0.1:0"
	for _, o := range opts {
		o(&cfg)
	}
	s := Start(t, cfg)
	t.Cleanup(s.Stop)
	return s
}

// Start starts a server with exactly cfg; the caller must call Stop.
func Start(t testing.TB, cfg config.Config) *Server {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if os.Getenv("JOG_TEST_LOG") != "" {
		log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("start server: %v", err)
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		cancel()
		srv.Close()
		t.Fatalf("listen: %v", err)
	}
	consoleAddr, err := srv.ListenConsole(ln.Addr())
	if err != nil {
		cancel()
		ln.Close()
		srv.Close()
		t.Fatalf("console listen: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	scheme := "http://"
	if cfg.TLSCert != "" {
		scheme = "https://"
	}
	s := &Server{URL: scheme + ln.Addr().String(), Addr: ln.Addr().String(), DataDir: cfg.DataDir, Config: cfg, Blobs: srv.Blobs(), Swept: srv.Swept()}
	switch {
	case consoleAddr != nil:
		s.Console = scheme + consoleAddr.String()
	case cfg.Console:
		s.Console = s.URL
	}
	stopped := false
	s.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server stopped with error: %v", err)
		}
	}
	WaitReady(t, s.URL)
	return s
}

// HTTPClient returns an HTTP client for s: it trusts the test certificate
// when s serves TLS.
func (s *Server) HTTPClient() *http.Client {
	return &http.Client{Transport: testTransport()}
}

// Stop shuts the server down gracefully (idempotent).
func (s *Server) Stop() { s.stop() }

// WaitReady polls url's /health/ready until it answers 200 (10 s at most).
func WaitReady(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := (&http.Client{Transport: testTransport()}).Get(url + "/health/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("server at %s not ready: %v", url, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
