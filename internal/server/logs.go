package server

import (
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
	access *accesslog.Logger // nil when --access-log is off
}

// openLogs opens the access log and the bucket log spool, pushing their
// Close (which writes them out), and returns the observer that feeds both
// and the bucket logs' delivery, which start runs (at once, then every
// --bucket-log-interval).
func (s *Server) openLogs(svc *service.Service, account string) (s3api.Observer, *bucketlog.Delivery, error) {
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
				return nil, nil, fmt.Errorf("access log: %w", err)
			}
		}
		s.stops.push(w.Close)
		s.logs.access = accesslog.New(w, format, s.cfg.AccessLogSample)
		obs = append(obs, s.logs.access)
	}
	spool, err := bucketlog.OpenSpool(s.cfg.DataDir, s.stores.Gateway, int64(s.cfg.BucketLogSpoolMax), s.log)
	if err != nil {
		return nil, nil, err
	}
	s.stops.push(spool.Close)
	s.metrics.WatchBucketLog(spool.Stats)
	obs = append(obs, bucketlog.NewLogger(svc, spool))
	// The targets' consent is decided for the logging service, with
	// aws:SourceAccount the account.
	delivery := bucketlog.NewDelivery(spool, svc, authz.New(account, authz.Options{}), s.log)
	return obs, delivery, nil
}

// ReopenLogs reopens the access log file (SIGUSR1, after logrotate
// renamed it); nothing to do when it goes to stderr or nowhere, or once
// the server is closed (a late SIGUSR1).
func (s *Server) ReopenLogs() error {
	if s.logs.access == nil {
		return nil
	}
	return s.logs.access.Writer().Reopen()
}
