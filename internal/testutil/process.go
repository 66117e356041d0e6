package testutil

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Jog is a `jog server` process a test started with StartJog, on a port
// of its choosing; the test's end stops it.
type Jog struct {
	URL string
	// Console is the web console's origin (http://127.0.0.1:port), from
	// the banner's "Console:" line; "" when it printed none.
	Console string
	// Banner holds the lines the server printed on stdout at start-up:
	// from "… listening on ADDR" to half a second after it.
	Banner []string
	// Log is the server's stderr.
	Log  *SyncBuffer
	t    testing.TB
	cmd  *exec.Cmd
	exit chan error
}

// StartJog runs bin as `jog server --addr 127.0.0.1:0` with args added, in
// environment env (the test's own when nil), and waits until it listens
// and /health/ready answers 200.
func StartJog(t testing.TB, bin string, env []string, args ...string) *Jog {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"server", "--addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = env
	if env == nil {
		cmd.Env = os.Environ()
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	j := &Jog{t: t, cmd: cmd, exit: make(chan error, 1), Log: new(SyncBuffer)}
	cmd.Stderr = j.Log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	go func() { j.exit <- cmd.Wait() }()
	t.Cleanup(j.Stop)
	deadline := time.After(time.Minute)
	for j.URL == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				lines = nil // stdout closed: the exit follows
				continue
			}
			if _, a, ok := strings.Cut(l, " listening on "); ok {
				j.URL = "http://" + a
			}
			j.Banner = append(j.Banner, l)
		case err := <-j.exit:
			j.cmd = nil
			t.Fatalf("jog server exited during start-up: %v\n%s", err, j.Log)
		case <-deadline:
			t.Fatalf("jog server did not listen within a minute\n%s", j.Log)
		}
	}
	// The rest of the banner follows at once; later lines are dropped.
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			j.Banner = append(j.Banner, l)
			if _, u, ok := strings.Cut(l, "Console: "); ok {
				u, _, _ = strings.Cut(u, " ")
				j.Console = strings.TrimSuffix(u, "/console/")
			}
		case <-time.After(500 * time.Millisecond):
			done = true
		}
	}
	go func() {
		for range lines {
		}
	}()
	WaitReady(t, j.URL)
	return j
}

// Stop stops the server gracefully (SIGTERM) and waits for it; a server
// that fails to stop within a minute is killed and the test fails.
func (j *Jog) Stop() {
	if j.cmd == nil {
		return
	}
	_ = j.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-j.exit:
		if err != nil {
			j.t.Errorf("jog server stopped with %v\n%s", err, j.Log)
		}
	case <-time.After(time.Minute):
		_ = j.cmd.Process.Kill()
		<-j.exit
		j.t.Errorf("jog server did not stop within a minute\n%s", j.Log)
	}
	j.cmd = nil
}

// Kill kills the server with SIGKILL, as a crash would, and waits for it.
func (j *Jog) Kill() {
	if j.cmd == nil {
		return
	}
	_ = j.cmd.Process.Signal(syscall.SIGKILL)
	<-j.exit
	j.cmd = nil
}

// Client is an aws-sdk-go-v2 S3 client of the server, path-style, signing
// with key and secret for region.
func (j *Jog) Client(region, key, secret string) *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		BaseEndpoint: aws.String(j.URL),
		UsePathStyle: true,
	})
}
