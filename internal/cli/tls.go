package cli

import (
	"context"
	"errors"
	"log/slog"
	"syscall"

	"github.com/jogstore/jog/internal/server"
)

// reloadOnHangup makes SIGHUP re-read --tls-cert and --tls-key (systemd's
// ExecReload sends it): new connections get the new pair, open ones keep
// theirs, and a pair that does not load leaves the old one serving. It
// catches SIGHUP from its call until ctx ends, so that the signal no longer
// ends the process.
func reloadOnHangup(ctx context.Context, srv *server.Server, log *slog.Logger) {
	onSignal(ctx, syscall.SIGHUP, func() {
		switch err := srv.ReloadTLS(); {
		case errors.Is(err, server.ErrNoTLS):
			log.Info("SIGHUP: nothing to reload", "reason", err)
		case err != nil:
			log.Error("SIGHUP: TLS certificate reload failed, still serving the previous one", "err", err)
		default:
			log.Info("SIGHUP: TLS certificate reloaded")
		}
	})
}
