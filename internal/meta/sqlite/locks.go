package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Object lock (migration 0008): object_locks holds the retention and legal
// hold of versions in buckets created with object lock (buckets.object_lock).
// Every removal of a version — DeleteObject, and a write replacing a
// version of the same ID — calls guardVersion in its transaction first; a
// bucket without object lock skips it without a query.

// readLock returns the lock row of a version (zero when it has none).
func readLock(ctx context.Context, q querier, bucketID int64, key, versionID string) (meta.ObjectLock, error) {
	var l meta.ObjectLock
	var until int64
	err := q.QueryRowContext(ctx, "SELECT mode, retain_until, legal_hold, legal_hold_set FROM object_locks WHERE bucket_id = ? AND key = ? AND version_id = ?",
		bucketID, key, versionID).Scan(&l.Mode, &until, &l.LegalHold, &l.HoldSet)
	if errors.Is(err, sql.ErrNoRows) {
		return meta.ObjectLock{}, nil
	}
	if err != nil {
		return l, err
	}
	if l.Mode != "" {
		l.RetainUntil = time.UnixMilli(until).UTC()
	}
	l.HoldSet = l.HoldSet || l.LegalHold
	return l, nil
}

// writeLock stores (or, when l is zero, drops) a version's lock row.
func writeLock(ctx context.Context, tx querier, bucketID int64, key, versionID string, l meta.ObjectLock) error {
	if l.IsZero() {
		_, err := tx.ExecContext(ctx, "DELETE FROM object_locks WHERE bucket_id = ? AND key = ? AND version_id = ?", bucketID, key, versionID)
		return err
	}
	var until int64
	if l.Mode != "" {
		until = l.RetainUntil.UnixMilli()
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO object_locks (bucket_id, key, version_id, mode, retain_until, legal_hold, legal_hold_set)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (bucket_id, key, version_id) DO UPDATE SET mode = excluded.mode, retain_until = excluded.retain_until,
			legal_hold = excluded.legal_hold, legal_hold_set = excluded.legal_hold_set`,
		bucketID, key, versionID, l.Mode, until, l.LegalHold, l.HoldSet || l.LegalHold)
	return err
}

// guardVersion is the lock check of every removal of a version: on a
// bucket with object lock it fails with meta.ErrObjectLocked when the
// version's lock protects it, and otherwise drops its lock row (the
// version is about to go).
func guardVersion(ctx context.Context, tx querier, b bucketRef, key, versionID string, bypassGovernance bool) error {
	if !b.locked {
		return nil
	}
	l, err := readLock(ctx, tx, b.id, key, versionID)
	if err != nil {
		return err
	}
	if l.Protects(time.Now(), bypassGovernance) {
		return meta.ErrObjectLocked
	}
	if l.IsZero() {
		return nil
	}
	return writeLock(ctx, tx, b.id, key, versionID, meta.ObjectLock{})
}

// lockTarget resolves the version a lock call names inside tx: the latest
// (versionID "") or the given one, which must exist and not be a delete
// marker.
func lockTarget(ctx context.Context, q querier, b bucketRef, key, versionID string) (string, error) {
	if versionID == "" {
		cur, err := latest(ctx, q, b.id, key)
		if err != nil {
			return "", err
		}
		if cur.exists {
			return cur.versionID, nil
		}
		if !b.versions {
			return "", meta.ErrObjectNotFound
		}
		_, err = getVersion(ctx, q, b.id, key, "")
		return "", err
	}
	var one int
	err := q.QueryRowContext(ctx, "SELECT 1 FROM objects WHERE bucket_id = ? AND key = ? AND version_id = ?", b.id, key, versionID).Scan(&one)
	if err == nil {
		return versionID, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", err
	}
	if !b.versions {
		return "", meta.ErrObjectNotFound
	}
	if _, err := getVersion(ctx, q, b.id, key, versionID); err != nil {
		return "", err
	}
	return versionID, nil
}

// GetObjectLock implements meta.Store.
func (s *Store) GetObjectLock(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, string, error) {
	b, err := bucketRow(ctx, s.rd, bucket)
	if err != nil {
		return meta.ObjectLock{}, "", err
	}
	vid, err := lockTarget(ctx, s.rd, b, key, versionID)
	if err != nil || !b.locked {
		return meta.ObjectLock{}, vid, err
	}
	l, err := readLock(ctx, s.rd, b.id, key, vid)
	return l, vid, err
}

// PutObjectRetention implements meta.Store.
func (s *Store) PutObjectRetention(ctx context.Context, bucket, key, versionID string, next meta.ObjectLock, bypassGovernance bool) error {
	return s.updateLock(ctx, bucket, key, versionID, func(l meta.ObjectLock) (meta.ObjectLock, error) {
		return l.WithRetention(next, time.Now(), bypassGovernance)
	})
}

// PutObjectLegalHold implements meta.Store.
func (s *Store) PutObjectLegalHold(ctx context.Context, bucket, key, versionID string, on bool) error {
	return s.updateLock(ctx, bucket, key, versionID, func(l meta.ObjectLock) (meta.ObjectLock, error) {
		return l.WithLegalHold(on), nil
	})
}

// updateLock reads, changes and writes a version's lock in one
// transaction. A bucket without object lock is meta.ErrNoObjectLock.
func (s *Store) updateLock(ctx context.Context, bucket, key, versionID string, change func(meta.ObjectLock) (meta.ObjectLock, error)) error {
	return s.write(ctx, func(tx querier) error {
		b, err := bucketRow(ctx, tx, bucket)
		if err != nil {
			return err
		}
		if !b.locked {
			return meta.ErrNoObjectLock
		}
		vid, err := lockTarget(ctx, tx, b, key, versionID)
		if err != nil {
			return err
		}
		l, err := readLock(ctx, tx, b.id, key, vid)
		if err != nil {
			return err
		}
		if l, err = change(l); err != nil {
			return err
		}
		return writeLock(ctx, tx, b.id, key, vid, l)
	})
}
