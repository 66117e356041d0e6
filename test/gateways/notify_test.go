package gateways

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/internal/testutil/pgtest"
)

// hook is a webhook receiver: it answers 500 while down, and keeps the
// keys of the events it took.
type hook struct {
	mu   sync.Mutex
	down bool
	keys map[string]int
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var m notify.Message
	err := json.NewDecoder(r.Body).Decode(&m)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.down {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	if err != nil || len(m.Records) != 1 {
		http.Error(w, "bad message", http.StatusBadRequest)
		return
	}
	h.keys[m.Records[0].S3.Object.Key]++
}

// missing are the keys the hook has not received.
func (h *hook) missing(keys []string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, k := range keys {
		if h.keys[k] == 0 {
			out = append(out, k)
		}
	}
	return out
}

// TestNotifyAcrossGateways: two gateways over one database and one data
// directory, one webhook target. While the webhook answers 500, PUTs
// through both are acknowledged and their events queued on the gateway
// that took them; gateway A is killed (SIGKILL). Once the webhook is back
// and B restarted (a gateway adopts the queues of ended gateways at start,
// and every 5 minutes: a restart is the start, without a wait), every
// acknowledged PUT's event arrives, A's too (duplicates allowed, none
// missing), and A's queue directory is gone.
func TestNotifyAcrossGateways(t *testing.T) {
	if testing.Short() {
		t.Skip("gateways over PostgreSQL")
	}
	h := &hook{down: true, keys: map[string]int{}}
	hs := httptest.NewServer(h)
	defer hs.Close()
	tmp := t.TempDir()
	bin := testutil.BuildJog(t, tmp)
	meta := pgtest.Shared(t).NewDatabase(t)
	dataDir := filepath.Join(tmp, "data")
	start := func() *testutil.Jog {
		return testutil.StartJog(t, bin, nil, "--data-dir", dataDir, "--meta", meta, "--access-key", accessKey,
			"--secret-key", secretKey, "--region", region, "--fsync", "always", "--notify-webhook", "hook="+hs.URL+"/events")
	}
	a := start()
	queues := func() []string {
		entries, _ := os.ReadDir(filepath.Join(dataDir, "notify"))
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	if q := queues(); len(q) != 1 {
		t.Fatalf("notify/ holds %v with gateway A alone, want one queue", q)
	}
	gatewayA := queues()[0]
	b := start()

	ctx := context.Background()
	ca, cb := a.Client(region, accessKey, secretKey), b.Client(region, accessKey, secretKey)
	if _, err := ca.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("events")}); err != nil {
		t.Fatal(err)
	}
	_, err := cb.PutBucketNotificationConfiguration(ctx, &s3.PutBucketNotificationConfigurationInput{
		Bucket: aws.String("events"),
		NotificationConfiguration: &types.NotificationConfiguration{QueueConfigurations: []types.QueueConfiguration{{
			QueueArn: aws.String("arn:jog:sqs:" + region + ":hook:webhook"), Events: []types.Event{"s3:ObjectCreated:*"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := range 40 {
		c, via := ca, "a"
		if i%2 == 1 {
			c, via = cb, "b"
		}
		k := fmt.Sprintf("%s-%03d", via, i)
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("events"), Key: aws.String(k),
			Body: bytes.NewReader([]byte(k))}); err != nil {
			t.Fatalf("PUT %s through gateway %s: %v", k, via, err)
		}
		keys = append(keys, k) // acknowledged
	}
	a.Kill()
	h.mu.Lock()
	h.down = false
	h.mu.Unlock()
	b.Stop()
	b = start()

	deadline := time.Now().Add(time.Minute)
	for m := h.missing(keys); len(m) > 0; m = h.missing(keys) {
		if time.Now().After(deadline) {
			t.Fatalf("%d acknowledged PUTs' events never arrived: %v\ngateway B's log:\n%s", len(m), m, b.Log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(b.Log.String(), "gateway="+gatewayA) {
		t.Errorf("gateway B's log does not say it adopted gateway A's queue (%s):\n%s", gatewayA, b.Log)
	}
	if q := queues(); len(q) != 1 {
		t.Errorf("notify/ holds %v once B restarted, want B's queue alone (A's and B's former adopted)", q)
	}
}
