package cli

import (
	"context"
	"os"
	"os/signal"
)

// onSignal catches sig from its call until ctx ends (so that the signal's
// default action, ending the process, no longer applies) and calls handle
// for each one, on a goroutine of its own.
func onSignal(ctx context.Context, sig os.Signal, handle func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	go func() {
		defer signal.Stop(ch)
		for {
			select {
			case <-ctx.Done():
				return
			case <-ch:
				handle()
			}
		}
	}()
}
