// Package cli implements the jog command line: one file per subcommand.
package cli

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
)

// command is a subcommand of jog: the table Run dispatches on and jog's
// usage lists.
type command struct {
	name, synopsis, summary string
	run                     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
	// nested, when set, lists the command's own commands ("user create",
	// "put"): each takes -h as the command does.
	nested func() []string
}

// commands are jog's subcommands, in the order its usage lists them.
var commands = []command{
	{name: "server", synopsis: "[flags]", summary: "serve the S3 API (jog server -h lists the flags)", run: runServer},
	{name: "fsck", synopsis: "[flags]", summary: "check (and --repair) a data dir (jog fsck -h for details)", run: runFsck},
	{name: "bench", synopsis: "...", summary: "measure any S3 endpoint (jog bench -h)", run: runBench, nested: benchNested},
	{name: "admin", synopsis: "...", summary: "users, keys, groups, policies, roles, reservations, KMS keys (jog admin -h)", run: runAdmin, nested: adminNested},
	{name: "notify", synopsis: "listen", summary: "a webhook printing the event notifications it receives (jog notify listen -h)", run: runNotify, nested: notifyNested},
	{name: "cp", synopsis: "SRC DST", summary: "copy files to and from any S3 endpoint (jog cp -h)", run: runCp},
	{name: "calibrate", summary: "measure the data dir's throughput for reservations (jog calibrate -h)", run: runCalibrate},
	{name: "health", summary: "exit 0 when the server is ready (a container's health check; jog health -h)", run: runHealth},
	{name: "migrate", synopsis: "...", summary: "move a data dir's metadata between SQLite and PostgreSQL (jog migrate -h)", run: runMigrate},
	{name: "restore", summary: "rebuild a data dir's metadata from its replica (jog restore -h)", run: runRestore},
	{name: "version", summary: "print the version, commit and date of this build", run: runVersion},
}

// Run executes the command line args (without the program name) and returns
// the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "--version", "-v":
		return runVersion(ctx, nil, stdout, stderr)
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	i := slices.IndexFunc(commands, func(c command) bool { return c.name == args[0] })
	if i < 0 {
		fmt.Fprintf(stderr, "jog: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return commands[i].run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprint(w, "JOG — Just Object Gateway: an S3-compatible object store.\n\nUsage:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  jog %-16s %s\n", c.name+" "+c.synopsis, c.summary)
	}
}

// sortedKeys are a command table's names, sorted.
func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}
