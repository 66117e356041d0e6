// Command jog is the JOG object store: see `jog help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/jogstore/jog/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
