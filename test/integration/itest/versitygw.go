package itest

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/logging"

	"github.com/jogstore/jog/internal/testutil"
)

// VersityGW is an S3 server that is not JOG: versitygw over its posix
// backend in a temporary directory, on a free loopback port.
type VersityGW struct {
	URL    string
	Client *s3.Client // aws-sdk-go-v2, path-style, the test credentials
}

// StartVersityGW starts versitygw ($JOG_VERSITYGW, else `versitygw` on
// PATH) with testutil's access key, secret key and region, and stops it
// at the test's end. The test is skipped, saying why, when the binary is
// absent; under CI ($CI set) it fails instead.
func StartVersityGW(t *testing.T) *VersityGW {
	t.Helper()
	bin := os.Getenv("JOG_VERSITYGW")
	if bin == "" {
		p, err := exec.LookPath("versitygw")
		if err != nil {
			const why = "versitygw not on PATH and JOG_VERSITYGW unset (.ci/run installs it with `go install`)"
			if os.Getenv("CI") != "" {
				t.Fatal(why + ": CI must not skip the non-JOG destination")
			}
			t.Skip(why + "; skipping the non-JOG destination")
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
	cmd := exec.Command(bin, "--quiet", "--access", testutil.AccessKey, "--secret", testutil.SecretKey,
		"--region", testutil.Region, "--port", addr, "posix", t.TempDir())
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
		resp, err := http.Get(url + "/") // any answer (403 unsigned) means it serves
		if err == nil {
			resp.Body.Close()
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("versitygw exited during start-up: %v\n%s", err, log)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("versitygw not serving on %s within 30 s: %v\n%s", addr, err, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return &VersityGW{URL: url, Client: s3.New(s3.Options{
		Region:       testutil.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(testutil.AccessKey, testutil.SecretKey, ""),
		BaseEndpoint: aws.String(url),
		UsePathStyle: true,
		Logger:       logging.Nop{},
	})}
}
