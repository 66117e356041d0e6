// Package cli tests what people run from a shell as it is written where
// they read it: here, deploy/jog.service's install steps.
package cli

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

// unitPath is the unit whose header holds the install steps.
const unitPath = "../../deploy/jog.service"

// TestSystemdInstall runs deploy/jog.service's install steps as its
// header writes them (issue 42, item 21), in a temporary root: the paths
// under /etc, /usr/local and /var/lib moved into it, useradd and systemctl
// recorded rather than run, and install's -o/-g dropped (the user jog
// exists only in the steps). After each block of steps (the install, then
// the optional config file) the unit "starts" as far as a test can start
// it without systemd: `systemd-analyze verify` accepts it in the root
// (its ExecStart and ExecReload there), every EnvironmentFile= it
// requires exists, and its ExecStart with the environment systemd would
// give it (Environment=, then the EnvironmentFile= lines) loads its
// settings (`jog server --print-config`); jog.env is mode 0600; with the
// config file, its setting is in effect.
func TestSystemdInstall(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed (Debian: apt-get install systemd; .ci/run installs it)")
	}
	unit, err := os.ReadFile(unitPath)
	if err != nil {
		t.Fatal(err)
	}
	blocks := installSteps(string(unit))
	if len(blocks) == 0 {
		t.Fatalf("no install steps in the header of %s", unitPath)
	}
	tmp := t.TempDir()
	root, work := filepath.Join(tmp, "root"), filepath.Join(tmp, "work")
	seedRoot(t, root)
	// The directory the steps run from: the binary, the unit as
	// deploy/jog.service, and a config file.
	testutil.BuildJog(t, work)
	if err := os.MkdirAll(filepath.Join(work, "deploy"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "deploy", "jog.service"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "jog.toml"), []byte("region = \"eu-systemd-1\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	for i, block := range blocks {
		out := runSteps(t, root, work, block)
		if !strings.Contains(out, "systemctl ") {
			t.Fatalf("block %d of steps never starts or restarts the service:\n%s", i+1, strings.Join(block, "\n"))
		}
		if fi, err := os.Stat(filepath.Join(root, "etc/jog/jog.env")); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("after block %d, /etc/jog/jog.env: %v, want mode 0600", i+1, err)
		}
		settings := startUnit(t, root)
		if region := strings.Contains(settings, `"eu-systemd-1"`); region != (i == 1) {
			t.Errorf("after block %d the config file's region in effect: %v, want %v:\n%s", i+1, region, i == 1, settings)
		}
	}
	if len(blocks) != 2 {
		t.Errorf("the header of %s has %d blocks of steps, want 2 (the install, the optional config file):\n%q", unitPath, len(blocks), blocks)
	}
}

// stepLine is a command of the header: "#" and three spaces.
var stepLine = regexp.MustCompile(`^#   (\S.*)$`)

// installSteps are the unit header's commands (before its first
// section), in blocks separated by prose.
func installSteps(unit string) [][]string {
	var blocks [][]string
	var cur []string
	sc := bufio.NewScanner(strings.NewReader(unit))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "[") {
			break
		}
		if m := stepLine.FindStringSubmatch(line); m != nil {
			cur = append(cur, m[1])
			continue
		}
		if len(cur) > 0 && strings.TrimSpace(strings.TrimPrefix(line, "#")) != "" {
			blocks, cur = append(blocks, cur), nil
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur)
	}
	return blocks
}

// rooted are the directories whose paths the steps and the unit name in
// the temporary root.
var rooted = regexp.MustCompile(`(^|[\s=:'"-])(/(?:etc|usr/local|var/lib)/)`)

// reroot moves the paths s names under /etc, /usr/local and /var/lib into
// root.
func reroot(s, root string) string { return rooted.ReplaceAllString(s, "${1}"+root+"${2}") }

// shims stand in for the commands that change the host beyond files.
const shims = `set -euo pipefail
useradd() { echo "useradd $*"; }
systemctl() { echo "systemctl $*"; }
install() {
	local args=()
	while [ $# -gt 0 ]; do
		case "$1" in
		-o|-g) shift 2 ;;
		*) args+=("$1"); shift ;;
		esac
	done
	command install "${args[@]}"
}
`

// runSteps runs the steps in work, as a shell script, the paths moved
// into root; it returns what the script printed.
func runSteps(t *testing.T, root, work string, steps []string) string {
	t.Helper()
	script := shims + reroot(strings.Join(steps, "\n"), root) + "\n"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", script)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the install steps, as written, failed: %v\n%s\nsteps:\n%s", err, out, strings.Join(steps, "\n"))
	}
	return string(out)
}

// seedRoot gives root what a Debian host has that the steps and the unit
// need: its directories (no /etc/jog), the systemd units the unit
// depends on and /bin/kill (its ExecReload).
func seedRoot(t *testing.T, root string) {
	t.Helper()
	for _, dir := range []string{"usr/lib/systemd", "usr/bin", "usr/local/bin", "etc/systemd/system", "var/lib"} {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, link := range []string{"lib", "bin"} {
		if err := os.Symlink("usr/"+link, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("cp", "-a", "/usr/lib/systemd/system", filepath.Join(root, "usr/lib/systemd/")).CombinedOutput(); err != nil {
		t.Fatalf("copying the host's systemd units: %v\n%s", err, out)
	}
	kill, err := exec.LookPath("kill")
	if err != nil || filepath.Dir(kill) == "." {
		kill = "/usr/bin/kill"
	}
	if out, err := exec.Command("cp", kill, filepath.Join(root, "usr/bin/kill")).CombinedOutput(); err != nil {
		t.Fatalf("copying kill: %v\n%s", err, out)
	}
}

// startUnit checks the unit installed in root with systemd-analyze verify
// and runs its ExecStart with --print-config in the environment systemd
// would give it; it returns the settings printed.
func startUnit(t *testing.T, root string) string {
	t.Helper()
	if out, err := exec.Command("systemd-analyze", "verify", "--man=no", "--root="+root, "jog.service").CombinedOutput(); err != nil {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
	unit, err := os.ReadFile(filepath.Join(root, "etc/systemd/system/jog.service"))
	if err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + os.Getenv("PATH")}
	var start []string
	for _, line := range strings.Split(string(unit), "\n") {
		key, value, ok := strings.Cut(line, "=")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		switch key {
		case "Environment":
			env = append(env, reroot(value, root))
		case "EnvironmentFile":
			optional := strings.HasPrefix(value, "-")
			path := reroot(strings.TrimPrefix(value, "-"), root)
			vars, err := envFile(path)
			if err != nil && !(optional && os.IsNotExist(err)) {
				t.Fatalf("EnvironmentFile=%s: %v", value, err)
			}
			for _, v := range vars {
				env = append(env, reroot(v, root))
			}
		case "ExecStart":
			start = strings.Fields(reroot(value, root))
		}
	}
	if len(start) == 0 {
		t.Fatal("the unit has no ExecStart")
	}
	cmd := exec.Command(start[0], append(start[1:], "--print-config")...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the unit's ExecStart in its environment %q: %v\n%s", env[1:], err, out)
	}
	return string(out)
}

// envFile reads an EnvironmentFile's VAR=value lines (comments and blank
// lines skipped).
func envFile(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vars []string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			vars = append(vars, line)
		}
	}
	return vars, nil
}
