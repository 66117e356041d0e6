package itest

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/jogstore/jog/internal/testutil"
)

// Peer is an S3 server that is not JOG, on a free loopback port over a
// temporary directory, with testutil's access key, secret key and region.
type Peer struct {
	Name   string
	URL    string
	Client *s3.Client // aws-sdk-go-v2, path-style, the test credentials
}

// StartVersityGW starts versitygw ($JOG_VERSITYGW, else `versitygw` on
// PATH) over its posix backend; .ci/run installs it, so CI never skips it.
func StartVersityGW(t *testing.T) *Peer {
	t.Helper()
	return startPeer(t, "versitygw", true, nil, func(addr, dir string) []string {
		return []string{"--quiet", "--access", testutil.AccessKey, "--secret", testutil.SecretKey,
			"--region", testutil.Region, "--port", addr, "posix", dir}
	})
}

// StartMinIO starts MinIO's server ($JOG_MINIO, else `minio` on PATH) in
// single-drive mode. .ci/run does not install it (its first build takes
// minutes): without it the test is skipped, in CI too; run it locally with
// `go install github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c`.
func StartMinIO(t *testing.T) *Peer {
	t.Helper()
	env := []string{"MINIO_ROOT_USER=" + testutil.AccessKey, "MINIO_ROOT_PASSWORD=" + testutil.SecretKey,
		"MINIO_REGION=" + testutil.Region, "MINIO_BROWSER=off", "MINIO_UPDATE=off"}
	return startPeer(t, "minio", false, env, func(addr, dir string) []string {
		return []string{"server", "--quiet", "--address", addr, "--console-address", "127.0.0.1:0", dir}
	})
}

// startPeer finds the binary name ($JOG_<NAME>, else name on PATH), runs
// it with args(addr, dir) and env added to the test's, waits until it
// answers HTTP, and stops it at the test's end. The test is skipped,
// saying why, when the binary is absent; when ci (.ci/run installs it)
// and under CI ($CI set) it fails instead.
func startPeer(t *testing.T, name string, ci bool, env []string, args func(addr, dir string) []string) *Peer {
	t.Helper()
	envName := "JOG_" + strings.ToUpper(name)
	bin := os.Getenv(envName)
	if bin == "" {
		p, err := exec.LookPath(name)
		if err != nil {
			why := name + " not on PATH and " + envName + " unset (.ci/run installs it with `go install`)"
			if ci && os.Getenv("CI") != "" {
				t.Fatal(why + ": CI must not skip it")
			}
			t.Skip(why + "; skipping")
		}
		bin = p
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	log := new(testutil.SyncBuffer)
	cmd := exec.Command(bin, args(addr, t.TempDir())...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	url := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(url + "/") // any answer but 503 (403 unsigned) means it serves
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusServiceUnavailable {
				break
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("%s exited during start-up: %v\n%s", name, err, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not serving on %s within 30 s: %v\n%s", name, addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &Peer{Name: name, URL: url, Client: s3.New(s3.Options{
		Region:       testutil.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(testutil.AccessKey, testutil.SecretKey, ""),
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Logger:       logging.Nop{},
	})}
}
