// Package cli implements the jog command line: one file per subcommand.
package cli

import (
	"context"
	"fmt"
	"io"
)

// Run executes the command line args (without the program name) and returns
// the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "server":
		return runServer(ctx, args[1:], stdout, stderr)
	case "fsck":
		return runFsck(ctx, args[1:], stdout, stderr)
	case "bench":
		return runBench(ctx, args[1:], stdout, stderr)
	case "admin":
		return runAdmin(ctx, args[1:], stdout, stderr)
	case "cp":
		return runCp(ctx, args[1:], stdout, stderr)
	case "calibrate":
		return runCalibrate(ctx, args[1:], stdout, stderr)
	case "health":
		return runHealth(ctx, args[1:], stdout, stderr)
	case "migrate":
		return runMigrate(ctx, args[1:], stdout, stderr)
	case "restore":
		return runRestore(ctx, args[1:], stdout, stderr)
	case "version", "--version", "-v":
		return runVersion(stdout)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	default:
		fmt.Fprintf(stderr, "jog: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `JOG — Just Object Gateway: an S3-compatible object store.

Usage:
  jog server [flags]   serve the S3 API (jog server -h lists the flags)
  jog fsck [flags]     check (and --repair) a data dir (jog fsck -h for details)
  jog bench ...        measure any S3 endpoint (jog bench -h)
  jog admin ...        users, keys, groups, policies, roles, reservations (jog admin -h)
  jog cp SRC DST       copy files to and from any S3 endpoint (jog cp -h)
  jog calibrate        measure the data dir's throughput for reservations (jog calibrate -h)
  jog health           exit 0 when the server is ready (a container's health check; jog health -h)
  jog migrate ...      move a data dir's metadata between SQLite and PostgreSQL (jog migrate -h)
  jog restore          rebuild a data dir's metadata from its replica (jog restore -h)
  jog version          print the version, commit and date of this build
`)
}
