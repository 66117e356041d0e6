package notify

import (
	"context"
	"encoding/json"
	"path/filepath"

	"github.com/jogstore/jog/internal/durq"
)

// QueueDir is the directory of the notification queues in a data dir: a
// subdirectory per gateway (ADR 0024).
const QueueDir = "notify"

// Durable is the Queue of a gateway: a durq.Queue under
// <data-dir>/notify whose records are the deliveries' events as JSON (one
// line each: encoding/json escapes newlines), each sent to its target as
// a Message, {"Records":[event]}. The durq.Queue's methods (Start, Stats,
// Close) are Durable's, but for Enqueue, which takes deliveries.
type Durable struct {
	*durq.Queue
}

var _ Queue = (*Durable)(nil)

// OpenDurable opens gateway's notification queue in dataDir, sending to
// opts.Targets (senders of Messages, by ARN), and adopts the queues of
// ended gateways. Start starts the delivery.
func OpenDurable(dataDir, gateway string, opts durq.Options) (*Durable, error) {
	opts.Name, opts.LimitFlag = "notification queue", "--notify-queue-max"
	targets := opts.Targets
	opts.Targets = make(map[string]durq.Sender, len(targets))
	for arn, s := range targets {
		opts.Targets[arn] = messageSender{s}
	}
	q, err := durq.Open(filepath.Join(dataDir, QueueDir), gateway, opts)
	if err != nil {
		return nil, err
	}
	if err := q.Adopt(); err != nil && opts.Log != nil {
		opts.Log.Warn("notification queue: adopting ended gateways' queues", "err", err)
	}
	return &Durable{q}, nil
}

// Enqueue stores ds durably (Queue).
func (d *Durable) Enqueue(ctx context.Context, ds []Delivery) error {
	rs := make([]durq.Record, len(ds))
	for i, dl := range ds {
		ev, err := json.Marshal(dl.Event)
		if err != nil {
			return err
		}
		rs[i] = durq.Record{Target: dl.Target, Data: ev}
	}
	return d.Queue.Enqueue(ctx, rs)
}

// messageSender sends an event as a Message.
type messageSender struct{ durq.Sender }

func (s messageSender) Send(ctx context.Context, event []byte) error {
	body := make([]byte, 0, len(event)+14)
	body = append(append(append(body, `{"Records":[`...), event...), `]}`...)
	return s.Sender.Send(ctx, body)
}
