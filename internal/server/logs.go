package server

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/jogstore/jog/internal/accesslog"
	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/bucketlog"
	"github.com/jogstore/jog/internal/s3api"
	"github.com/jogstore/jog/internal/service"
)

// logs are the server's two request logs, both s3api.Observers: the
// access log (--access-log) and S3 server access logging of the buckets
// that enable it (internal/bucketlog), with its delivery in the
// background.
type logs struct {
	access       *accesslog.Logger // nil when --access-log is off
	spool        *bucketlog.Spool
	stopDelivery func()
}

// openLogs opens the access log and the bucket log spool, starts the
// delivery (at once, then every --bucket-log-interval) and returns the
// observer that feeds both.
func (s *Server) openLogs(ctx context.Context, svc *service.Service, account string) (s3api.Observer, error) {
	var obs s3api.Observers
	if dest := s.cfg.AccessLog; dest != "" && dest != "off" {
		format, _ := accesslog.ParseFormat(s.cfg.AccessLogFormat)
		opts := accesslog.WriterOptions{Errors: func(err error) { s.log.Warn("access log", "err", err) }}
		var w *accesslog.Writer
		if dest == "stderr" {
			w = accesslog.NewWriter(os.Stderr, opts)
		} else {
			var err error
			if w, err = accesslog.OpenFile(dest, opts); err != nil {
				return nil, fmt.Errorf("access log: %w", err)
			}
		}
		s.logs.access = accesslog.New(w, format, s.cfg.AccessLogSample)
		obs = append(obs, s.logs.access)
	}
	spool, err := bucketlog.OpenSpool(s.cfg.DataDir, s.stores.Blobs.Gateway(), int64(s.cfg.BucketLogSpoolMax), s.log)
	if err != nil {
		_ = s.closeLogs()
		return nil, err
	}
	s.logs.spool = spool
	s.metrics.WatchBucketLog(spool.Stats)
	obs = append(obs, bucketlog.NewLogger(svc, spool))
	// The targets' consent is decided for the logging service, with
	// aws:SourceAccount the account.
	delivery := bucketlog.NewDelivery(spool, svc, authz.New(account, authz.Options{}), s.log)
	dctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	s.logs.stopDelivery = func() { cancel(); <-done }
	go func() {
		defer close(done)
		delivery.Run(dctx, s.cfg.BucketLogInterval)
	}()
	return obs, nil
}

// ReopenLogs reopens the access log file (SIGUSR1, after logrotate
// renamed it); nothing to do when it goes to stderr or nowhere.
func (s *Server) ReopenLogs() error {
	if s.logs.access == nil {
		return nil
	}
	return s.logs.access.Writer().Reopen()
}

// closeLogs stops the delivery and writes out both logs (called once no
// request is served any more, before the stores close). A later
// ReopenLogs (a late SIGUSR1) does nothing.
func (s *Server) closeLogs() error {
	var errs []error
	if s.logs.stopDelivery != nil {
		s.logs.stopDelivery()
	}
	if s.logs.spool != nil {
		errs = append(errs, s.logs.spool.Close())
	}
	if s.logs.access != nil {
		errs = append(errs, s.logs.access.Writer().Close())
	}
	return errors.Join(errs...)
}
