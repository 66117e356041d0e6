package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// The IAM group of meta.Store: entities (users, groups, roles), access keys
// and group membership here; managed and inline policies and attachments
// in iam_policies.go. Every change bumps iam_state.generation in its
// transaction.

// fillIAM is migration 0011's step: it chooses the account ID.
func fillIAM(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, "INSERT INTO iam_state (id, account_id, generation) VALUES (1, ?, 1)", meta.NewAccountID())
	return err
}

// bump advances the IAM change counter inside a write transaction.
func bump(ctx context.Context, tx querier) error {
	_, err := tx.ExecContext(ctx, "UPDATE iam_state SET generation = generation + 1 WHERE id = 1")
	return err
}

// iamWrite runs fn in a write transaction and, when fn succeeds, bumps the
// change counter in the same transaction.
func (s *Store) iamWrite(ctx context.Context, fn func(tx querier) error) error {
	return s.write(ctx, func(tx querier) error {
		if err := fn(tx); err != nil {
			return err
		}
		return bump(ctx, tx)
	})
}

// IAMAccount implements meta.Store.
func (s *Store) IAMAccount(ctx context.Context) (string, error) {
	var id string
	err := s.rd.QueryRowContext(ctx, "SELECT account_id FROM iam_state WHERE id = 1").Scan(&id)
	return id, err
}

// IAMGeneration implements meta.Store.
func (s *Store) IAMGeneration(ctx context.Context) (int64, error) {
	var g int64
	err := s.rd.QueryRowContext(ctx, "SELECT generation FROM iam_state WHERE id = 1").Scan(&g)
	return g, err
}

// entityID resolves an entity's row ID.
func entityID(ctx context.Context, q querier, kind meta.EntityKind, name string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM iam_entities WHERE kind = ? AND name = ?", kind, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, meta.NoSuchEntity(kind, name)
	}
	return id, err
}

// exists reports whether query (with args) returns a row.
func exists(ctx context.Context, q querier, query string, args ...any) (bool, error) {
	var one int
	err := q.QueryRowContext(ctx, query, args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

const entityColumns = "e.kind, e.name, e.path, e.unique_id, e.arn, e.created_at, e.description, e.trust_policy, e.max_session, " +
	"COALESCE((SELECT b.arn FROM iam_policies b WHERE b.id = e.boundary_id), '')"

func scanEntity(sc interface{ Scan(...any) error }) (meta.IAMEntity, error) {
	var e meta.IAMEntity
	var created, maxSession int64
	err := sc.Scan(&e.Kind, &e.Name, &e.Path, &e.ID, &e.ARN, &created, &e.Description, &e.TrustPolicy, &maxSession, &e.Boundary)
	e.Created = time.UnixMilli(created).UTC()
	e.MaxSessionDuration = time.Duration(maxSession) * time.Second
	return e, err
}

// scanAll reads every row of a query with scan.
func scanAll[T any](rows *sql.Rows, err error, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func scanEntities(rows *sql.Rows, err error) ([]meta.IAMEntity, error) {
	return scanAll(rows, err, scanEntity)
}

// CreateEntity implements meta.Store.
func (s *Store) CreateEntity(ctx context.Context, e meta.IAMEntity) error {
	return s.iamWrite(ctx, func(tx querier) error {
		found, err := exists(ctx, tx, "SELECT 1 FROM iam_entities WHERE kind = ? AND name = ?", e.Kind, e.Name)
		if err != nil {
			return err
		}
		if found {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "%s with name %s already exists.", e.Kind.Title(), e.Name)
		}
		var boundary any // NULL: none
		if e.Boundary != "" {
			if boundary, err = policyID(ctx, tx, e.Boundary); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO iam_entities
			(kind, name, path, unique_id, arn, created_at, description, trust_policy, max_session, boundary_id)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			e.Kind, e.Name, e.Path, e.ID, e.ARN, e.Created.UnixMilli(), e.Description, e.TrustPolicy,
			int64(e.MaxSessionDuration/time.Second), boundary)
		return err
	})
}

// GetEntity implements meta.Store.
func (s *Store) GetEntity(ctx context.Context, kind meta.EntityKind, name string) (meta.IAMEntity, error) {
	e, err := scanEntity(s.rd.QueryRowContext(ctx,
		"SELECT "+entityColumns+" FROM iam_entities e WHERE e.kind = ? AND e.name = ?", kind, name))
	if errors.Is(err, sql.ErrNoRows) {
		return meta.IAMEntity{}, meta.NoSuchEntity(kind, name)
	}
	return e, err
}

// ListEntities implements meta.Store: one range scan of (kind, name).
func (s *Store) ListEntities(ctx context.Context, kind meta.EntityKind, opts meta.IAMListOptions) ([]meta.IAMEntity, error) {
	return scanEntities(s.rd.QueryContext(ctx, "SELECT "+entityColumns+` FROM iam_entities e
		WHERE e.kind = ?1 AND substr(e.path, 1, length(?2)) = ?2 AND e.name > ?3 ORDER BY e.name LIMIT ?4`,
		kind, opts.PathPrefix, opts.After, limit(opts.Limit)))
}

// limit is n as SQLite's LIMIT: 0 (no limit) is -1.
func limit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// DeleteEntity implements meta.Store.
func (s *Store) DeleteEntity(ctx context.Context, kind meta.EntityKind, name string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		id, err := entityID(ctx, tx, kind, name)
		if err != nil {
			return err
		}
		conflicts := []struct{ query, what string }{
			{"SELECT 1 FROM iam_access_keys WHERE user_id = ? LIMIT 1", "must delete access keys first"},
			{"SELECT 1 FROM iam_group_members WHERE user_id = ? LIMIT 1", "must remove user from all groups first"},
			{"SELECT 1 FROM iam_group_members WHERE group_id = ? LIMIT 1", "must remove users from group first"},
			{"SELECT 1 FROM iam_inline_policies WHERE entity_id = ? LIMIT 1", "must delete policies first"},
			{"SELECT 1 FROM iam_attachments WHERE entity_id = ? LIMIT 1", "must detach all policies first"},
		}
		for _, c := range conflicts {
			found, err := exists(ctx, tx, c.query, id)
			if err != nil {
				return err
			}
			if found {
				return meta.IAMErrorf(meta.ErrDeleteConflict, "Cannot delete entity, %s.", c.what)
			}
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM iam_entities WHERE id = ?", id)
		return err
	})
}

// CreateAccessKey implements meta.Store.
func (s *Store) CreateAccessKey(ctx context.Context, k meta.AccessKey) error {
	return s.iamWrite(ctx, func(tx querier) error {
		uid, err := entityID(ctx, tx, meta.EntityUser, k.User)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM iam_access_keys WHERE user_id = ?", uid).Scan(&n); err != nil {
			return err
		}
		if n >= meta.MaxAccessKeys {
			return meta.IAMErrorf(meta.ErrLimitExceeded, "Cannot exceed quota for AccessKeysPerUser: %d", meta.MaxAccessKeys)
		}
		found, err := exists(ctx, tx, "SELECT 1 FROM iam_access_keys WHERE id = ?", k.ID)
		if err != nil {
			return err
		}
		if found {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "Access key %s already exists.", k.ID)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO iam_access_keys (id, user_id, sealed, status, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)",
			k.ID, uid, k.Sealed, k.Status, k.Created.UnixMilli(), millis(k.LastUsed))
		return err
	})
}

// millis is t in Unix milliseconds, 0 for the zero time.
func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

const keyColumns = "k.id, e.name, k.sealed, k.status, k.created_at, k.last_used_at FROM iam_access_keys k JOIN iam_entities e ON e.id = k.user_id"

func scanKey(sc interface{ Scan(...any) error }) (meta.AccessKey, error) {
	var k meta.AccessKey
	var created, used int64
	err := sc.Scan(&k.ID, &k.User, &k.Sealed, &k.Status, &created, &used)
	k.Created = time.UnixMilli(created).UTC()
	if used != 0 {
		k.LastUsed = time.UnixMilli(used).UTC()
	}
	return k, err
}

// GetAccessKey implements meta.Store.
func (s *Store) GetAccessKey(ctx context.Context, id string) (meta.AccessKey, error) {
	k, err := scanKey(s.rd.QueryRowContext(ctx, "SELECT "+keyColumns+" WHERE k.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return meta.AccessKey{}, meta.NoSuchAccessKey(id)
	}
	return k, err
}

// ListAccessKeys implements meta.Store.
func (s *Store) ListAccessKeys(ctx context.Context, user string) ([]meta.AccessKey, error) {
	uid, err := entityID(ctx, s.rd, meta.EntityUser, user)
	if err != nil {
		return nil, err
	}
	rows, err := s.rd.QueryContext(ctx, "SELECT "+keyColumns+" WHERE k.user_id = ? ORDER BY k.created_at, k.id", uid)
	return scanAll(rows, err, scanKey)
}

// userKey runs fn on the row of user's key id, or fails as IAM does when
// the user or the key (of that user) does not exist.
func userKey(ctx context.Context, tx querier, user, id string) error {
	uid, err := entityID(ctx, tx, meta.EntityUser, user)
	if err != nil {
		return err
	}
	found, err := exists(ctx, tx, "SELECT 1 FROM iam_access_keys WHERE id = ? AND user_id = ?", id, uid)
	if err == nil && !found {
		err = meta.NoSuchAccessKey(id)
	}
	return err
}

// SetAccessKeyStatus implements meta.Store.
func (s *Store) SetAccessKeyStatus(ctx context.Context, user, id, status string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		if err := userKey(ctx, tx, user, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "UPDATE iam_access_keys SET status = ? WHERE id = ?", status, id)
		return err
	})
}

// SetAccessKeyLastUsed implements meta.Store; it does not bump the
// generation.
func (s *Store) SetAccessKeyLastUsed(ctx context.Context, id string, at time.Time) error {
	return s.write(ctx, func(tx querier) error {
		res, err := tx.ExecContext(ctx, "UPDATE iam_access_keys SET last_used_at = ? WHERE id = ?", millis(at), id)
		return affected(res, err, meta.NoSuchAccessKey(id))
	})
}

// DeleteAccessKey implements meta.Store.
func (s *Store) DeleteAccessKey(ctx context.Context, user, id string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		if err := userKey(ctx, tx, user, id); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "DELETE FROM iam_access_keys WHERE id = ?", id)
		return err
	})
}

// affected is err, or none when the statement changed no row.
func affected(res sql.Result, err, none error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err == nil && n == 0 {
		return none
	}
	return err
}

// groupAndUser resolves a group and a user.
func groupAndUser(ctx context.Context, q querier, group, user string) (gid, uid int64, err error) {
	if gid, err = entityID(ctx, q, meta.EntityGroup, group); err != nil {
		return 0, 0, err
	}
	uid, err = entityID(ctx, q, meta.EntityUser, user)
	return gid, uid, err
}

// AddGroupMember implements meta.Store.
func (s *Store) AddGroupMember(ctx context.Context, group, user string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		gid, uid, err := groupAndUser(ctx, tx, group, user)
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO iam_group_members (group_id, user_id) VALUES (?, ?) ON CONFLICT DO NOTHING", gid, uid)
		return err
	})
}

// RemoveGroupMember implements meta.Store.
func (s *Store) RemoveGroupMember(ctx context.Context, group, user string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		gid, uid, err := groupAndUser(ctx, tx, group, user)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM iam_group_members WHERE group_id = ? AND user_id = ?", gid, uid)
		return affected(res, err, meta.IAMErrorf(meta.ErrNoSuchEntity, "The user with name %s is not in group %s.", user, group))
	})
}

// GroupMembers implements meta.Store.
func (s *Store) GroupMembers(ctx context.Context, group string) ([]meta.IAMEntity, error) {
	return s.membership(ctx, meta.EntityGroup, group, "group_id", "user_id")
}

// UserGroups implements meta.Store.
func (s *Store) UserGroups(ctx context.Context, user string) ([]meta.IAMEntity, error) {
	return s.membership(ctx, meta.EntityUser, user, "user_id", "group_id")
}

// membership returns the entities on the other side (column other) of the
// memberships of the entity named name (in column own).
func (s *Store) membership(ctx context.Context, kind meta.EntityKind, name, own, other string) ([]meta.IAMEntity, error) {
	id, err := entityID(ctx, s.rd, kind, name)
	if err != nil {
		return nil, err
	}
	return scanEntities(s.rd.QueryContext(ctx, "SELECT "+entityColumns+` FROM iam_group_members m
		JOIN iam_entities e ON e.id = m.`+other+` WHERE m.`+own+` = ? ORDER BY e.name`, id))
}
