package sqlite

import (
	"context"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.SessionRevoker = (*Store)(nil) // the console finds it by type assertion

// RevokeSession implements meta.SessionRevoker, pruning the ended
// sessions' records in the same transaction.
func (s *Store) RevokeSession(ctx context.Context, id string, expires time.Time) error {
	now := time.Now().Unix()
	return s.write(ctx, func(tx querier) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM session_revocations WHERE expires_at <= ?`, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO session_revocations (id, expires_at, revoked_at) VALUES (?, ?, ?)
			ON CONFLICT (id) DO NOTHING`, id, expires.Unix(), now)
		return err
	})
}

// RevokedSessions implements meta.SessionRevoker. The cursor is the
// newest revocation time read.
func (s *Store) RevokedSessions(ctx context.Context, cursor int64) ([]meta.RevokedSession, int64, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT id, expires_at, revoked_at FROM session_revocations
		WHERE revoked_at >= ? AND expires_at > ?`, meta.RevocationsFrom(cursor), time.Now().Unix())
	if err != nil {
		return nil, cursor, err
	}
	defer rows.Close()
	return meta.ScanRevocations(rows, cursor)
}
