package console

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// metricsToken scrapes the servers' /metrics.
const metricsToken = "console-e2e-metrics-token"

var (
	buildOnce sync.Once
	jogBin    string // the binary every test of the package runs
	binDir    string // where it was built; removed by TestMain
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// jogBinary builds jog from this tree once for all the package's tests.
func jogBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jog-console-e2e-")
		if err != nil {
			t.Fatal(err)
		}
		binDir = dir
		jogBin = testutil.BuildJog(t, dir)
	})
	if jogBin == "" {
		t.Fatal("building jog failed in an earlier test")
	}
	return jogBin
}

// jogServer is a `jog server` process on a loopback port the kernel chose.
type jogServer struct {
	URL string // http://127.0.0.1:port, the S3 port
	// Console is the console's origin (http://127.0.0.1:port), from the
	// banner: a port of its own, or URL with --console-addr=same.
	Console string
	srv     *testutil.Server
	cmd     *exec.Cmd
	log     *testutil.SyncBuffer
	done    chan error
}

// startJog runs `jog server --addr 127.0.0.1:0` over a fresh data dir with
// the test's root keys and a metrics token, plus args, and waits until it
// is ready. The server is stopped (SIGTERM) when the test ends.
func startJog(t *testing.T, args ...string) *jogServer {
	t.Helper()
	bin := jogBinary(t)
	cmd := exec.Command(bin, append([]string{"server", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir(),
		"--access-key", testutil.AccessKey, "--secret-key", testutil.SecretKey, "--region", testutil.Region,
		"--fsync", "never", "--metrics-token", metricsToken, "--log-level", "warn"}, args...)...)
	log := &testutil.SyncBuffer{}
	cmd.Stderr = log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &jogServer{cmd: cmd, log: log, done: make(chan error, 1)}
	// The banner's first line names the address: "JOG v… listening on
	// 127.0.0.1:port"; the next, the console's: "Console: http://…/console/ …".
	addr, console := make(chan string, 1), make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			_, _ = log.Write([]byte(line + "\n"))
			if _, a, ok := strings.Cut(line, " listening on "); ok {
				select {
				case addr <- strings.TrimSpace(a):
				default:
				}
			}
			if _, u, ok := strings.Cut(line, "Console: "); ok {
				u, _, _ = strings.Cut(u, " ")
				select {
				case console <- strings.TrimSuffix(u, "/console/"):
				default:
				}
			}
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { s.stop(t) })
	select {
	case a := <-addr:
		s.URL = "http://" + a
	case err := <-s.done:
		s.done <- err
		t.Fatalf("jog server exited: %v\n%s", err, log)
	case <-time.After(30 * time.Second):
		t.Fatalf("jog server printed no address in 30 s:\n%s", log)
	}
	select {
	case s.Console = <-console:
	case <-time.After(30 * time.Second):
		t.Fatalf("jog server printed no console address in 30 s:\n%s", log)
	}
	testutil.WaitReady(t, s.URL)
	s.srv = &testutil.Server{URL: s.URL, Addr: strings.TrimPrefix(s.URL, "http://"),
		Config: config.Config{Region: testutil.Region, AccessKey: testutil.AccessKey, SecretKey: testutil.SecretKey}}
	return s
}

func (s *jogServer) stop(t *testing.T) {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		t.Errorf("jog server did not stop in 30 s; its log:\n%s", s.log)
	}
	if t.Failed() {
		t.Logf("jog server log:\n%s", s.log)
	}
}

// logged waits (30 s at most) for a line of the server's log holding
// marker and returns what follows marker on it, up to a space.
func (s *jogServer) logged(t *testing.T, marker string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, line := range strings.Split(s.log.String(), "\n") {
			if _, after, ok := strings.Cut(line, marker); ok {
				v, _, _ := strings.Cut(after, " ")
				return v
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server logged no %q in 30 s:\n%s", marker, s.log)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// s3 is an aws-sdk-go-v2 S3 client of the server signing as root, or as
// the access key and secret given.
func (s *jogServer) s3(t *testing.T, key ...string) *s3.Client {
	t.Helper()
	if len(key) == 2 {
		return itest.AWSClient(t, s.srv, func(o *s3.Options) {
			o.Credentials = credentials.NewStaticCredentialsProvider(key[0], key[1], "")
		})
	}
	return itest.AWSClient(t, s.srv)
}

// iam is an aws-sdk-go-v2 IAM client of the server signing as root.
func (s *jogServer) iam(t *testing.T) *iam.Client {
	t.Helper()
	return iam.New(iam.Options{
		Region:       testutil.Region,
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(testutil.AccessKey, testutil.SecretKey, ""),
	})
}

// newUser creates IAM user name with the inline policy doc (none when "":
// what it may do, a bucket policy grants) and an access key, returned.
func (s *jogServer) newUser(t *testing.T, name, doc string) (string, string) {
	t.Helper()
	ctx := context.Background()
	c := s.iam(t)
	if _, err := c.CreateUser(ctx, &iam.CreateUserInput{UserName: aws.String(name)}); err != nil {
		t.Fatalf("CreateUser %s: %v", name, err)
	}
	if doc != "" {
		if _, err := c.PutUserPolicy(ctx, &iam.PutUserPolicyInput{UserName: aws.String(name),
			PolicyName: aws.String("console-e2e"), PolicyDocument: aws.String(doc)}); err != nil {
			t.Fatalf("PutUserPolicy %s: %v", name, err)
		}
	}
	k, err := c.CreateAccessKey(ctx, &iam.CreateAccessKeyInput{UserName: aws.String(name)})
	if err != nil {
		t.Fatalf("CreateAccessKey %s: %v", name, err)
	}
	return aws.ToString(k.AccessKey.AccessKeyId), aws.ToString(k.AccessKey.SecretAccessKey)
}

// requests is jog_s3_requests_total of op from the server's /metrics,
// summed over statuses below 400 (the requests that succeeded).
func (s *jogServer) requests(t *testing.T, op string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+metricsToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: %d %s", resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	n := 0
	for _, m := range fams["jog_s3_requests_total"].GetMetric() {
		var mop, status string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "op":
				mop = l.GetValue()
			case "status":
				status = l.GetValue()
			}
		}
		if mop == op && status < "400" {
			n += int(m.GetCounter().GetValue())
		}
	}
	return n
}
