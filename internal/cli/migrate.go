package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/fsck"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/metamigrate"
	"github.com/jogstore/jog/internal/units"
)

// Exit statuses of jog migrate.
const (
	migrateDone     = 0 // copied, verified, fsck clean on both sides
	migrateProblems = 1 // copied, but a table differs or fsck found problems
	migrateError    = 2 // bad usage, or nothing was copied
)

func runMigrate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("jog migrate", flag.ContinueOnError)
	dataDirp := dataDirFlag(fl, "the data dir whose metadata moves; its blobs stay")
	from := fl.String("from", "", "the metadata store to copy from, as jog server's --meta: sqlite, or a PostgreSQL URL or key=value string")
	to := fl.String("to", "", "the metadata store to copy into (empty, or created), as --from")
	fl.Usage = func() {
		fmt.Fprint(fl.Output(), `Usage: jog migrate [--data-dir DIR] --from STORE --to STORE

Copies a data dir's metadata from one metadata store into another, exactly:
buckets with their configurations, quotas, versioning and object lock; every
object version and delete marker with its version ID, ETag, times, checksums,
metadata, tags, ACL, retention, legal hold and inline data; multipart uploads
and their parts; IAM users, keys, groups, roles and policies; reservations.
The blobs stay in the data dir: only metadata moves.

  jog migrate --data-dir /srv/jog --from sqlite --to postgres://jog@db/jog
  jog migrate --data-dir /srv/jog --from postgres://jog@db/jog --to sqlite

The target must be empty (a new database; for sqlite, no jog.db in the data
dir). Every server on the data dir must be stopped: the migration takes its
lock. Afterwards each table's row count and checksum are compared, read back
from the target, and jog fsck's checks run on both stores. The source is
left as it was; start the servers with --meta set to the target.

Exit status: 0 copied and verified, 1 copied but a check found problems,
2 usage error or nothing copied.

Flags:
`)
		fl.PrintDefaults()
	}
	if code, done := parseFlags(fl, args, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 || *from == "" || *to == "" {
		fmt.Fprintln(stderr, "jog migrate: --from and --to are required, and nothing else")
		fl.Usage()
		return migrateError
	}
	dataDir := *dataDirp
	fmt.Fprintf(stdout, "migrating the metadata of %s from %s to %s\n", dataDir, config.RedactMeta(*from), config.RedactMeta(*to))
	rep, err := metamigrate.Run(ctx, metamigrate.Options{
		DataDir: dataDir, From: *from, To: *to,
		Progress: func(t metamigrate.TableReport, done bool) {
			if done {
				fmt.Fprintf(stdout, "copied %-20s %d rows\n", t.Name, t.Rows)
			} else {
				fmt.Fprintf(stdout, "copying %-19s %d rows so far\n", t.Name, t.Rows)
			}
		},
		Log: slog.New(slog.NewTextHandler(stderr, nil)),
	})
	if err != nil && !rep.Committed {
		fmt.Fprintln(stderr, "jog migrate:", err)
		switch {
		case errors.Is(err, datadir.ErrLocked):
			fmt.Fprintln(stderr, "jog migrate: stop every jog server on the data dir first")
		case errors.Is(err, meta.ErrUnstorableKey):
			fmt.Fprintln(stderr, "jog migrate: PostgreSQL cannot keep that key: copy the object to another key and delete it (on a server over the source), then migrate again")
		case errors.Is(err, meta.ErrNotEmpty):
			fmt.Fprintln(stderr, "jog migrate: the target must be empty: a new PostgreSQL database, or a data dir without jog.db (move jog.db, jog.db-wal and jog.db-shm aside)")
		}
		return migrateError
	}
	printMigrateReport(stdout, rep)
	if err != nil {
		fmt.Fprintln(stderr, "jog migrate: copied, but:", err)
		return migrateProblems
	}
	if !rep.Clean() {
		fmt.Fprintln(stderr, "jog migrate: copied, but fsck found problems (run jog fsck on each store for details)")
		return migrateProblems
	}
	fmt.Fprintln(stdout, "done: every table matches and fsck is clean on both stores")
	return migrateDone
}

// printMigrateReport prints each table's counts and checksums, source and
// target, then both fsck summaries.
func printMigrateReport(w io.Writer, rep metamigrate.Report) {
	for _, t := range rep.Tables {
		state := "ok"
		if !t.Equal() {
			state = "DIFFERS"
		}
		fmt.Fprintf(w, "verify %-20s source %d rows %s, target %d rows %s: %s\n", t.Name,
			t.Rows, hex.EncodeToString(t.Checksum[:8]), t.TargetRows, hex.EncodeToString(t.TargetSum[:8]), state)
	}
	if rep.Source.DataDir == "" {
		return // fsck did not run
	}
	for _, side := range []struct {
		name string
		sum  fsck.Summary
	}{{"source", rep.Source}, {"target", rep.Target}} {
		s := side.sum
		fmt.Fprintf(w, "fsck %s: %s: %s\n", side.name, checkedCounts(s), units.Count(s.Remaining(), "problem"))
	}
}
