package console

import (
	"context"
	"time"
)

// RevocationPoll is how often SyncRevocations reads the sign-outs of
// other gateways from the store when no notification has come first:
// the bound IAM's cache keeps too (iam.Options.PollInterval).
const RevocationPoll = time.Second

// SyncRevocations keeps the set of signed-out sessions this gateway
// refuses fresh from Config.Revoker, where every gateway sharing the
// store records its sign-outs: at once (the store's records restore the
// set after a restart), then on each kick of changed (the server relays
// meta.ChangedSessions and meta.ChangedAll there: PostgreSQL's NOTIFY)
// and every RevocationPoll, so a sign-out on another gateway is refused
// here within about a second even while notifications are lost. Each
// request still checks the set in memory only. It returns when ctx ends;
// without a Revoker it returns at once.
func (h *Handler) SyncRevocations(ctx context.Context, changed <-chan struct{}) {
	if h.cfg.Revoker == nil {
		return
	}
	t := time.NewTicker(RevocationPoll)
	defer t.Stop()
	var cursor int64
	failing := false
	for {
		revoked, next, err := h.cfg.Revoker.RevokedSessions(ctx, cursor)
		switch {
		case err != nil && ctx.Err() != nil:
			return
		case err != nil:
			if !failing {
				h.log.Warn("console: cannot read other gateways' sign-outs; retrying", "err", err)
			}
			failing = true
		default:
			if failing {
				h.log.Info("console: reading other gateways' sign-outs again")
			}
			failing = false
			now := h.cfg.Now()
			for _, r := range revoked {
				h.revoked.add(r.ID, r.Expires, now)
			}
			cursor = next
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-changed:
		}
	}
}

// recordSignOut records s's sign-out in the store (before the sign-out
// is answered, so that it is final on every gateway) and in this
// gateway's set.
func (h *Handler) recordSignOut(ctx context.Context, s *Session) error {
	if h.cfg.Revoker != nil {
		if err := h.cfg.Revoker.RevokeSession(ctx, s.AccessKeyID, s.Expires); err != nil {
			return err
		}
	}
	h.revoked.add(s.AccessKeyID, s.Expires, h.cfg.Now())
	return nil
}
