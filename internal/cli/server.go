package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/server"
)

func runServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	pcfg, fs := serverFlags("jog server")
	printConfig := fs.Bool("print-config", false, "print the settings in effect as a config file (secrets masked) and exit")
	layers, code, done := loadSettings(pcfg, fs, args, stdout, stderr)
	if done {
		return code
	}
	if *printConfig {
		if err := layers.WriteTOML(stdout); err != nil {
			fmt.Fprintln(stderr, "jog server:", err)
			return 1
		}
		return 0
	}
	cfg := *pcfg
	log := newLogger(cfg, stderr)
	if flags := layers.SecretsInArgv(); len(flags) > 0 {
		log.Warn("secrets on the command line are visible to every local user in ps: give them in their JOG_* variables or the config file (--meta: or leave the password out and set PGPASSWORD or ~/.pgpass)",
			"flags", strings.Join(flags, " "))
	}
	reopenLogs := reopenLogsOnSignal(ctx, log)
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		log.Error("start failed", "err", err)
		return 1
	}
	reopenLogs(srv.ReopenLogs)
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		srv.Close()
		log.Error("listen failed", "err", err)
		return 1
	}
	if cfg.DebugAddr != "" {
		if err := serveDebug(ctx, cfg.DebugAddr, log, srv.MetricsHandler()); err != nil {
			ln.Close()
			srv.Close()
			log.Error("debug listen failed", "err", err)
			return 1
		}
	}
	consoleAddr, err := srv.ListenConsole(ln.Addr())
	if err != nil {
		ln.Close()
		srv.Close()
		log.Error("listen failed", "err", err)
		return 1
	}
	reloadOnHangup(ctx, srv, log)
	printBanner(stdout, ln.Addr(), consoleAddr, srv, cfg)
	tctx, stopTuning := context.WithCancel(ctx)
	defer stopTuning()
	if st, ok := srv.Blobs().(blob.SyncTimer); ok {
		go tuneProcs(tctx, st.SyncTime, procsWindow, log)
	}
	if err := srv.Serve(ctx, ln); err != nil {
		log.Error("server stopped with error", "err", err)
		return 1
	}
	log.Info("server stopped")
	return 0
}

func newLogger(cfg config.Config, w io.Writer) *slog.Logger {
	level, _ := cfg.Level()
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// printBanner says where the server listens (addr) and its console
// (consoleAddr; nil when it is on the S3 port), and the root's key.
func printBanner(w io.Writer, addr, consoleAddr net.Addr, srv *server.Server, cfg config.Config) {
	fmt.Fprintf(w, "JOG %s listening on %s\n", Version, addr)
	if cfg.Console {
		if consoleAddr == nil {
			consoleAddr = addr
		}
		fmt.Fprintf(w, "Console: %s/console/ (sign in with the access key and secret)\n", consoleURL(consoleAddr, cfg))
	}
	c := srv.Credentials
	switch {
	case srv.GeneratedCredentials:
		fmt.Fprintf(w, "Generated credentials (kept in %s, mode 0600):\n  AccessKey: %s\n  SecretKey: %s\n",
			filepath.Join(cfg.DataDir, datadir.CredentialsFile), c.AccessKey, c.SecretKey)
	case cfg.AccessKey == "":
		fmt.Fprintf(w, "  AccessKey: %s (secret key in %s)\n", c.AccessKey, filepath.Join(cfg.DataDir, datadir.CredentialsFile))
	default:
		fmt.Fprintf(w, "  AccessKey: %s\n", c.AccessKey)
	}
	for _, arn := range srv.NotifyTargets() {
		fmt.Fprintf(w, "Notification target: %s\n", arn)
	}
}

// consoleURL is the URL the banner gives the console at: the listener's
// address, on localhost when it listens on every interface.
func consoleURL(addr net.Addr, cfg config.Config) string {
	scheme := "http://"
	if cfg.TLSCert != "" {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return scheme + addr.String()
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "localhost"
	}
	return scheme + net.JoinHostPort(host, port)
}
