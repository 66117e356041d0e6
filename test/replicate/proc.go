// Package replicate tests metadata replication end to end: real jog
// binaries, one replicating its SQLite metadata to another with Litestream,
// then restored from it (docs/adr/0021-metadata-replication.md).
package replicate

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
)

const (
	region = "us-east-1"
	// Each server's root keys; the replica's (B's) are A's replication keys.
	keyA, secretA = "replicatesourceA01", "replicatesourcesecret000000000A"
	keyB, secretB = "replicatetargetB01", "replicatetargetsecret000000000B"
)

// server is one `jog server` process listening on a port of its choosing.
type server struct {
	t    *testing.T
	url  string
	cmd  *exec.Cmd
	exit chan error
	log  *testutil.SyncBuffer
}

// startServer starts `jog server` on 127.0.0.1:0 with args and env added
// and waits until it is ready; the test's end stops it.
func startServer(t *testing.T, bin, dataDir, key, secret string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"server", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
		"--access-key", key, "--secret-key", secret, "--region", region, "--log-level", "info"}, args...)...)
	cmd.Env = environ(env)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, exit: make(chan error, 1), log: new(testutil.SyncBuffer)}
	cmd.Stderr = s.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), " listening on "); ok {
				addr <- a
			}
		}
	}()
	go func() { s.exit <- cmd.Wait() }()
	t.Cleanup(s.stop)
	select {
	case a := <-addr:
		s.url = "http://" + a
	case err := <-s.exit:
		s.cmd = nil
		t.Fatalf("jog server exited during start-up: %v\n%s", err, s.log)
	case <-time.After(time.Minute):
		t.Fatalf("jog server did not listen within a minute\n%s", s.log)
	}
	waitReady(t, s.url)
	return s
}

func waitReady(t *testing.T, url string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if resp, err := http.Get(url + "/health/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("%s not ready within a minute", url)
}

// stop stops the server gracefully (SIGTERM) and waits for it.
func (s *server) stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.exit:
		if err != nil {
			s.t.Errorf("jog server stopped with %v\n%s", err, s.log)
		}
	case <-time.After(time.Minute):
		s.cmd.Process.Kill()
		<-s.exit
		s.t.Errorf("jog server did not stop within a minute\n%s", s.log)
	}
	s.cmd = nil
}

func (s *server) client(key, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		BaseEndpoint: aws.String(s.url),
		UsePathStyle: true,
	})
}

// environ is the test's environment with extra added, less AWS_CA_BUNDLE:
// Litestream's S3 client refuses to start while it is set (ADR 0021).
func environ(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_CA_BUNDLE=") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}

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
