package server

import (
	"context"
	"log/slog"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/qos/sched"
)

// qos builds throughput reservations (docs/QOS.md): the data path's
// scheduler paced at the server's capacity, the reservation service
// (which admits up to qos.Reservable of it: the rest is best effort's
// guaranteed share), and the activator that registers reservations in the
// scheduler from their start to their end, synced here and run by start
// until Close. With a
// request capacity (--qos-request-capacity) the scheduler has a request
// direction and request rates are admitted and enforced; without one,
// request-rate reservations are refused.
func (s *Server) qos(ctx context.Context, store meta.Store) (*qos.Reservations, *sched.Scheduler, *qos.Activator, error) {
	capacity, err := qosCapacity(s.cfg, s.log)
	if err != nil {
		return nil, nil, nil, err
	}
	if capacity != (meta.Capacity{}) {
		s.log.Info("reservations scheduled", "read_capacity", capacity.Read, "write_capacity", capacity.Write,
			"request_capacity", capacity.Requests, "reservable", qos.Reservable(capacity))
	}
	scheduler := sched.New(sched.Config{}, sched.Capacities{Read: float64(capacity.Read), Write: float64(capacity.Write),
		Requests: float64(capacity.Requests)})
	reservations := qos.New(store, capacity, nil)
	activator := qos.NewActivator(store, scheduler, nil, s.log)
	reservations.OnChange(activator.Changed)
	reservations.BoundHint(activator.AnyBound)
	if _, err := activator.Sync(ctx); err != nil { // active before the first request
		return nil, nil, nil, err
	}
	return reservations, scheduler, activator, nil
}

// qosCapacity is what the server can carry per direction: the
// --qos-*-capacity flags, and for a byte direction they leave at 0 what
// `jog calibrate` saved in the data dir (it does not measure requests).
func qosCapacity(cfg config.Config, log *slog.Logger) (meta.Capacity, error) {
	c := meta.Capacity{Read: int64(cfg.QoSReadCapacity), Write: int64(cfg.QoSWriteCapacity), Requests: int64(cfg.QoSRequestCapacity)}
	if c.Read > 0 && c.Write > 0 {
		return c, nil
	}
	cal, ok, err := qos.LoadCalibration(cfg.DataDir)
	if err != nil || !ok {
		return c, err
	}
	if c.Read == 0 {
		c.Read = cal.ReadBytesPerSecond
	}
	if c.Write == 0 {
		c.Write = cal.WriteBytesPerSecond
	}
	log.Info("reservation capacity from jog calibrate", "read", c.Read, "write", c.Write, "measured", cal.Measured)
	return c, nil
}
