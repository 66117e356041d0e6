package notify

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/durq"
)

// chanSender passes on each message it is sent.
type chanSender chan []byte

func (c chanSender) Send(_ context.Context, body []byte) error {
	c <- body
	return nil
}

func openDurable(t *testing.T, dataDir, gateway string, s durq.Sender) *Durable {
	t.Helper()
	q, err := OpenDurable(dataDir, gateway, durq.Options{Targets: map[string]durq.Sender{arnA: s}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// TestDurable: a delivery reaches its target as a Message of its one
// event, also when it was queued by an ended gateway: OpenDurable adopts
// that gateway's queue, under <data-dir>/notify.
func TestDurable(t *testing.T) {
	dataDir := t.TempDir()
	ended := openDurable(t, dataDir, "ended", make(chanSender))
	put := Event{EventName: "ObjectCreated:Put", S3: Entity{Object: Object{Key: "a\nb"}}}
	if err := ended.Enqueue(context.Background(), []Delivery{{Target: arnA, Event: put}}); err != nil {
		t.Fatal(err)
	}
	if err := ended.Close(); err != nil {
		t.Fatal(err)
	}
	sent := make(chanSender, 1)
	q := openDurable(t, dataDir, "new", sent)
	if _, err := os.Stat(filepath.Join(dataDir, QueueDir, "ended")); !os.IsNotExist(err) {
		t.Errorf("the ended gateway's queue was not adopted: %v", err)
	}
	q.Start()
	select {
	case body := <-sent:
		var m Message
		if err := json.Unmarshal(body, &m); err != nil || len(m.Records) != 1 || m.Records[0].S3.Object.Key != "a\nb" {
			t.Errorf("sent %s (%v), want a Message of the event", body, err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing sent")
	}
}
