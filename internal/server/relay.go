package server

import (
	"context"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/service"
)

// relay passes what other gateways sharing the metadata store change
// (meta.Changes: PostgreSQL's LISTEN/NOTIFY) to this gateway's caches, so
// that they drop what changed within the time a notification takes: the
// bucket configuration caches (service), IAM's authorization cache and
// the reservations' lookups and activator, and the console's signed-out
// sessions. A store that does not announce
// changes (SQLite: one process) needs none of it. While the store is not
// listening, the caches' time bounds apply (docs/SCALING.md). It runs
// until Close. (Not bucket event notifications: those are events.go's.)
func (s *Server) relay(ctx context.Context, svc *service.Service, users *iam.Service, reservations *qos.Reservations) {
	ch, ok := s.stores.Meta.(meta.Changes)
	if !ok {
		return
	}
	s.stops.run(ctx, func(ctx context.Context) {
		for c := range ch.Changes(ctx) { // closed once ctx ends and the listener is gone
			s.log.Debug("store changed", "kind", c.Kind, "bucket", c.Bucket)
			switch c.Kind {
			case meta.ChangedBucket:
				svc.StoreChanged(c)
			case meta.ChangedIAM:
				users.StoreChanged()
			case meta.ChangedReservations:
				reservations.StoreChanged()
			case meta.ChangedSessions:
				s.kickSessions()
			default: // meta.ChangedAll, or a kind this gateway does not know
				svc.StoreChanged(meta.Change{Kind: meta.ChangedAll})
				users.StoreChanged()
				reservations.StoreChanged()
				s.kickSessions()
			}
		}
	})
}

// kickSessions tells the console's revocation sync (console.go) to read
// the store's sign-outs now; one kick pending is enough.
func (s *Server) kickSessions() {
	select {
	case s.sessionsChanged <- struct{}{}:
	default:
	}
}
