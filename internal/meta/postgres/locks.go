package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// Object lock as in the SQLite store: object_locks holds the retention
// and legal hold of versions in buckets created with object lock
// (buckets.object_lock). Every removal of a version — DeleteObject, and a
// write replacing a version of the same ID — calls guardVersion in its
// transaction, under the key's lock, first; a bucket without object lock
// skips it without a query.

// readLock returns the lock row of a version (zero when it has none).
func readLock(ctx context.Context, q querier, bucketID int64, key, versionID string) (meta.ObjectLock, error) {
	var l meta.ObjectLock
	var until int64
	err := q.QueryRow(ctx, "SELECT mode, retain_until, legal_hold, legal_hold_set FROM object_locks WHERE bucket_id = $1 AND key = $2 AND version_id = $3",
		bucketID, key, versionID).Scan(&l.Mode, &until, &l.LegalHold, &l.HoldSet)
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.ObjectLock{}, nil
	}
	if err != nil {
		return l, err
	}
	if l.Mode != "" {
		l.RetainUntil = fromMillis(until)
	}
	l.HoldSet = l.HoldSet || l.LegalHold
	return l, nil
}

// writeLock stores (or, when l is zero, drops) a version's lock row.
func writeLock(ctx context.Context, tx pgx.Tx, bucketID int64, key, versionID string, l meta.ObjectLock) error {
	if l.IsZero() {
		_, err := tx.Exec(ctx, "DELETE FROM object_locks WHERE bucket_id = $1 AND key = $2 AND version_id = $3", bucketID, key, versionID)
		return err
	}
	var until int64
	if l.Mode != "" {
		until = millis(l.RetainUntil)
	}
	_, err := tx.Exec(ctx, `INSERT INTO object_locks (bucket_id, key, version_id, mode, retain_until, legal_hold, legal_hold_set)
		VALUES ($1, $2, $3, $4, $5, $6, $7)
		ON CONFLICT (bucket_id, key, version_id) DO UPDATE SET mode = EXCLUDED.mode, retain_until = EXCLUDED.retain_until,
			legal_hold = EXCLUDED.legal_hold, legal_hold_set = EXCLUDED.legal_hold_set`,
		bucketID, key, versionID, l.Mode, until, l.LegalHold, l.HoldSet || l.LegalHold)
	return err
}

// guardVersion is the lock check of every removal of a version: on a
// bucket with object lock it fails with meta.ErrObjectLocked when the
// version's lock protects it, and otherwise drops its lock row (the
// version is about to go).
func guardVersion(ctx context.Context, tx pgx.Tx, b bucketRef, key, versionID string, bypassGovernance bool) error {
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

// lockTarget resolves the version a call names: the latest (versionID
// "") or the given one, which must exist and not be a delete marker.
func lockTarget(ctx context.Context, q querier, b bucketRef, key, versionID string) (string, error) {
	o, err := readVersion(ctx, q, bucketByID, b.id, key, versionID)
	return o.VersionID, err
}

// GetObjectLock implements meta.Store, its reads in one read-only
// snapshot.
func (s *Store) GetObjectLock(ctx context.Context, bucket, key, versionID string) (meta.ObjectLock, string, error) {
	var l meta.ObjectLock
	var vid string
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var b bucketRef
		err := tx.QueryRow(ctx, "SELECT id, object_lock FROM buckets WHERE name = $1", bucket).Scan(&b.id, &b.locked)
		if errors.Is(err, pgx.ErrNoRows) {
			return meta.ErrBucketNotFound
		}
		if err != nil {
			return err
		}
		if vid, err = lockTarget(ctx, tx, b, key, versionID); err != nil || !b.locked {
			return err
		}
		l, err = readLock(ctx, tx, b.id, key, vid)
		return err
	})
	if err != nil {
		return meta.ObjectLock{}, "", s.pool.check(err)
	}
	return l, vid, nil
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
// transaction, under the key's lock. A bucket without object lock is
// meta.ErrNoObjectLock.
func (s *Store) updateLock(ctx context.Context, bucket, key, versionID string, change func(meta.ObjectLock) (meta.ObjectLock, error)) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		b, err := s.lockForWrite(ctx, tx, bucket, key)
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
