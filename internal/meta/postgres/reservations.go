package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.ReservationStore = (*Store)(nil)

// admissionLock is the transaction-scoped advisory lock under which
// CreateReservation admits: capacity is server-wide (every bucket's
// reservations share it), so admissions are serial across gateways, each
// reading what the one before it committed. Its key is a single bigint,
// a space apart from lockKey's pairs of integers.
const admissionLock = 0x6a6f6772 // "jogr"

const reservationColumns = `r.id, b.name, r.read_bps, r.write_bps, r.rps, r.start_at, r.end_at, r.owner, r.principal, r.created_at
	FROM reservations r JOIN buckets b ON b.id = r.bucket_id`

// CreateReservation implements meta.Store. In one transaction it takes the
// bucket's row (FOR KEY SHARE, lock order 1: DeleteBucket waits for it),
// then the admission lock, counts the bucket's reservations that have not
// ended and reads those overlapping r's window, and inserts r if it fits:
// two gateways admitting at once are serial, and together never exceed c
// nor meta.MaxReservationsPerBucket.
func (s *Store) CreateReservation(ctx context.Context, r meta.Reservation, c meta.Capacity) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		bid, err := lockBucket(ctx, tx, r.Bucket, false)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(admissionLock)); err != nil {
			return err
		}
		var live int
		if err := tx.QueryRow(ctx, "SELECT COUNT(*) FROM reservations WHERE bucket_id = $1 AND end_at > $2",
			bid, r.CreatedAt.Unix()).Scan(&live); err != nil {
			return err
		}
		if err := meta.AdmitCount(r, live); err != nil {
			return err
		}
		overlapping, err := reservations(ctx, tx, " WHERE r.end_at > $1 AND r.start_at < $2", r.Start.Unix(), r.End.Unix())
		if err != nil {
			return err
		}
		if err := meta.Admit(overlapping, r, c); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO reservations (id, bucket_id, read_bps, write_bps, rps, start_at, end_at, owner, principal, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, r.ID, bid, r.ReadBPS, r.WriteBPS, r.RequestsPerSecond,
			r.Start.Unix(), r.End.Unix(), r.Owner, r.Principal, r.CreatedAt.Unix())
		return err
	})
}

// GetReservation implements meta.Store.
func (s *Store) GetReservation(ctx context.Context, id string) (meta.Reservation, error) {
	r, err := scanReservation(s.pool.QueryRow(ctx, "SELECT "+reservationColumns+" WHERE r.id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.Reservation{}, meta.ErrNoSuchReservation
	}
	return r, err
}

// ListReservations implements meta.Store.
func (s *Store) ListReservations(ctx context.Context, bucket string) ([]meta.Reservation, error) {
	id, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return nil, err
	}
	return reservations(ctx, s.pool, " WHERE r.bucket_id = $1 ORDER BY r.start_at, r.id", id)
}

// ReservationsBetween implements meta.Store.
func (s *Store) ReservationsBetween(ctx context.Context, from, to time.Time) ([]meta.Reservation, error) {
	return reservations(ctx, s.pool, " WHERE r.end_at > $1 AND r.start_at < $2 ORDER BY r.start_at, r.id", from.Unix(), to.Unix())
}

// DeleteReservation implements meta.Store.
func (s *Store) DeleteReservation(ctx context.Context, bucket, id string) error {
	bid, err := bucketID(ctx, s.pool, bucket)
	if err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, "DELETE FROM reservations WHERE bucket_id = $1 AND id = $2", bid, id)
	return changed(tag, err, meta.ErrNoSuchReservation)
}

// reservations returns the reservations where (a WHERE clause, with an
// ORDER BY if it matters) selects, with args.
func reservations(ctx context.Context, q querier, where string, args ...any) ([]meta.Reservation, error) {
	rows, err := q.Query(ctx, "SELECT "+reservationColumns+where, args...)
	return collect(rows, err, scanReservation)
}

func scanReservation(row pgx.Row) (meta.Reservation, error) {
	var r meta.Reservation
	var start, end, created int64
	err := row.Scan(&r.ID, &r.Bucket, &r.ReadBPS, &r.WriteBPS, &r.RequestsPerSecond,
		&start, &end, &r.Owner, &r.Principal, &created)
	r.Start, r.End, r.CreatedAt = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC(), time.Unix(created, 0).UTC()
	return r, err
}
