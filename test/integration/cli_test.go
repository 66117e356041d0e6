package integration

import (
	"context"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestAWSCLIScript runs test/cli/aws_cli_test.sh, which builds jog, starts the
// binary and drives it with the AWS CLI (aws s3 and aws s3api).
func TestAWSCLIScript(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the AWS CLI script builds jog and runs ~110 CLI invocations")
	}
	for _, tool := range []string{"aws", "bash", "python3", "curl", "go", "cmp", "diff"} {
		if _, err := exec.LookPath(tool); err != nil {
			if tool == "aws" {
				t.Skip("aws CLI not on PATH (CI installs it with `pip install awscli`); skipping the AWS CLI script")
			}
			t.Skipf("%s not on PATH; the AWS CLI script needs it", tool)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../cli/aws_cli_test.sh")
	// Own process group, so a timeout also ends the jog server it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if err != nil || ctx.Err() != nil {
		t.Fatalf("aws_cli_test.sh failed: %v\n%s", err, out)
	}
	t.Logf("aws_cli_test.sh:\n%s", out)
}
