package cli

import (
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

// TestBuildOf: the commit and date come from go build's VCS stamp when
// the binary has one, else from the ldflags values.
func TestBuildOf(t *testing.T) {
	defer func(v, c, d string) { Version, Commit, Date = v, c, d }(Version, Commit, Date)
	Version, Commit, Date = "v1.2.3", "ldflags-commit", "ldflags-date"
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-25T03:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want build
	}{
		{"vcs", stamped, build{"v1.2.3", "0123abcd", "2026-11-25T03:00:00Z", true}},
		{"no vcs", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, build{"v1.2.3", "ldflags-commit", "ldflags-date", false}},
		{"no build info", nil, build{"v1.2.3", "ldflags-commit", "ldflags-date", false}},
	} {
		if got := buildOf(tc.info); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
	Version = "dev"
	if got := buildOf(&debug.BuildInfo{Main: debug.Module{Version: "v2.0.0"}}); got.Version != "v2.0.0" {
		t.Errorf("go install …@v2.0.0: version %q", got.Version)
	}
}

// TestVersionCommand builds jog as `make release` does (ldflags) and as
// go build in a git checkout does (VCS stamp), and runs `jog version`.
func TestVersionCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout:", err)
	}
	const pkg = "github.com/jogstore/jog/internal/cli"
	ldflags := "-X " + pkg + ".Version=v9.8.7 -X " + pkg + ".Commit=c0ffee -X " + pkg + ".Date=2026-01-02T03:04:05Z"
	for _, tc := range []struct {
		buildvcs string
		want     []string
	}{
		{"false", []string{"jog v9.8.7\n", "commit: c0ffee\n", "date:   2026-01-02T03:04:05Z\n"}},
		{"true", []string{"jog v9.8.7\n", "commit: " + strings.TrimSpace(string(head))}},
	} {
		bin := filepath.Join(t.TempDir(), "jog")
		if out, err := exec.Command("go", "build", "-buildvcs="+tc.buildvcs, "-ldflags", ldflags, "-o", bin, "github.com/jogstore/jog/cmd/jog").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		if tc.buildvcs == "true" {
			// go build stamps only a checkout whose .git is a directory,
			// not a git worktree's .git file (cmd/go/internal/vcs).
			if m, _ := exec.Command("go", "version", "-m", bin).Output(); !strings.Contains(string(m), "vcs.revision") {
				t.Log("go build stamped no commit here (a git worktree?): the VCS case is left to TestBuildOf")
				continue
			}
		}
		out, err := exec.Command(bin, "version").Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(string(out), w) {
				t.Errorf("-buildvcs=%s: jog version printed\n%s\nwant %q", tc.buildvcs, out, w)
			}
		}
	}
}

// TestMakeBuildStamps: `make build` stamps the version, commit and date as
// `make static` does, so that a developer's build names its commit.
func TestMakeBuildStamps(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skip("not in a git checkout:", err)
	}
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make:", err)
	}
	const pkg = "github.com/jogstore/jog/internal/cli"
	for _, target := range []string{"build", "static"} {
		cmd := exec.Command("make", "-n", target)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make -n %s: %v", target, err)
		}
		for _, want := range []string{"-X " + pkg + ".Version=", "-X " + pkg + ".Commit=" + strings.TrimSpace(string(head)), "-X " + pkg + ".Date="} {
			if !strings.Contains(string(out), want) {
				t.Errorf("make %s runs\n%s\nwithout %q", target, out, want)
			}
		}
	}
}
