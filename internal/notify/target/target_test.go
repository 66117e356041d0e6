package target

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/jogstore/jog/internal/notify/target/natstest"
)

func TestParseSpecs(t *testing.T) {
	specs, err := parseSpecs([]string{"hook=https://example.com/in"}, []string{"bus=nats://u:p@127.0.0.1:4222/jog.events"},
		[]string{"hook=s3cr3t"})
	if err != nil {
		t.Fatal(err)
	}
	if len(specs) != 2 || specs[0].Token != "s3cr3t" || specs[1].URL != "nats://u:p@127.0.0.1:4222/jog.events" {
		t.Fatalf("specs %+v", specs)
	}
	if arn := specs[1].ARN("eu-west-1"); arn != "arn:jog:sqs:eu-west-1:bus:nats" {
		t.Errorf("ARN %s", arn)
	}
	for _, c := range []struct {
		hooks, nats, tokens []string
		want                string
	}{
		{[]string{"a=ftp://x/y"}, nil, nil, "want http://host/path"},
		{[]string{"noid"}, nil, nil, "want ID=URL"},
		{[]string{"a b=http://x/"}, nil, nil, "want ID=URL"},
		{[]string{"a=http://x/"}, []string{"a=nats://h:4222/s"}, nil, `target ID "a" given twice`},
		{nil, []string{"n=nats://h:4222"}, nil, "nats://[user:password@]host:4222/subject"},
		{nil, nil, []string{"x=tok"}, `no --notify-webhook with ID "x"`},
	} {
		_, err := parseSpecs(c.hooks, c.nats, c.tokens)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v %v: %v, want %q", c.hooks, c.nats, c.tokens, err, c.want)
		}
	}
	_, err = parseSpecs(nil, []string{"n=nats://u:hunter2@h:4222"}, nil)
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error shows the password: %v", err)
	}
}

// parseSpecs is ParseSpecs of webhook and NATS entries and webhook tokens.
func parseSpecs(hooks, nats, tokens []string) ([]Spec, error) {
	return ParseSpecs(map[string][]string{Webhook: hooks, NATS: nats}, map[string][]string{Webhook: tokens})
}

// Every kind's flags, checks and sender come from its entry in kinds:
// the names are distinct, each refuses a URL that is not its kind's and
// Open makes a sender of each (a kind whose entry lacks its constructor
// or check fails here, not at a server's start).
func TestKinds(t *testing.T) {
	flags := map[string]bool{}
	for _, k := range Kinds() {
		for _, f := range []string{k.Flag(), k.TokenFlag()} {
			if f != "" && flags[f] {
				t.Errorf("flag --%s twice", f)
			}
			flags[f] = true
		}
		if !strings.Contains(k.FlagUsage(), ":"+k.Name) || k.Usage == "" || k.want == "" {
			t.Errorf("kind %s: usage %q, want %q", k.Name, k.FlagUsage(), k.want)
		}
		if _, err := ParseSpecs(map[string][]string{k.Name: {"x=ftp://h/s"}}, nil); err == nil || !strings.Contains(err.Error(), "--"+k.Flag()+" x") {
			t.Errorf("kind %s took an ftp URL: %v", k.Name, err)
		}
	}
	if _, err := Open(Spec{ID: "x", Kind: "carrier-pigeon"}, slog.New(slog.DiscardHandler)); err == nil {
		t.Error("Open of an unknown kind")
	}
	ns := natstest.Start(t)
	for _, s := range []Spec{{ID: "h", Kind: Webhook, URL: "http://127.0.0.1:1/in"}, {ID: "n", Kind: NATS, URL: ns.URL() + "/s"}} {
		snd, err := Open(s, slog.New(slog.DiscardHandler))
		if err != nil || snd == nil {
			t.Fatalf("Open(%+v) = %v, %v", s, snd, err)
		}
		snd.Close()
	}
}

func TestWebhook(t *testing.T) {
	status := http.StatusOK
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" ||
			r.Header.Get("Authorization") != "Bearer tok" {
			t.Errorf("%s %q %q", r.Method, r.Header.Get("Content-Type"), r.Header.Get("Authorization"))
		}
		got = append(got, string(body))
		w.WriteHeader(status)
	}))
	defer srv.Close()
	w := NewWebhook(Spec{ID: "h", Kind: Webhook, URL: srv.URL, Token: "tok"})
	defer w.Close()
	if err := w.Send(context.Background(), []byte(`{"Records":[1]}`)); err != nil {
		t.Fatal(err)
	}
	status = http.StatusInternalServerError
	if err := w.Send(context.Background(), []byte(`{"Records":[2]}`)); err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("a 500 answer: %v, want an error", err)
	}
	status = http.StatusNoContent
	if err := w.Send(context.Background(), []byte(`{"Records":[3]}`)); err != nil {
		t.Errorf("a 204 answer: %v", err)
	}
	if strings.Join(got, " ") != `{"Records":[1]} {"Records":[2]} {"Records":[3]}` {
		t.Errorf("received %v", got)
	}
	srv.Close()
	if err := w.Send(context.Background(), []byte(`{}`)); err == nil {
		t.Error("a closed webhook took a message")
	}
}

// TestNATS publishes to a real nats-server, loses it and gets it back.
func TestNATS(t *testing.T) {
	ns := natstest.Start(t)
	sub, err := nats.Connect(ns.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	msgs := make(chan *nats.Msg, 16)
	if _, err := sub.ChanSubscribe("jog.events", msgs); err != nil {
		t.Fatal(err)
	}
	sub.Flush()
	n, err := NewNATS(Spec{ID: "bus", Kind: NATS, URL: ns.URL() + "/jog.events"}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	waitSent(t, n, `{"Records":["one"]}`)
	expect(t, msgs, `{"Records":["one"]}`)

	ns.Stop()
	if err := n.Send(context.Background(), []byte(`{"lost":true}`)); err == nil {
		t.Error("a publish with the server down succeeded")
	}
	ns.Restart()
	waitSent(t, n, `{"Records":["two"]}`) // once reconnected
	waitConnected(t, sub)
	// The subscriber may have reconnected after "two": send until it sees one.
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m := <-msgs:
			if string(m.Data) == `{"lost":true}` {
				t.Fatalf("a publish that failed was delivered later")
			}
			if strings.HasPrefix(string(m.Data), `{"Records":["`) {
				return
			}
		case <-time.After(100 * time.Millisecond):
			waitSent(t, n, `{"Records":["three"]}`)
		case <-deadline:
			t.Fatal("nothing received after the restart")
		}
	}
}

func waitSent(t *testing.T, n *NATSSender, body string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		err := n.Send(context.Background(), []byte(body))
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("send: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func waitConnected(t *testing.T, c *nats.Conn) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !c.IsConnected() {
		if time.Now().After(deadline) {
			t.Fatal("subscriber did not reconnect")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func expect(t *testing.T, msgs chan *nats.Msg, body string) {
	t.Helper()
	select {
	case m := <-msgs:
		if string(m.Data) != body {
			t.Errorf("received %s, want %s", m.Data, body)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("%s not received", body)
	}
}
