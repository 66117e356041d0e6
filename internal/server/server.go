// Package server assembles a running JOG server from a config: the stores
// (internal/storage opens them), start-up recovery, the S3 handler, health
// endpoints and the HTTP server with graceful shutdown.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/bodytimeout"
	"github.com/jogstore/jog/internal/bucketlog"
	"github.com/jogstore/jog/internal/bucketrepl/delivery"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/console"
	"github.com/jogstore/jog/internal/framing"
	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iamapi"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/lifecycle/worker"
	"github.com/jogstore/jog/internal/metrics"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sse"
	"github.com/jogstore/jog/internal/storage"
	"github.com/jogstore/jog/internal/sts"
	"github.com/jogstore/jog/internal/stsapi"
)

// Server is one JOG server instance.
type Server struct {
	cfg      config.Config
	log      *slog.Logger
	stores   *storage.Stores
	handler  http.Handler
	draining atomic.Bool
	// stops undoes New, last in first out (stack.go): the end of Serve
	// and Close unwind it.
	stops       stack
	swept       chan struct{}    // closed when the orphan sweep ends
	certs       *certHolder      // --tls-cert's pair, reloaded by ReloadTLS; nil without TLS
	metrics     *metrics.Metrics // metrics.go
	lcWorker    *worker.Worker   // the lifecycle worker, nil when off
	logs        logs             // the access log and server access logging (logs.go)
	Credentials config.Credentials
	// GeneratedCredentials is true when this start created the key pair.
	GeneratedCredentials bool

	// consoleHandler serves the console's own listener, consoleLn, opened
	// by ListenConsole (console.go); nil when the console has none.
	consoleHandler http.Handler
	consoleLn      net.Listener
	// s3Port is the S3 listener's port, which the console's links name.
	s3Port portHolder
	// sessionsChanged kicks the console's revocation sync (relay.go).
	sessionsChanged chan struct{}
	// events is the queue of event notifications and its targets (events.go).
	events events
}

// New opens the data dir (creating it) and its stores, holding its lock
// (one server per data dir with SQLite, shared by gateways with an
// external metadata store: storage.Open), removes the temp files of
// interrupted writes, prepares the handler and, last, starts the
// background components, the orphan sweep among them. It does not listen
// yet. A step that fails closes and stops what the steps before it had
// opened and started.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	started := time.Now()
	stores, err := storage.Open(ctx, cfg, log)
	if err != nil {
		return nil, err
	}
	return open(ctx, cfg, log, stores, started)
}

// open is New once the stores are open, which it owns from then on: it
// builds every part of the server, then starts the background
// components; when a step fails it unwinds what it did, closing the
// stores last.
func open(ctx context.Context, cfg config.Config, log *slog.Logger, stores *storage.Stores, started time.Time) (*Server, error) {
	s := &Server{cfg: cfg, log: log, stores: stores, metrics: metrics.New(), sessionsChanged: make(chan struct{}, 1)}
	s.stops.push(stores.Close)
	p, err := s.build(ctx, started)
	if err == nil {
		err = s.start(ctx, p)
	}
	if err != nil {
		if cerr := s.stops.unwind(); cerr != nil {
			log.Warn("closing after a failed start", "err", cerr)
		}
		return nil, err
	}
	return s, nil
}

// parts are what build makes for start to run in the background.
type parts struct {
	svc          *service.Service
	before       time.Time // the bound of the start-up orphan sweep
	users        *iam.Service
	reservations *qos.Reservations
	activator    *qos.Activator
	delivery     *bucketlog.Delivery
	console      *console.Handler // nil without the console
	replication  *delivery.Queue  // nil without replication targets
}

// build makes every part of the server and opens the files and
// connections they use, pushing each one's close. Nothing runs in the
// background yet (start), so a step that fails here stops nothing.
func (s *Server) build(ctx context.Context, started time.Time) (parts, error) {
	var p parts
	cfg, log, stores := s.cfg, s.log, s.stores
	if err := s.loadTLS(); err != nil {
		return p, err
	}
	s.Credentials = config.Credentials{AccessKey: cfg.AccessKey, SecretKey: cfg.SecretKey}
	if cfg.AccessKey == "" {
		c, gen, err := config.LoadOrCreateCredentials(cfg.DataDir)
		if err != nil {
			return p, fmt.Errorf("credentials: %w", err)
		}
		s.Credentials, s.GeneratedCredentials = c, gen
	}
	opts := service.Options{InlineMax: cfg.InlineMax, LifecycleDay: cfg.LifecycleDay}
	// The built-in KMS (encryption at rest): its master key is never
	// logged, nor its error's text anything of it.
	builtin, err := kms.OpenDataDir(ctx, cfg.DataDir, cfg.SSEKey)
	if err != nil {
		return p, fmt.Errorf("kms: %w", err)
	}
	km, err := s.withKMIP(ctx, builtin)
	if err != nil {
		return p, err
	}
	opts.Keys = sse.NewKeys(km)
	if stores.Shared { // other gateways' orphan sweeps spare blobs younger than blob.Grace
		opts.CommitWithin = blob.Grace / 2
	}
	nq, err := s.openEvents()
	if err != nil {
		return p, err
	}
	if nq != nil { // a nil *notify.Durable must not become a non-nil notify.Queue
		opts.Notify = nq
	}
	if opts.ReplicationTargets, err = cfg.ReplicationTargets(); err != nil { // checked by Validate
		return p, err
	}
	rq, err := s.openReplication(&opts)
	if err != nil {
		return p, err
	}
	svc := service.NewWith(stores.Meta, stores.Blobs, log, opts)
	if rq != nil {
		rq.Bind(svc)
		p.replication = rq
		s.metrics.WatchReplication(rq.Stats, svc.ReplicationEnqueueFailures)
	}
	if nq != nil {
		s.metrics.WatchNotify(nq.Stats, svc.EnqueueFailures)
	}
	// Temp files of writes a crash interrupted: one directory, so before
	// the server answers. Where gateways share the data dir, only those of
	// ended gateways, and old enough that no live write owns them
	// (service.RecoveryBefore); the sweep's bound is the same.
	before := service.RecoveryBefore(started, stores.Shared)
	recoveryStart := time.Now()
	n, err := stores.Blobs.CleanTemp(ctx, before)
	if err != nil {
		return p, fmt.Errorf("recovery: %w", err)
	}
	log.Info("temp files of interrupted writes removed", "removed", n, "gateway", stores.Gateway,
		"shared", stores.Shared, "before", before.Format(time.RFC3339))
	if n, err := stores.EmptyTrash(ctx, before); err != nil {
		log.Warn("emptying the trash failed", "err", err)
	} else if n > 0 {
		log.Info("trash emptied", "removed", n)
	}
	s.metrics.Recovery().Recovered(n, time.Since(recoveryStart))
	p.svc, p.before = svc, before
	s.lifecycle(svc)
	users, serverKey, err := openIAM(ctx, cfg, stores)
	if err != nil {
		return p, err
	}
	reservations, scheduler, activator, err := s.qos(ctx, stores.Meta)
	if err != nil {
		return p, err
	}
	p.users, p.reservations, p.activator = users, reservations, activator
	root := s3api.StaticCredentials{s.Credentials.AccessKey: s.Credentials.SecretKey}
	sessions := sts.New(users, serverKey, sts.Options{})
	keys := sts.Keys{Root: root, IAM: users, STS: sessions}
	observer, delivery, err := s.openLogs(svc, users.Account())
	if err != nil {
		return p, err
	}
	p.delivery = delivery
	body := bodyLimits(cfg)
	anonymous := s3api.NewAnonymousShare(cfg.MaxAnonymousRequests())
	s3 := s3api.New(svc, s3api.Config{
		Region: cfg.Region, Domain: cfg.Domain, Logger: log, MaxRequests: cfg.MaxRequests,
		Anonymous: anonymous, Body: body,
		Credentials: root, IAM: users, STS: sessions, TrustForwardedFor: cfg.TrustForwardedFor,
		AllowInsecureSSEC: cfg.AllowInsecureSSEC, DefaultObjectOwnership: cfg.DefaultObjectOwnership,
		Reservations: reservations, Scheduler: scheduler,
		Observer: s3api.Observers{s.metrics.Requests(), observer},
	})
	// IAM users and role sessions call the IAM API under their policies,
	// decided as their S3 requests are.
	iamAuthz := authz.New(users.Account(), authz.Options{TrustForwardedFor: cfg.TrustForwardedFor})
	// Their form bodies are read before their signatures can be checked:
	// meanwhile they hold places of the anonymous share.
	iamAPI := iamapi.New(users, iamapi.Config{Region: cfg.Region, Keys: keys, Authorize: iamAuthz.DecideIAM,
		Unauthenticated: anonymous, Logger: log})
	stsAPI := stsapi.New(sessions, stsapi.Config{Region: cfg.Region, Keys: keys, TrustForwardedFor: cfg.TrustForwardedFor,
		Unauthenticated: anonymous, Logger: log})
	apis := map[string]http.Handler{iamapi.Service: bodytimeout.Handler(iamAPI, body), stsapi.Service: bodytimeout.Handler(stsAPI, body)}
	s.handler = s.withHealth(countInFlight(byService(s3, apis), s.metrics.Requests()))
	s.handler = s.withMetrics(s.handler)
	if s.handler, p.console, err = s.withConsole(s.handler, keys, serverKey, iamAuthz, anonymous); err != nil {
		return p, err
	}
	s.metrics.Watch(metrics.Sources{Blobs: stores.Blobs, Meta: stores.Meta, Lifecycle: s.lcWorker,
		Scheduler: scheduler, BucketLimit: cfg.MetricsBuckets})
	return p, nil
}

// start runs the background components once everything is built, each
// pushing its stop, so that Close stops them in the reverse order: the
// replication first (the only start that can fail, before anything runs),
// so that it stops after every component that writes metadata; the event
// queue's delivery before what queues events (the lifecycle worker, the
// bucket log delivery); the orphan sweep last.
func (s *Server) start(ctx context.Context, p parts) error {
	if err := s.replicate(ctx); err != nil {
		return err
	}
	if s.events.queue != nil {
		s.events.queue.Start() // openEvents pushed its Close, which stops it
	}
	if p.replication != nil {
		p.replication.Start(ctx) // openReplication pushed its Close
	}
	detached := context.WithoutCancel(ctx) // stopped by Close alone
	s.stops.run(detached, func(ctx context.Context) { p.delivery.Run(ctx, s.cfg.BucketLogInterval) })
	if p.console != nil {
		s.stops.run(detached, func(ctx context.Context) { p.console.SyncRevocations(ctx, s.sessionsChanged) })
	}
	s.relay(detached, p.svc, p.users, p.reservations)
	s.stops.run(detached, p.activator.Run)
	if s.lcWorker != nil { // the end of ctx stops it too (lifecycle)
		s.stops.run(ctx, s.lcWorker.Run)
	}
	s.sweep(p.svc, p.before)
	return nil
}

// bodyLimits are how slowly a request body may arrive on the server's
// listeners (--body-idle-timeout, --body-min-rate): the S3 handler times
// its bodies itself, the IAM, STS and console handlers through
// bodytimeout.Handler.
func bodyLimits(cfg config.Config) bodytimeout.Limits {
	return bodytimeout.Limits{Idle: cfg.BodyIdleTimeout, MinRate: int64(cfg.BodyMinRate)}
}

// openIAM loads the server key and opens the IAM service over the
// metadata store, applying --iam-bootstrap.
func openIAM(ctx context.Context, cfg config.Config, stores *storage.Stores) (*iam.Service, *keyring.Keyring, error) {
	keys, err := keyring.Load(cfg.DataDir, cfg.IAMKey)
	if err != nil {
		return nil, nil, fmt.Errorf("iam: %w", err)
	}
	users, err := iam.New(ctx, stores.Meta, keys, iam.Options{PollInterval: time.Second})
	if err != nil {
		return nil, nil, err
	}
	if cfg.IAMBootstrap != "" {
		doc, err := os.ReadFile(cfg.IAMBootstrap)
		if err != nil {
			return nil, nil, fmt.Errorf("iam bootstrap: %w", err)
		}
		b, err := iam.ParseBootstrap(doc)
		if err != nil {
			return nil, nil, err
		}
		if err := users.ApplyBootstrap(ctx, b); err != nil {
			return nil, nil, err
		}
	}
	return users, keys, nil
}

// sweep removes orphan blobs older than before in the background
// (Service.SweepOrphans): a walk over every blob must not hold up the
// first request. Closing the server stops it; what it had not reached
// waits for the next start. Where gateways share the data dir it goes on
// (maintain).
func (s *Server) sweep(svc *service.Service, before time.Time) {
	swept := make(chan struct{})
	s.swept = swept
	s.stops.run(context.Background(), func(ctx context.Context) {
		s.sweepOnce(ctx, svc, before, time.Now())
		close(swept)
		if s.stores.Shared {
			s.maintain(ctx, svc)
		}
	})
}

// Where gateways share the data dir, other gateways' crashes leave temp
// files and orphans while this one runs, and its deletes wait in the
// trash: every trashInterval it empties the trash of what was deleted
// blob.Grace ago, and every resweepInterval it runs recovery and the
// orphan sweep again with the shared bound (service.RecoveryBefore).
const (
	trashInterval   = 10 * time.Minute
	resweepInterval = 6 * time.Hour
)

// maintain empties the trash and repeats recovery until ctx ends.
func (s *Server) maintain(ctx context.Context, svc *service.Service) {
	t := time.NewTicker(trashInterval)
	defer t.Stop()
	lastSweep := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		n, err := s.stores.EmptyTrash(ctx, time.Now().Add(-blob.Grace))
		if err != nil && ctx.Err() == nil {
			s.log.Warn("emptying the trash failed", "err", err)
		} else if n > 0 {
			s.log.Info("trash emptied", "removed", n)
		}
		if time.Since(lastSweep) < resweepInterval {
			continue
		}
		lastSweep = time.Now()
		before := service.RecoveryBefore(lastSweep, true)
		if n, err := s.stores.Blobs.CleanTemp(ctx, before); err != nil && ctx.Err() == nil {
			s.log.Warn("removing temp files of ended gateways failed", "err", err)
		} else if n > 0 {
			s.log.Info("temp files of ended gateways removed", "removed", n)
		}
		s.sweepOnce(ctx, svc, before, lastSweep)
	}
}

// sweepOnce runs the orphan sweep and logs what it did.
func (s *Server) sweepOnce(ctx context.Context, svc *service.Service, before, started time.Time) {
	rep, err := svc.SweepOrphans(ctx, before)
	s.metrics.Recovery().Swept(rep.BlobsScanned, rep.OrphansRemoved, err, ctx.Err() != nil, time.Since(started))
	switch {
	case ctx.Err() != nil:
		s.log.Info("orphan sweep stopped by shutdown", "blobs_scanned", rep.BlobsScanned, "orphans_removed", rep.OrphansRemoved)
	case err != nil:
		s.log.Error("orphan sweep failed: orphans stay until the next start", "err", err,
			"blobs_scanned", rep.BlobsScanned, "orphans_removed", rep.OrphansRemoved)
	default:
		s.log.Info("orphan sweep done", "blobs_scanned", rep.BlobsScanned, "orphans_removed", rep.OrphansRemoved,
			"took", time.Since(started).Round(time.Millisecond))
	}
}

// lifecycle builds the lifecycle worker (internal/lifecycle/worker) unless
// --lifecycle-interval is 0. start runs it under the server's context:
// the end of that context (the start of a shutdown) or closing the server
// stops it; a pass it interrupts resumes from its cursor at the next
// start.
func (s *Server) lifecycle(svc *service.Service) {
	if s.cfg.LifecycleInterval > 0 {
		s.lcWorker = worker.New(svc, s.log, worker.Options{Interval: s.cfg.LifecycleInterval})
	}
}

// Swept is closed when the start-up orphan sweep has ended.
func (s *Server) Swept() <-chan struct{} { return s.swept }

// Handler returns the server's HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// httpServer is the http.Server of a listener serving h (the S3 port's,
// --console-addr's) until ctx ends.
func (s *Server) httpServer(ctx context.Context, h http.Handler) *http.Server {
	return &http.Server{
		Handler:     framing.Guard(h),
		ConnContext: framing.ConnContext,
		// No ReadTimeout/WriteTimeout: they would cut long transfers.
		// Bodies that stall or trickle are cut by the handlers instead
		// (bodyLimits), with an answer.
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		TLSConfig:         s.tlsConfig(),
	}
}

// serveOn serves hs on ln until hs is shut down: over TLS with the
// server's certificate, else plain HTTP with each connection's request
// framing followed (internal/framing; httpServer's Guard answers).
func (s *Server) serveOn(hs *http.Server, ln net.Listener) error {
	if s.cfg.TLSCert != "" {
		return hs.ServeTLS(ln, "", "") // certificates from TLSConfig
	}
	return hs.Serve(framing.Listen(ln))
}

// Serve answers requests on ln until ctx is cancelled, then stops accepting,
// drains in-flight requests (up to drainTimeout), stops the background
// components and closes the stores.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := s.httpServer(ctx, s.handler)
	stopConsole, err := s.serveConsole(ctx, ln.Addr())
	if err != nil {
		return errors.Join(err, s.stops.unwind())
	}
	errc := make(chan error, 1)
	go func() { errc <- s.serveOn(hs, ln) }()
	s.log.Info("serving S3", "addr", ln.Addr().String(), "tls", s.cfg.TLSCert != "", "data_dir", s.cfg.DataDir, "region", s.cfg.Region)
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	s.draining.Store(true)
	s.log.Info("shutting down: draining in-flight requests")
	sctx, cancel := context.WithTimeout(context.Background(), drainTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		s.log.Warn("drain incomplete", "err", err)
		hs.Close()
	}
	stopConsole(sctx)
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return errors.Join(serveErr, s.stops.unwind())
}

// drainTimeout bounds how long shutdown waits for in-flight requests.
const drainTimeout = 5 * time.Minute

// Blobs returns the server's blob store.
func (s *Server) Blobs() blob.Store { return s.stores.Blobs }

// Close stops the background components and closes the stores of a
// server that was never served (Serve does both when it ends).
func (s *Server) Close() error {
	if s.consoleLn != nil {
		s.consoleLn.Close()
	}
	return s.stops.unwind()
}
