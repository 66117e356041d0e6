//go:build unix

package cli

import (
	"context"
	"log/slog"
	"sync/atomic"
	"syscall"
)

// reopenLogsOnSignal catches SIGUSR1 from now until ctx ends (so that a
// logrotate postrotate `kill -USR1` during start-up does not end the
// process, SIGUSR1's default) and, once the returned function has been
// given the server's reopen (Server.ReopenLogs), calls it on every
// SIGUSR1: the access log file is reopened, as nginx does. SIGHUP is the
// TLS certificates' reload (tls.go).
func reopenLogsOnSignal(ctx context.Context, log *slog.Logger) (serve func(reopen func() error)) {
	var target atomic.Pointer[func() error]
	onSignal(ctx, syscall.SIGUSR1, func() {
		reopen := target.Load()
		if reopen == nil {
			log.Info("SIGUSR1 before the server started: nothing to reopen")
			return
		}
		if err := (*reopen)(); err != nil {
			log.Error("reopening the access log on SIGUSR1 failed", "err", err)
			return
		}
		log.Info("access log reopened (SIGUSR1)")
	})
	return func(reopen func() error) { target.Store(&reopen) }
}
