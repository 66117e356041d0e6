// Package notify tests bucket event notifications end to end: the real
// jog binary with a webhook target (an HTTP server in the test) and a NATS
// target (a real nats-server, Debian's package), configured through
// PutBucketNotificationConfiguration with the AWS SDK; the target down
// then up, and kill -9 of the server after acknowledged writes
// (docs/NOTIFICATIONS.md, ADR 0024).
package notify

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/testutil"
)

const (
	region               = "us-east-1"
	accessKey, secretKey = "notifyaccess01", "notifysecret00000000000000001"
)

// server is one `jog server` process (testutil.Jog) with this package's
// keys and region, metrics public.
type server struct{ *testutil.Jog }

// startServer starts `jog server` with args and env added and waits until
// it is ready; the test's end stops it.
func startServer(t *testing.T, bin, dataDir string, env []string, args ...string) *server {
	t.Helper()
	return &server{testutil.StartJog(t, bin, append(os.Environ(), env...), append([]string{"--data-dir", dataDir,
		"--access-key", accessKey, "--secret-key", secretKey, "--region", region, "--metrics-public"}, args...)...)}
}

func (s *server) client() *s3.Client { return s.Client(region, accessKey, secretKey) }

// metrics returns the server's /metrics page.
func (s *server) metrics(t *testing.T) string {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
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
