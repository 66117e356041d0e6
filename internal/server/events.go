package server

import (
	"errors"
	"io"

	"github.com/jogstore/jog/internal/notify/queue"
	"github.com/jogstore/jog/internal/notify/target"
)

// events is bucket event notifications' part of the server: the durable
// queue of deliveries (internal/notify/queue) and its targets' senders
// (internal/notify/target). Without a configured target there is no
// queue: the feature costs nothing.
type events struct {
	queue   *queue.Queue // nil without targets
	arns    []string     // the targets' ARNs, in flag order
	senders []io.Closer
}

// openEvents builds the queue of the configured targets on this gateway
// (adopting the queues of ended gateways), registers its metrics and
// starts the delivery; nil without targets.
func (s *Server) openEvents() (*queue.Queue, error) {
	specs, err := s.cfg.NotifyTargets()
	if err != nil || len(specs) == 0 {
		return nil, err
	}
	senders := map[string]queue.Sender{}
	for _, spec := range specs {
		arn := spec.ARN(s.cfg.Region)
		switch spec.Kind {
		case target.Webhook:
			w := target.NewWebhook(spec)
			senders[arn] = w
			s.events.senders = append(s.events.senders, w)
		case target.NATS:
			n, err := target.NewNATS(spec, s.log)
			if err != nil {
				_ = s.closeEvents()
				return nil, err
			}
			senders[arn] = n
			s.events.senders = append(s.events.senders, n)
		}
		s.events.arns = append(s.events.arns, arn)
	}
	q, err := queue.Open(s.cfg.DataDir, s.stores.Blobs.Gateway(), queue.Options{Targets: senders,
		MaxBytes: int64(s.cfg.Notify.QueueMax), NoSync: s.cfg.Fsync == "never", Log: s.log})
	if err != nil {
		_ = s.closeEvents()
		return nil, err
	}
	s.events.queue = q
	q.Start()
	s.log.Info("event notifications", "targets", s.events.arns)
	return q, nil
}

// NotifyTargets are the ARNs of the configured notification targets.
func (s *Server) NotifyTargets() []string { return s.events.arns }

// closeEvents stops the delivery, closes the queue (nothing queued is
// lost: the next start delivers it) and the targets' connections.
func (s *Server) closeEvents() error {
	var errs []error
	if s.events.queue != nil {
		errs = append(errs, s.events.queue.Close())
	}
	for _, c := range s.events.senders {
		errs = append(errs, c.Close())
	}
	s.events = events{arns: s.events.arns}
	return errors.Join(errs...)
}
