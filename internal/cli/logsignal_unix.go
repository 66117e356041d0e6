//go:build unix

package cli

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
)

// reopenLogsOnSignal calls reopen, which reopens the access log file,
// whenever the process receives SIGUSR1 (logrotate's postrotate
// `kill -USR1`, as for nginx), until ctx ends. SIGHUP is left to the TLS
// certificates' reload.
func reopenLogsOnSignal(ctx context.Context, reopen func() error, log *slog.Logger) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				if err := reopen(); err != nil {
					log.Error("reopening the access log on SIGUSR1 failed", "err", err)
					continue
				}
				log.Info("access log reopened (SIGUSR1)")
			}
		}
	}()
}
