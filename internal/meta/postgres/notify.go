package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/outage"
)

var _ meta.Changes = (*Store)(nil) // servers find it by type assertion

// The schema's triggers (migration 0001, at its end) announce on
// notifyChannel what gateways cache; a listener's connection is named
// listenerName in pg_stat_activity.
const (
	notifyChannel = "jog_changes"
	listenerName  = "jog-listener"
)

// The listener's timing: after a failure it waits minBackoff, doubling up
// to maxBackoff, before connecting again; after idleCheck without a
// notification it pings the server, giving it pingTimeout to answer, so
// that a connection lost without a word (a half-open TCP connection) is
// found and replaced.
const (
	minBackoff  = 100 * time.Millisecond
	maxBackoff  = 5 * time.Second
	idleCheck   = 30 * time.Second
	pingTimeout = 5 * time.Second
)

// Changes implements meta.Changes. A connection of its own, outside the
// pool (named listenerName), LISTENs on notifyChannel; lost, it is
// replaced after a back-off, and each time it listens again a
// meta.ChangedAll goes out first. Closing the Store does not stop it: end
// ctx first, and wait for the channel to close.
func (s *Store) Changes(ctx context.Context) <-chan meta.Change {
	out := make(chan meta.Change, 64)
	go s.listen(ctx, out)
	return out
}

// listen keeps a listener connected until ctx ends, then closes out.
func (s *Store) listen(ctx context.Context, out chan<- meta.Change) {
	defer close(out)
	backoff := minBackoff
	for {
		err := s.listenOnce(ctx, out, func() { backoff = minBackoff; s.pool.outage.OK() })
		if ctx.Err() != nil {
			return
		}
		if unreachable(err) { // the server is down: the outage's log says so, not a line per retry
			s.pool.outage.Failed(err)
		} else {
			s.log.Warn("postgres: not listening for other gateways' changes: caches rely on their time bounds until it listens again",
				"err", outage.OneLine(err), "retry_in", backoff)
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}

// listenOnce connects, listens, calls listening and sends ChangedAll, then
// forwards notifications until the connection fails or ctx ends.
func (s *Store) listenOnce(ctx context.Context, out chan<- meta.Change, listening func()) error {
	cfg := s.pool.Config().ConnConfig.Copy()
	cfg.RuntimeParams["application_name"] = listenerName
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
		defer cancel()
		conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return err
	}
	listening()
	s.log.Debug("postgres: listening for other gateways' changes")
	if !send(ctx, out, meta.Change{Kind: meta.ChangedAll}) {
		return ctx.Err()
	}
	for {
		wctx, cancel := context.WithTimeout(ctx, idleCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			if !send(ctx, out, parseChange(n.Payload)) {
				return ctx.Err()
			}
		case ctx.Err() != nil:
			return ctx.Err()
		case wctx.Err() != nil: // idle: is the server still there?
			pctx, cancel := context.WithTimeout(ctx, pingTimeout)
			err = conn.Ping(pctx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// send hands c to out unless ctx ends first.
func send(ctx context.Context, out chan<- meta.Change, c meta.Change) bool {
	select {
	case out <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

// parseChange reads a trigger's payload; one it does not know says that
// anything may have changed.
func parseChange(payload string) meta.Change {
	switch {
	case strings.HasPrefix(payload, "b:"):
		return meta.Change{Kind: meta.ChangedBucket, Bucket: payload[len("b:"):]}
	case payload == "iam":
		return meta.Change{Kind: meta.ChangedIAM}
	case payload == "r":
		return meta.Change{Kind: meta.ChangedReservations}
	case payload == "s":
		return meta.Change{Kind: meta.ChangedSessions}
	}
	return meta.Change{Kind: meta.ChangedAll}
}
