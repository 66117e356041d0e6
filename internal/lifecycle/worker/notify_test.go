package worker

import (
	"context"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/storage"
)

const hook = "arn:jog:sqs:us-east-1:hook:webhook"

type events struct {
	mu    sync.Mutex
	names []string
}

func (e *events) Enqueue(_ context.Context, ds []notify.Delivery) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, d := range ds {
		e.names = append(e.names, d.Event.EventName+" "+d.Event.S3.Object.Key+" "+d.Event.UserIdentity.PrincipalID)
	}
	return nil
}

func (e *events) Target(arn string) bool { return arn == hook }

// TestExpirationEvents: the worker's removals are LifecycleExpiration
// events, not ObjectRemoved ones.
func TestExpirationEvents(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir, cfg.Fsync = t.TempDir(), "never"
	st, err := storage.Open(context.Background(), cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	q := &events{}
	svc := service.NewWith(st.Meta, st.Blobs, quiet, service.Options{Notify: q})
	setup(t, svc, `<Rule><ID>old</ID><Filter><Prefix>old/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`, "old/1", "keep/1")
	c, err := notify.Parse([]byte(`<NotificationConfiguration><QueueConfiguration><Id>x</Id><Queue>`+hook+
		`</Queue><Event>s3:ObjectRemoved:*</Event><Event>s3:LifecycleExpiration:*</Event></QueueConfiguration></NotificationConfiguration>`), q.Target, false)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.PutBucketNotification(context.Background(), "bkt", c); err != nil {
		t.Fatal(err)
	}
	if _, err := New(svc, quiet, Options{Now: inThreeDays}).Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(q.names) != 1 || q.names[0] != "LifecycleExpiration:Delete old/1 jog-lifecycle" {
		t.Fatalf("events %q", q.names)
	}
}
