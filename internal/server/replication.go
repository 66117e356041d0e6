package server

import (
	"github.com/jogstore/jog/internal/bucketrepl/delivery"
	"github.com/jogstore/jog/internal/service"
)

// openReplication opens this gateway's bucket replication queue when a
// target is configured (nil without: the feature costs a nil check per
// write) and pushes its Close, which stops its delivery; what was not
// sent stays queued for the next start. start binds and starts it.
func (s *Server) openReplication(opts *service.Options) (*delivery.Queue, error) {
	if len(opts.ReplicationTargets) == 0 {
		return nil, nil
	}
	q, err := delivery.Open(s.cfg.DataDir, s.stores.Gateway, delivery.Options{Targets: opts.ReplicationTargets,
		MaxBytes: int64(s.cfg.Replication.QueueMax), NoSync: s.cfg.Fsync.Off(), Log: s.log})
	if err != nil {
		return nil, err
	}
	s.stops.push(q.Close)
	opts.Replication = q
	return q, nil
}
