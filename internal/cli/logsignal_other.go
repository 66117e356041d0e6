//go:build !unix

package cli

import (
	"context"
	"log/slog"
)

// reopenLogsOnSignal does nothing where there is no SIGUSR1: rotate the
// access log by restarting the server.
func reopenLogsOnSignal(context.Context, *slog.Logger) func(func() error) {
	return func(func() error) {}
}
