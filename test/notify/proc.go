// Package notify tests bucket event notifications end to end: the real
// jog binary with a webhook target (an HTTP server in the test) and a NATS
// target (a real nats-server, Debian's package), configured through
// PutBucketNotificationConfiguration with the AWS SDK; the target down
// then up, and kill -9 of the server after acknowledged writes
// (docs/NOTIFICATIONS.md, ADR 0024).
package notify

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/testutil"
)

const (
	region               = "us-east-1"
	accessKey, secretKey = "notifyaccess01", "notifysecret00000000000000001"
)

// server is one `jog server` process listening on a port of its choosing.
type server struct {
	t      *testing.T
	url    string
	banner []string
	cmd    *exec.Cmd
	exit   chan error
	log    *testutil.SyncBuffer
}

// startServer starts `jog server` with args and env added and waits until
// it is ready; the test's end stops it.
func startServer(t *testing.T, bin, dataDir string, env []string, args ...string) *server {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"server", "--addr", "127.0.0.1:0", "--data-dir", dataDir,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--metrics-public"}, args...)...)
	cmd.Env = append(cmd.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, exit: make(chan error, 1), log: new(testutil.SyncBuffer)}
	cmd.Stderr = s.log
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
	go func() { s.exit <- cmd.Wait() }()
	t.Cleanup(s.stop)
	deadline := time.After(time.Minute)
	for s.url == "" {
		select {
		case l := <-lines:
			s.banner = append(s.banner, l)
			if _, a, ok := strings.Cut(l, " listening on "); ok {
				s.url = "http://" + a
			}
		case err := <-s.exit:
			s.cmd = nil
			t.Fatalf("jog server exited during start-up: %v\n%s", err, s.log)
		case <-deadline:
			t.Fatalf("jog server did not listen within a minute\n%s", s.log)
		}
	}
	// The rest of the banner follows at once.
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
				break
			}
			s.banner = append(s.banner, l)
		case <-time.After(500 * time.Millisecond):
			done = true
		}
	}
	testutil.WaitReady(t, s.url)
	return s
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

// kill kills the server with SIGKILL, as a crash would.
func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exit
	s.cmd = nil
}

func (s *server) client() *s3.Client {
	return s3.New(s3.Options{
		Region:       region,
		Credentials:  credentials.NewStaticCredentialsProvider(accessKey, secretKey, ""),
		BaseEndpoint: aws.String(s.url),
		UsePathStyle: true,
	})
}

// metrics returns the server's /metrics page.
func (s *server) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(s.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// receiver is a webhook: it keeps the events POSTed to it, in order, and
// answers 500 while down.
type receiver struct {
	mu      sync.Mutex
	events  []notify.Event
	down    bool
	refused int
	auth    []string
	changed chan struct{}
}

func newReceiver() *receiver { return &receiver{changed: make(chan struct{}, 1)} }

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	var m notify.Message
	err := json.NewDecoder(req.Body).Decode(&m)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		r.refused++
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if err != nil || len(m.Records) != 1 || req.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	r.auth = append(r.auth, req.Header.Get("Authorization"))
	r.events = append(r.events, m.Records[0])
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *receiver) setDown(down bool) {
	r.mu.Lock()
	r.down = down
	r.mu.Unlock()
}

// wait returns the events received once done says they are enough; it
// fails the test if they are not within a minute.
func (r *receiver) wait(t *testing.T, what string, done func([]notify.Event) bool) []notify.Event {
	t.Helper()
	deadline := time.After(time.Minute)
	for {
		r.mu.Lock()
		evs := append([]notify.Event(nil), r.events...)
		r.mu.Unlock()
		if done(evs) {
			return evs
		}
		select {
		case <-r.changed:
		case <-time.After(100 * time.Millisecond):
		case <-deadline:
			t.Fatalf("%s: not received within a minute; got %d events: %s", what, len(evs), describe(evs))
		}
	}
}

// describe lists events as "name bucket/key" for messages.
func describe(evs []notify.Event) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("\n  " + e.EventName + " " + e.S3.Bucket.Name + "/" + e.S3.Object.Key)
	}
	return b.String()
}
