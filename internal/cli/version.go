package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Version, Commit and Date describe the build. `make release` sets them
// with -ldflags "-X github.com/jogstore/jog/internal/cli.Version=…"; the
// commit and its date that go build stamps from git (-buildvcs) win over
// the ldflags, which remain for builds without git (a source tarball, a
// Docker build context without .git).
var (
	Version = "dev"
	Commit  = ""
	Date    = ""
)

// build is what `jog version` prints.
type build struct {
	Version, Commit, Date string
	Modified              bool // built from a tree with uncommitted changes
}

// buildOf reads the build's VCS stamp from info (nil when the binary has
// none), falling back to the ldflags values.
func buildOf(info *debug.BuildInfo) build {
	b := build{Version: Version, Commit: Commit, Date: Date}
	if info == nil {
		return b
	}
	if v := info.Main.Version; b.Version == "dev" && v != "" && v != "(devel)" {
		b.Version = v // go install github.com/jogstore/jog/cmd/jog@v1.2.3
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Date = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog version", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "Usage: jog version\n\nPrints the version, commit and date of this build, and the Go toolchain.")
	}
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	info, _ := debug.ReadBuildInfo()
	b := buildOf(info)
	commit, date := b.Commit, b.Date
	if commit == "" {
		commit = "unknown"
	}
	if b.Modified {
		commit += " (modified)"
	}
	if date == "" {
		date = "unknown"
	}
	fmt.Fprintf(stdout, "jog %s\ncommit: %s\ndate:   %s\ngo:     %s %s/%s\n", b.Version, commit, date, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
