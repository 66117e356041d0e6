package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.SessionRevoker = (*Store)(nil) // the console finds it by type assertion

// dbNow is the database's clock in Unix seconds: revocations are stamped
// and pruned by one clock, whatever the gateways' clocks say.
const dbNow = `floor(extract(epoch FROM now()))::bigint`

// RevokeSession implements meta.SessionRevoker. It prunes the ended
// sessions' records in the same transaction; the insert's trigger
// announces 's' to every gateway (meta.ChangedSessions).
func (s *Store) RevokeSession(ctx context.Context, id string, expires time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM session_revocations WHERE expires_at <= `+dbNow); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO session_revocations (id, expires_at, revoked_at) VALUES ($1, $2, `+dbNow+`)
			ON CONFLICT (id) DO NOTHING`, id, expires.Unix())
		return err
	})
}

// RevokedSessions implements meta.SessionRevoker. The cursor is the
// newest revocation time read (the database's clock).
func (s *Store) RevokedSessions(ctx context.Context, cursor int64) ([]meta.RevokedSession, int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, expires_at, revoked_at FROM session_revocations
		WHERE revoked_at >= $1 AND expires_at > `+dbNow, meta.RevocationsFrom(cursor))
	if err != nil {
		return nil, cursor, err
	}
	defer rows.Close()
	return meta.ScanRevocations(rows, cursor)
}
