// Package replicate tests metadata replication end to end: real jog
// binaries, one replicating its SQLite metadata to another with Litestream,
// then restored from it (docs/adr/0021-metadata-replication.md).
package replicate

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
)

const (
	region = "us-east-1"
	// Each server's root keys; the replica's (B's) are A's replication keys.
	keyA, secretA = "replicatesourceA01", "replicatesourcesecret000000000A"
	keyB, secretB = "replicatetargetB01", "replicatetargetsecret000000000B"
)

// server is one `jog server` process (testutil.Jog) in this package's
// region.
type server struct{ *testutil.Jog }

// startServer starts `jog server` on 127.0.0.1:0 with args and env added
// and waits until it is ready; the test's end stops it.
func startServer(t *testing.T, bin, dataDir, key, secret string, env []string, args ...string) *server {
	t.Helper()
	return &server{testutil.StartJog(t, bin, environ(env), append([]string{"--data-dir", dataDir,
		"--access-key", key, "--secret-key", secret, "--region", region, "--log-level", "info"}, args...)...)}
}

func (s *server) client(key, secret string) *s3.Client { return s.Client(region, key, secret) }

// environ is the test's environment with extra added (AWS_CA_BUNDLE
// included when the test's has it: it must not matter to an http://
// replica, TestReplicateCABundle).
func environ(extra []string) []string { return append(os.Environ(), extra...) }

// run runs the jog binary with args and env added, returning its exit
// status and output.
func run(t *testing.T, bin string, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = environ(env)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("jog %s: timed out\n%s", strings.Join(args, " "), out)
	}
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("jog %s: %v", strings.Join(args, " "), err)
	}
	return 0, string(out)
}

func mustRun(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	code, out := run(t, bin, env, args...)
	if code != 0 {
		t.Fatalf("jog %s: exit %d\n%s", strings.Join(args, " "), code, out)
	}
	return out
}
