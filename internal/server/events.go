package server

import (
	"github.com/jogstore/jog/internal/durq"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/notify/target"
)

// events is bucket event notifications' part of the server: the durable
// queue of deliveries (notify.Durable, on internal/durq) to its targets
// (internal/notify/target). Without a configured target there is no
// queue: the feature costs nothing.
type events struct {
	queue *notify.Durable // nil without targets
	arns  []string        // the targets' ARNs, in flag order
}

// openEvents builds the queue of the configured targets on this gateway
// (adopting the queues of ended gateways) and pushes the targets' Close
// and the queue's, which stops its delivery (nothing queued is lost: the
// next start delivers it); nil without targets. start starts the
// delivery.
func (s *Server) openEvents() (*notify.Durable, error) {
	specs, err := s.cfg.NotifyTargets()
	if err != nil || len(specs) == 0 {
		return nil, err
	}
	senders := map[string]durq.Sender{}
	for _, spec := range specs {
		arn := spec.ARN(s.cfg.Region)
		snd, err := target.Open(spec, s.log)
		if err != nil {
			return nil, err
		}
		s.stops.push(snd.Close)
		senders[arn] = snd
		s.events.arns = append(s.events.arns, arn)
	}
	q, err := notify.OpenDurable(s.cfg.DataDir, s.stores.Gateway, durq.Options{Targets: senders,
		MaxBytes: int64(s.cfg.Notify.QueueMax), NoSync: s.cfg.Fsync.Off(), Log: s.log})
	if err != nil {
		return nil, err
	}
	s.stops.push(q.Close)
	s.events.queue = q
	s.log.Info("event notifications", "targets", s.events.arns)
	return q, nil
}

// NotifyTargets are the ARNs of the configured notification targets.
func (s *Server) NotifyTargets() []string { return s.events.arns }
