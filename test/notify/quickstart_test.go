package notify

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

// quickStart is the heading of the quick start in docs/NOTIFICATIONS.md.
const quickStart = "## Quick start"

// freeAddr is a loopback address with a port free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestQuickStart runs the quick start of docs/NOTIFICATIONS.md as written
// (its shell blocks, in one bash -eu, in an empty directory) with the jog
// built here first on PATH and the AWS CLI, the server and the receiver
// on free ports through the variables its first line defaults: the
// receiver (jog notify listen) must have printed the one event of the
// upload, with its bucket, key and size.
func TestQuickStart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the quick start runs jog and the AWS CLI")
	}
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws not on PATH (CI installs the AWS CLI with `pip install awscli`); skipping the quick start")
	}
	script := testutil.DocScript(t, "../../docs/NOTIFICATIONS.md", quickStart)
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, t.TempDir())
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-eu", "-c", script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"S3="+freeAddr(t), "HOOK="+freeAddr(t),
		// The console would listen at the S3 port + 1, which is not reserved here.
		"JOG_CONSOLE=false",
		// The user's AWS CLI configuration stays out of it.
		"AWS_CONFIG_FILE="+filepath.Join(tmp, "aws-config"), "AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(tmp, "aws-credentials"))
	// Its own process group: whatever it left running (the server, the
	// receiver) is killed with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(work, "jog.log"))
		t.Fatalf("the quick start failed: %v\n%s\n== jog.log\n%s", err, out, log)
	}
	events, err := os.ReadFile(filepath.Join(work, "events.txt"))
	if err != nil {
		t.Fatalf("the receiver's output: %v\n%s", err, out)
	}
	if got, want := string(events), "ObjectCreated:Put photos/images/beach.jpg 6\n"; got != want {
		t.Errorf("the receiver printed %q, want %q", got, want)
	}
	if !strings.Contains(string(out), "Notification target: arn:jog:sqs:us-east-1:orders:webhook") {
		t.Errorf("the quick start did not show the target's ARN:\n%s", out)
	}
	t.Logf("%s", out)
}
