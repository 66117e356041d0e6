package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"

	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/test/integration/itest"
)

// webhook is an HTTP receiver of the server's event notifications: the
// records it was POSTed, in order.
type webhook struct {
	URL  string
	mu   sync.Mutex
	recs []notify.Event
}

// startWebhook starts a receiver, closed when the test ends.
func startWebhook(t *testing.T) *webhook {
	t.Helper()
	w := &webhook{}
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var ev notify.Message
		if err := json.Unmarshal(body, &ev); err != nil {
			http.Error(rw, err.Error(), http.StatusBadRequest)
			return
		}
		w.mu.Lock()
		w.recs = append(w.recs, ev.Records...)
		w.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	w.URL = srv.URL
	return w
}

// await waits (wait at most) for a record of key in bucket and returns
// every record received until then.
func (w *webhook) await(t *testing.T, bucket, key string) []notify.Event {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		w.mu.Lock()
		recs := append([]notify.Event(nil), w.recs...)
		w.mu.Unlock()
		for _, r := range recs {
			if r.S3.Bucket.Name == bucket && r.S3.Object.Key == key {
				return recs
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the webhook received no event for %s/%s in %s; it received %d records", bucket, key, wait, len(recs))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// notifySettings adds an ObjectCreated:* configuration with a prefix to
// a bucket through its settings page, checks it with the S3 API and by an
// upload the webhook hears of; checks an unknown ARN shows S3's refusal;
// removes the configuration and checks the server has none left.
func notifySettings(p *tab, srv *jogServer, c *s3.Client, recv *webhook) {
	p.t.Helper()
	p.need("settings-notify", "notify-arn", "notify-event", "notify-add", "notify-remove")
	ctx := context.Background()
	const bucket = "e2e-notify"
	itest.CreateBucket(p.t, c, bucket)
	arn := srv.logged(p.t, "Notification target: ")
	section := hook("settings-notify")
	msg := section.in(".section-msg")
	fillForm := func(arn, prefix string) {
		p.open("/console/settings/" + bucket)
		p.visible(hook("notify-add"))
		p.enter(hook("notify-arn"), arn)
		p.click(hook("notify-event", "value", "s3:ObjectCreated:*"))
		p.enter(hook("notify-prefix"), prefix)
		p.click(hook("notify-add"))
	}

	// A target the server does not have: S3's refusal, in the section.
	fillForm("arn:jog:sqs:us-east-1:nosuch:webhook", "incoming/")
	got := p.until("the section's answer", wait, `(document.querySelector('`+msg.css+`') || {}).textContent || ''`)
	if !strings.Contains(got, "InvalidArgument") || !strings.Contains(got, "Unable to validate the following destination configurations") {
		p.t.Errorf("an unknown ARN: the section says %q, want InvalidArgument: Unable to validate the following destination configurations", got)
	}
	if n := notifyConfigs(p.t, c, bucket); len(n) != 0 {
		p.t.Fatalf("after a refused ARN the server has %d configurations", len(n))
	}

	fillForm(arn, "incoming/")
	p.visible(hook("notify-row"))
	cfgs := notifyConfigs(p.t, c, bucket)
	if len(cfgs) != 1 {
		p.t.Fatalf("the page shows a configuration, the server has %d", len(cfgs))
	}
	q := cfgs[0]
	var prefix []string
	if q.Filter != nil && q.Filter.Key != nil {
		for _, r := range q.Filter.Key.FilterRules {
			prefix = append(prefix, strings.ToLower(string(r.Name))+"="+aws.ToString(r.Value))
		}
	}
	if aws.ToString(q.QueueArn) != arn || len(q.Events) != 1 || q.Events[0] != types.EventS3ObjectCreated ||
		strings.Join(prefix, ",") != "prefix=incoming/" {
		p.t.Errorf("the server's configuration: queue %s, events %v, filter %v; want %s, [s3:ObjectCreated:*], [prefix=incoming/]",
			aws.ToString(q.QueueArn), q.Events, prefix, arn)
	}
	id := aws.ToString(q.Id)
	p.visible(hook("notify-row", "data-id", id))

	// Events arrive in order per target: once incoming/a.txt's is in, the
	// earlier outside/b.txt would have been too, had the filter let it.
	for _, key := range []string{"outside/b.txt", "incoming/a.txt"} {
		if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key),
			Body: strings.NewReader("hello")}); err != nil {
			p.t.Fatal(err)
		}
	}
	for _, r := range recv.await(p.t, bucket, "incoming/a.txt") {
		if r.S3.Bucket.Name != bucket {
			continue
		}
		if r.S3.Object.Key != "incoming/a.txt" || r.EventName != "ObjectCreated:Put" || r.S3.ConfigurationID != id {
			p.t.Errorf("the webhook received %s of %s (configuration %s), want only ObjectCreated:Put of incoming/a.txt (%s)",
				r.EventName, r.S3.Object.Key, r.S3.ConfigurationID, id)
		}
	}

	p.click(hook("notify-row", "data-id", id).in(`[data-test="notify-remove"]`))
	confirm(p, id)
	p.gone(hook("notify-row"))
	if n := notifyConfigs(p.t, c, bucket); len(n) != 0 {
		p.t.Errorf("the configuration is removed on the page, the server still has %d", len(n))
	}
}

// notifyConfigs is the bucket's queue configurations, from the S3 API.
func notifyConfigs(t *testing.T, c *s3.Client, bucket string) []types.QueueConfiguration {
	t.Helper()
	out, err := c.GetBucketNotificationConfiguration(context.Background(),
		&s3.GetBucketNotificationConfigurationInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("GetBucketNotificationConfiguration %s: %v", bucket, err)
	}
	return out.QueueConfigurations
}
