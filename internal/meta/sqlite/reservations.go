package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

const reservationCols = `r.id, b.name, r.read_bps, r.write_bps, r.rps, r.start_at, r.end_at, r.owner, r.principal, r.created_at`

// CreateReservation implements meta.Store. The count, the overlap query
// and the insert run in one write transaction: the single writer
// serialises admissions.
func (s *Store) CreateReservation(ctx context.Context, r meta.Reservation, c meta.Capacity) error {
	return s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, r.Bucket)
		if err != nil {
			return err
		}
		var live int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM reservations WHERE bucket_id = ? AND end_at > ?`,
			id, r.CreatedAt.Unix()).Scan(&live); err != nil {
			return err
		}
		if err := meta.AdmitCount(r, live); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+reservationCols+` FROM reservations r JOIN buckets b ON b.id = r.bucket_id
			WHERE r.end_at > ? AND r.start_at < ?`, r.Start.Unix(), r.End.Unix())
		if err != nil {
			return err
		}
		overlapping, err := scanReservations(rows)
		if err != nil {
			return err
		}
		if err := meta.Admit(overlapping, r, c); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO reservations (id, bucket_id, read_bps, write_bps, rps, start_at, end_at, owner, principal, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, id, r.ReadBPS, r.WriteBPS, r.RequestsPerSecond,
			r.Start.Unix(), r.End.Unix(), r.Owner, r.Principal, r.CreatedAt.Unix())
		return err
	})
}

// GetReservation implements meta.Store.
func (s *Store) GetReservation(ctx context.Context, id string) (meta.Reservation, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT `+reservationCols+` FROM reservations r JOIN buckets b ON b.id = r.bucket_id WHERE r.id = ?`, id)
	if err != nil {
		return meta.Reservation{}, err
	}
	rs, err := scanReservations(rows)
	if err != nil {
		return meta.Reservation{}, err
	}
	if len(rs) == 0 {
		return meta.Reservation{}, meta.ErrNoSuchReservation
	}
	return rs[0], nil
}

// ListReservations implements meta.Store.
func (s *Store) ListReservations(ctx context.Context, bucket string) ([]meta.Reservation, error) {
	id, err := bucketID(ctx, s.rd, bucket)
	if err != nil {
		return nil, err
	}
	rows, err := s.rd.QueryContext(ctx, `SELECT `+reservationCols+` FROM reservations r JOIN buckets b ON b.id = r.bucket_id
		WHERE r.bucket_id = ? ORDER BY r.start_at, r.id`, id)
	if err != nil {
		return nil, err
	}
	return scanReservations(rows)
}

// ReservationsBetween implements meta.Store.
func (s *Store) ReservationsBetween(ctx context.Context, from, to time.Time) ([]meta.Reservation, error) {
	rows, err := s.rd.QueryContext(ctx, `SELECT `+reservationCols+` FROM reservations r JOIN buckets b ON b.id = r.bucket_id
		WHERE r.end_at > ? AND r.start_at < ? ORDER BY r.start_at, r.id`, from.Unix(), to.Unix())
	if err != nil {
		return nil, err
	}
	return scanReservations(rows)
}

// DeleteReservation implements meta.Store.
func (s *Store) DeleteReservation(ctx context.Context, bucket, id string) error {
	return s.write(ctx, func(tx querier) error {
		bid, err := bucketID(ctx, tx, bucket)
		if err != nil {
			return err
		}
		return execOne(ctx, tx, meta.ErrNoSuchReservation, "DELETE FROM reservations WHERE bucket_id = ? AND id = ?", bid, id)
	})
}

// execOne runs a statement that must change a row: notFound when it
// changed none.
func execOne(ctx context.Context, tx querier, notFound error, q string, args ...any) error {
	res, err := tx.ExecContext(ctx, q, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil {
		return err
	} else if n == 0 {
		return notFound
	}
	return nil
}

func scanReservations(rows *sql.Rows) ([]meta.Reservation, error) {
	defer rows.Close()
	var out []meta.Reservation
	for rows.Next() {
		var r meta.Reservation
		var start, end, created int64
		if err := rows.Scan(&r.ID, &r.Bucket, &r.ReadBPS, &r.WriteBPS, &r.RequestsPerSecond,
			&start, &end, &r.Owner, &r.Principal, &created); err != nil {
			return nil, err
		}
		r.Start, r.End, r.CreatedAt = time.Unix(start, 0).UTC(), time.Unix(end, 0).UTC(), time.Unix(created, 0).UTC()
		out = append(out, r)
	}
	if err := rows.Err(); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, err
	}
	return out, nil
}
