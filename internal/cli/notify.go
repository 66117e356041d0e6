package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/jogstore/jog/internal/notify/listen"
)

const notifyUsage = `Usage: jog notify COMMAND [flags]

Commands:
  listen   a webhook for event notifications: prints a line per event (jog notify listen -h)
`

// notifyTools are jog notify's commands.
var notifyTools = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"listen": runNotifyListen,
}

func notifyNested() []string { return sortedKeys(notifyTools) }

func runNotify(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		fmt.Fprint(stdout, notifyUsage)
		return 0
	}
	run, ok := notifyTools[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "jog notify: unknown command %q\n\n%s", args[0], notifyUsage)
		return 2
	}
	return run(ctx, args[1:], stdout, stderr)
}

// listenTokenFlag is the bearer token jog notify listen requires: the
// value of the server's JOG_NOTIFY_WEBHOOK_TOKEN entry for the target.
var listenTokenFlag = clientFlag{"token", "bearer token a POST must carry, as jog server's --notify-webhook-token sends it (empty: none asked)", []string{"JOG_NOTIFY_LISTEN_TOKEN"}, true}

// defaultListenAddr is where jog notify listen listens unless told:
// loopback, beside jog server's :9000 and its console's :9001.
const defaultListenAddr = "127.0.0.1:9010"

// runNotifyListen serves a listen.Receiver until ctx ends (SIGINT,
// SIGTERM): the events on stdout, its own messages on stderr.
func runNotifyListen(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog notify listen", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), `Usage: jog notify listen [--addr HOST:PORT] [--token TOKEN] [--json]

A webhook for jog server's event notifications (--notify-webhook ID=http://HOST:PORT/):
takes the POST of each event and prints a line on stdout, answering 200:

  ObjectCreated:Put photos/images/beach.jpg 6

(the event, bucket/key, the size; "-" for a removal), or with --json the
S3 event record. Stops on SIGINT or SIGTERM. See docs/NOTIFICATIONS.md.`)
		fs.PrintDefaults()
	}
	addr := fs.String("addr", defaultListenAddr, "address to listen on")
	var opts listen.Options
	fs.BoolVar(&opts.JSON, "json", false, "print each S3 event record as a line of JSON")
	listenTokenFlag.bind(fs, &opts.Token)
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "jog notify listen: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "jog notify listen:", err)
		return 1
	}
	fmt.Fprintf(stderr, "jog notify listen: taking events at http://%s/\n", ln.Addr())
	srv := &http.Server{Handler: listen.New(stdout, opts), ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "jog notify listen:", err)
		return 1
	}
	<-stopped
	return 0
}
