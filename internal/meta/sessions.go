package meta

import (
	"context"
	"time"
)

// SessionRevoker is an optional capability of a Store: it keeps the
// console's signed-out sessions (internal/console), so that a sign-out on
// one gateway is final on every gateway sharing the store. Sessions are
// stateless (sealed cookies, ADR 0023): a revocation is the only thing
// stored about one, and only until the session would have ended anyway.
// Both stores implement it; servers find it with a type assertion.
type SessionRevoker interface {
	// RevokeSession records, durably before it returns, that session id
	// is revoked until expires. Revoking an id twice keeps the first
	// record. Records whose session has ended are pruned meanwhile.
	RevokeSession(ctx context.Context, id string, expires time.Time) error
	// RevokedSessions returns the revocations recorded since cursor (0:
	// all) whose session has not ended, and the cursor to pass next time.
	// It may return a revocation again (a reader keeps a set); it misses
	// none committed after the call that returned cursor, even when
	// several processes revoke at once (as long as a revocation commits
	// within RevocationOverlap of its time being taken).
	RevokedSessions(ctx context.Context, cursor int64) ([]RevokedSession, int64, error)
}

// RevokedSession is one revocation: the session's ID (the console's
// temporary access key ID) and when the session ends.
type RevokedSession struct {
	ID      string
	Expires time.Time
}

// RevocationOverlap is how far back from its cursor a store reads
// revocations again: one recorded (its time taken) before a later one but
// committed after it is still read, if it committed within this time.
const RevocationOverlap = time.Minute

// RevocationsFrom is the revocation time (Unix seconds, the store's
// clock) from which a store reads for cursor: RevocationOverlap before
// it, so that a revocation whose time was taken before the newest one
// read but committed after it is read too.
func RevocationsFrom(cursor int64) int64 {
	return cursor - int64(RevocationOverlap/time.Second)
}

// RevocationRows is what both stores' query results offer
// (database/sql's and pgx's).
type RevocationRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// ScanRevocations reads rows of (id, expires_at, revoked_at), Unix
// seconds, and returns them with the cursor after them: the newest
// revocation time read, or cursor when none is newer.
func ScanRevocations(rows RevocationRows, cursor int64) ([]RevokedSession, int64, error) {
	var out []RevokedSession
	next := cursor
	for rows.Next() {
		var id string
		var expires, revoked int64
		if err := rows.Scan(&id, &expires, &revoked); err != nil {
			return nil, cursor, err
		}
		out = append(out, RevokedSession{ID: id, Expires: time.Unix(expires, 0).UTC()})
		next = max(next, revoked)
	}
	if err := rows.Err(); err != nil {
		return nil, cursor, err
	}
	return out, next, nil
}
