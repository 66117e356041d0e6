package replication

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

// drillSection is the heading of the drill in docs/OPERATIONS.md.
const drillSection = "## Disaster recovery with bucket replication"

// TestDrill runs the disaster-recovery drill of docs/OPERATIONS.md as
// written (its shell blocks, in one bash -eu), with the jog built here
// and its servers on free ports under the test's directory, through the
// variables the drill's first step defaults: the drill's last check
// fails it when an acknowledged object is missing on the standby or
// differs.
func TestDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the drill runs two servers and the AWS CLI for about half a minute")
	}
	for _, tool := range []string{"aws", "curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH (CI installs the AWS CLI with `pip install awscli`); skipping the drill", tool)
		}
	}
	script := testutil.DocScript(t, "../../docs/OPERATIONS.md", drillSection)
	tmp := t.TempDir()
	bin := jogBin(t)
	drill := filepath.Join(tmp, "drill")
	primary, standby := newProc(t, bin, "").addr, newProc(t, bin, "").addr
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-eu", "-c", script)
	cmd.Env = append(os.Environ(), "JOG="+bin, "DRILL="+drill, "PRIMARY="+primary, "STANDBY="+standby)
	out, err := cmd.CombinedOutput()
	t.Cleanup(func() { // whatever a failed drill left running
		for _, pid := range []string{"writer.pid", "primary.pid", "standby.pid"} {
			if b, err := os.ReadFile(filepath.Join(drill, pid)); err == nil {
				_ = exec.Command("kill", "-9", strings.TrimSpace(string(b))).Run()
			}
		}
	})
	if err != nil {
		logs := ""
		for _, f := range []string{"primary.log", "standby.log"} {
			b, _ := os.ReadFile(filepath.Join(drill, f))
			logs += "\n== " + f + "\n" + string(b)
		}
		t.Fatalf("the drill failed: %v\n%s%s", err, out, logs)
	}
	kept, err := os.ReadFile(filepath.Join(drill, "kept.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// The check must have had objects of both servers to compare.
	if p, s := strings.Count(string(kept), primary+" "), strings.Count(string(kept), standby+" "); p < 5 || s < 3 {
		t.Errorf("the drill checked %d objects the primary acknowledged before the loss and %d the standby did, want 5 and 3 at least:\n%s", p, s, kept)
	}
	t.Logf("%s", out)
}
