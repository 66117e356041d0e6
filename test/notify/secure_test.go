package notify

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/notify/target/natstest"
	"github.com/jogstore/jog/internal/testutil"
)

// natsUser and natsPassword are what the NATS target's URL carries; the
// password is one no log or printed setting may show.
const natsUser, natsPassword = "jog", "pw-Secr3t-4242"

// TestNATSCredentials: nats-server requires a user and password. While it
// requires another password than the target's URL carries, publishing
// fails (logged, counted in jog_notify_failures_total) and the events
// wait; once the server is restarted with the target's credentials every
// event arrives, in order. The password shows neither in
// `jog server --print-config` nor in the server's log.
func TestNATSCredentials(t *testing.T) {
	ns := natstest.StartWithUser(t, natsUser, "another-password")
	stream(t, ns.URL(), nats.UserInfo(natsUser, "another-password"))
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	natsURL := strings.Replace(ns.URL(), "nats://", "nats://"+natsUser+":"+natsPassword+"@", 1) + "/" + subject
	args := []string{"--notify-nats", "bus=" + natsURL}

	out, err := exec.Command(bin, append([]string{"server", "--print-config", "--data-dir", tmp + "/data"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("--print-config: %v\n%s", err, out)
	}
	if strings.Contains(string(out), natsPassword) || !strings.Contains(string(out), "bus=nats://"+natsUser+":") {
		t.Errorf("--print-config shows the NATS password, or not the target:\n%s", out)
	}

	srv := startServer(t, bin, tmp+"/data", nil, args...)
	c := srv.client()
	mustCreate(t, c, "bus", false, toBus)
	keys := putAll(t, c, "bus", numbered("in/k", 10))
	waitMetric(t, srv, fmt.Sprintf(`jog_notify_failures_total{target=%q} `, busARN))
	if !strings.Contains(srv.Log.String(), "notification queue: target failing") {
		t.Errorf("the failing target is not logged:\n%s", srv.Log.String())
	}

	// Past two refusals in a row a NATS client gives up by default: wait
	// for a few more than that.
	deadline := time.Now().Add(time.Minute)
	for authErrors(ns.Log()) < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("nats-server refused %d connections, want 4:\n%s", authErrors(ns.Log()), ns.Log())
		}
		time.Sleep(100 * time.Millisecond)
	}

	ns.SetUser(natsUser, natsPassword)
	ns.Restart()
	got := streamKeys(t, ns.URL(), len(keys), nats.UserInfo(natsUser, natsPassword))
	if !slices.Equal(got, keys) {
		t.Errorf("after nats-server took the target's password: %v, want %v in order", got, keys)
	}
	if strings.Contains(srv.Log.String(), natsPassword) {
		t.Errorf("the server's log shows the NATS password:\n%s", srv.Log.String())
	}
}

// TestWebhookHTTPS: a webhook over HTTPS whose certificate the server
// does not trust gets nothing (the failures are counted, the events
// wait); the server started again trusting the certificate's issuer
// (SSL_CERT_FILE, which Go's crypto/x509 reads on Linux in place of the
// system's roots) delivers every event, in order.
func TestWebhookHTTPS(t *testing.T) {
	tmp := t.TempDir()
	certFile, keyFile, otherCert := tmp+"/hook.pem", tmp+"/hook-key.pem", tmp+"/other.pem"
	testutil.WriteSelfSigned(t, certFile, keyFile)
	testutil.WriteSelfSigned(t, otherCert, tmp+"/other-key.pem")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	hook := newReceiver()
	hs := httptest.NewUnstartedServer(hook)
	hs.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	hs.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes
	hs.StartTLS()
	t.Cleanup(hs.Close)
	bin := testutil.BuildJog(t, tmp)
	args := []string{"--notify-webhook", "hook=" + hs.URL + "/events"}

	srv := startServer(t, bin, tmp+"/data", []string{"SSL_CERT_FILE=" + otherCert}, args...)
	c := srv.client()
	mustCreate(t, c, "tls", false, toHook)
	keys := putAll(t, c, "tls", numbered("tls-", 10))
	waitMetric(t, srv, fmt.Sprintf(`jog_notify_failures_total{target=%q} `, hookARN))
	if !strings.Contains(srv.Log.String(), "certificate") {
		t.Errorf("the untrusted certificate is not logged:\n%s", srv.Log.String())
	}
	srv.Stop()
	hook.mu.Lock()
	if len(hook.events) != 0 {
		t.Errorf("a webhook whose certificate is not trusted received %d events", len(hook.events))
	}
	hook.mu.Unlock()

	startServer(t, bin, tmp+"/data", []string{"SSL_CERT_FILE=" + certFile}, args...)
	got := hook.wait(t, "the events once the certificate is trusted", func(evs []notify.Event) bool { return len(evs) >= len(keys) })
	if !slices.Equal(keysOf(got), keys) {
		t.Errorf("once the certificate is trusted: %v, want %v in order", keysOf(got), keys)
	}
}

// authErrors counts the connections nats-server refused for their
// credentials.
func authErrors(log string) int {
	return strings.Count(strings.ToLower(log), "authentication error")
}

// stream creates the JetStream stream EVENTS on subject: it keeps what
// is published whoever subscribes when.
func stream(t *testing.T, url string, opts ...nats.Option) {
	t.Helper()
	js, done := jetStream(t, url, opts...)
	defer done()
	if _, err := js.AddStream(&nats.StreamConfig{Name: "EVENTS", Subjects: []string{subject}}); err != nil {
		t.Fatal(err)
	}
}

// streamKeys reads the stream EVENTS until it holds n distinct keys and
// returns each key's first arrival, in order (a publish whose flush
// failed may repeat); it fails the test if they are not there within a
// minute.
func streamKeys(t *testing.T, url string, n int, opts ...nats.Option) []string {
	t.Helper()
	js, done := jetStream(t, url, opts...)
	defer done()
	var first []string
	seen := map[string]bool{}
	deadline := time.Now().Add(time.Minute)
	for seq := uint64(1); len(first) < n; {
		m, err := js.GetMsg("EVENTS", seq)
		if err != nil {
			if time.Now().After(deadline) {
				t.Fatalf("the stream holds %v, want %d keys (%v)", first, n, err)
			}
			time.Sleep(50 * time.Millisecond)
			continue
		}
		seq++
		var msg notify.Message
		if err := json.Unmarshal(m.Data, &msg); err != nil || len(msg.Records) != 1 {
			t.Fatalf("NATS message %s: %v", m.Data, err)
		}
		if k := msg.Records[0].S3.Object.Key; !seen[k] {
			seen[k] = true
			first = append(first, k)
		}
	}
	return first
}

var _ = httptest.NewServer

// jetStream connects to the NATS server at url: its JetStream context,
// and the function that closes the connection.
func jetStream(t *testing.T, url string, opts ...nats.Option) (nats.JetStreamContext, func()) {
	t.Helper()
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	js, err := nc.JetStream()
	if err != nil {
		nc.Close()
		t.Fatal(err)
	}
	return js, nc.Close
}
