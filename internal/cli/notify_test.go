package cli

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/testutil"
)

// TestNotifyListen: jog notify listen serves on --addr, prints a POSTed
// event's line on stdout and its address on stderr, refuses a POST
// without the token of JOG_NOTIFY_LISTEN_TOKEN, and exits 0 once its
// context ends (SIGINT, SIGTERM in main).
func TestNotifyListen(t *testing.T) {
	t.Setenv("JOG_NOTIFY_LISTEN_TOKEN", "s3cr3t")
	var stdout, stderr testutil.SyncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- Run(ctx, []string{"notify", "listen", "--addr", "127.0.0.1:0"}, &stdout, &stderr) }()
	addr := regexp.MustCompile(`taking events at (http://\S+)`)
	var url string
	for deadline := time.Now().Add(time.Minute); url == ""; time.Sleep(20 * time.Millisecond) {
		if m := addr.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no address on stderr within a minute: %q", stderr.String())
		}
	}
	msg := `{"Records":[{"eventName":"ObjectRemoved:Delete","s3":{"bucket":{"name":"b"},"object":{"key":"a+b%2Fc"}}}]}`
	for _, c := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer s3cr3t", 200}} {
		req, _ := http.NewRequest(http.MethodPost, url+"hook", strings.NewReader(msg))
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("POST with Authorization %q: %d, want %d", c.auth, resp.StatusCode, c.want)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit %d, want 0; stderr %q", code, stderr.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("still running a minute after its context ended")
	}
	if got, want := stdout.String(), "ObjectRemoved:Delete \"b/a b/c\" -\n"; got != want {
		t.Errorf("stdout %q, want %q", got, want)
	}
}
