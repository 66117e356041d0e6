package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/replicate"
)

// runRestore rebuilds a data dir's SQLite metadata from the replica jog
// server --replicate-to (or Litestream beside it) keeps (internal/replicate).
func runRestore(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("jog restore", flag.ContinueOnError)
	dataDir := dataDirFlag(fl, "the data dir whose metadata to rebuild")
	from := serverFlag(fl, "from", "replicate-to", "", "the replica, s3://bucket/path: what jog server's --replicate-to named")
	endpoint := serverFlag(fl, "endpoint", "replicate-endpoint", "", "S3 endpoint of the replica when not AWS, e.g. http://minio:9000")
	region := serverFlag(fl, "region", "replicate-region", "", "region of the replica's bucket")
	at := fl.String("timestamp", "", "restore the metadata as it was at this time (RFC 3339) instead of the latest")
	force := fl.Bool("force", false, "replace the data dir's jog.db (and its -wal and -shm) when there is one")
	logCfg := config.Default()
	logLevel := serverFlag(fl, "log-level", "log-level", logCfg.LogLevel, "debug, info, warn or error, as jog server's")
	logFormat := serverFlag(fl, "log-format", "log-format", logCfg.LogFormat, "text or json, as jog server's")
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), `Usage: jog restore --data-dir DIR --from s3://bucket/path [--endpoint URL] [--region R] [--timestamp T] [--force]

Rebuilds DIR/jog.db, the SQLite metadata, from the replica that jog server
--replicate-to (or litestream replicate beside it) streams to an S3 bucket.
The replica's keys come from JOG_REPLICATE_ACCESS_KEY and
JOG_REPLICATE_SECRET_KEY, else from the AWS SDK's default chain.

It refuses while a jog process holds DIR, and when DIR already has a
jog.db unless --force. The metadata holds small (inline) objects' bytes;
every other object's bytes are in DIR's blobs/ and packs/, which this does
not touch: restore them first (docs/OPERATIONS.md), then run jog fsck
--data-dir DIR to see that every object has its data.

Flags:
`)
		fl.PrintDefaults()
	}
	if code, done := parseFlags(fl, args, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 || *from == "" || *dataDir == "" {
		fmt.Fprintln(stderr, "jog restore: --data-dir and --from are required, and nothing else")
		fl.Usage()
		return 2
	}
	var opts replicate.RestoreOptions
	if *at != "" {
		t, err := time.Parse(time.RFC3339, *at)
		if err != nil {
			fmt.Fprintf(stderr, "jog restore: --timestamp %q: want RFC 3339, e.g. 2026-11-25T04:00:00Z\n", *at)
			return 2
		}
		opts.Timestamp = t
	}
	opts.Replace = *force
	logCfg.LogLevel, logCfg.LogFormat = *logLevel, *logFormat
	if err := logCfg.Validate(); err != nil {
		fmt.Fprintln(stderr, "jog restore:", err)
		return 2
	}
	target := replicate.Target{URL: *from, Endpoint: *endpoint, Region: *region,
		AccessKey: config.Getenv(config.EnvReplicateAccessKey), SecretKey: config.Getenv(config.EnvReplicateSecretKey)}
	if err := target.Validate(); err != nil {
		fmt.Fprintln(stderr, "jog restore:", err)
		return 2
	}
	if err := restore(ctx, *dataDir, target, opts, newLogger(logCfg, stderr)); err != nil {
		fmt.Fprintln(stderr, "jog restore:", err)
		if errors.Is(err, replicate.ErrExists) {
			fmt.Fprintln(stderr, "jog restore: --force replaces it")
		}
		return 1
	}
	fmt.Fprintf(stdout, "restored %s from %s\nnext: jog fsck --data-dir %s (every object should have its data)\n",
		filepath.Join(*dataDir, datadir.DBFile), *from, *dataDir)
	return 0
}

// restore holds dir's lock (no server may run on it) while the metadata is
// rebuilt, logging as jog server does (newLogger).
func restore(ctx context.Context, dir string, t replicate.Target, opts replicate.RestoreOptions, log *slog.Logger) error {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	unlock, err := datadir.Lock(dir)
	if err != nil {
		return err
	}
	defer func() { _ = unlock() }()
	return replicate.Restore(ctx, filepath.Join(dir, datadir.DBFile), t, opts, log)
}
