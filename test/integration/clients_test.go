package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// The real-client scripts in test/clients: each builds jog, starts it on a
// free loopback port, drives it with one third-party client and compares
// every byte it reads back. They need the client installed (.ci/run
// installs all of them) and are skipped, with the reason, when it is not.

// TestClientBoto3 runs test/clients/boto3_test.sh: boto3 with its defaults
// against an HTTP and an HTTPS server (aws-chunked uploads with CRC32
// trailers), including 40 MiB parallel multipart upload_file/download_file
// and ceph/s3-tests' encryption cases (boto3_sse.py).
func TestClientBoto3(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp")
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		t.Skip("python3 cannot import boto3 (CI installs it with `pip install boto3`); skipping the boto3 script")
	}
	runClientScript(t, "boto3_test.sh", 6*time.Minute)
}

// TestClientAWSCLIMultipart runs test/clients/awscli_multipart_test.sh:
// `aws s3 cp` of 100 MiB and 1 GiB files (multipart with the CLI's defaults)
// up and down against a server with --fsync always. JOG_SKIP_1GIB=1 skips
// the 1 GiB round trip.
func TestClientAWSCLIMultipart(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp")
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not on PATH (CI installs it with `pip install awscli`); skipping the AWS CLI multipart script")
	}
	runClientScript(t, "awscli_multipart_test.sh", 15*time.Minute)
}

// TestClientAWSCLIPolicy runs test/clients/awscli_policy_test.sh: the AWS
// CLI's put-bucket-policy, get-bucket-policy, get-bucket-policy-status and
// delete-bucket-policy, an anonymous curl GET the policy allows, and an
// IAM user's own `aws iam` calls.
func TestClientAWSCLIPolicy(t *testing.T) {
	needTools(t, "aws", "curl")
	runClientScript(t, "awscli_policy_test.sh", 5*time.Minute)
}

// TestClientAWSCLISSE runs test/clients/awscli_sse_test.sh: the AWS CLI's
// --sse AES256, --sse aws:kms --sse-kms-key-id and --sse-c uploads and
// downloads (single and multipart), head-object with the customer key,
// re-encrypting S3-to-S3 copies and a bucket's default encryption, over
// HTTPS.
func TestClientAWSCLISSE(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp")
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not on PATH (CI installs it with `pip install awscli`); skipping the AWS CLI encryption script")
	}
	runClientScript(t, "awscli_sse_test.sh", 8*time.Minute)
}

// TestClientAWSCLIReplication runs test/clients/awscli_replication_test.sh:
// the AWS CLI's put-, get- and delete-bucket-replication against a server
// with a replication target whose keys come from JOG_REPLICATION_DR_*,
// S3's refusals, and versioning that cannot be suspended under a
// configuration.
func TestClientAWSCLIReplication(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp")
	if _, err := exec.LookPath("aws"); err != nil {
		t.Skip("aws CLI not on PATH (CI installs it with `pip install awscli`); skipping the AWS CLI replication script")
	}
	runClientScript(t, "awscli_replication_test.sh", 5*time.Minute)
}

// TestClientBoto3Replication runs test/clients/boto3_replication_test.sh:
// boto3's put-, get- and delete_bucket_replication on a server replicating
// to a second JOG, read back with the AWS CLI, and an object put with
// boto3 arriving on the destination.
func TestClientBoto3Replication(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp", "aws")
	if err := exec.Command("python3", "-c", "import boto3").Run(); err != nil {
		t.Skip("python3 cannot import boto3 (CI installs it with `pip install boto3`); skipping the boto3 replication script")
	}
	runClientScript(t, "boto3_replication_test.sh", 5*time.Minute)
}

// TestClientMcReplication runs test/clients/mc_replication_test.sh: what
// MinIO's mc can do with bucket replication on a server that is not MinIO
// (export and import over the S3 API; add, ls and rm need MinIO's admin
// API or its answers, docs/COMPATIBILITY.md), and an object copied with mc
// arriving on a second JOG.
func TestClientMcReplication(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp", "aws")
	if out, err := exec.Command("mc", "--version").Output(); err != nil || !bytes.HasPrefix(out, []byte("mc version")) {
		t.Skip("MinIO's mc not on PATH (.ci/run installs it with `go install`); skipping the mc replication script")
	}
	runClientScript(t, "mc_replication_test.sh", 5*time.Minute)
}

// TestClientRclone runs test/clients/rclone_test.sh: Debian's rclone copies
// a tree of 1,000 files (some multipart) up and down, checks, syncs and
// purges it.
func TestClientRclone(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp", "diff")
	if _, err := os.Stat("/usr/bin/rclone"); err != nil {
		t.Skip("/usr/bin/rclone not installed (CI installs it with `apt-get install rclone`); skipping the rclone script")
	}
	runClientScript(t, "rclone_test.sh", 8*time.Minute)
}

// TestClientS3cmd runs test/clients/s3cmd_test.sh: Debian's s3cmd with SigV4
// and with SigV2 (mb, put incl. multipart, get, ls, la, info, cp, mv,
// signurl, sync, del, rb).
func TestClientS3cmd(t *testing.T) {
	needTools(t, "bash", "go", "python3", "curl", "cmp", "diff")
	if _, err := os.Stat("/usr/bin/s3cmd"); err != nil {
		t.Skip("/usr/bin/s3cmd not installed (CI installs it with `apt-get install s3cmd`); skipping the s3cmd script")
	}
	runClientScript(t, "s3cmd_test.sh", 8*time.Minute)
}

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the real-client scripts build jog and move tens to hundreds of MiB")
	}
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not on PATH; the client script needs it", tool)
		}
	}
}

var summaryLine = regexp.MustCompile(`(?m)^(\d+) passed, 0 failed(, \d+ skipped)?$`)

// runClientScript runs test/clients/<script> in its own process group (so a
// timeout also ends the jog server it started) and fails the test unless it
// exits 0 and prints "N passed, 0 failed".
func runClientScript(t *testing.T, script string, timeout time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "../clients/"+script)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start).Round(time.Second)
	if ctx.Err() != nil {
		t.Fatalf("%s timed out after %v:\n%s", script, timeout, out)
	}
	if err != nil {
		t.Fatalf("%s failed after %v: %v\n%s", script, took, err, out)
	}
	m := summaryLine.FindSubmatch(out)
	if m == nil || bytes.Equal(m[1], []byte("0")) {
		t.Fatalf("%s exited 0 without a \"N passed, 0 failed\" line:\n%s", script, out)
	}
	t.Logf("%s (%v):\n%s", script, took, out)
}
