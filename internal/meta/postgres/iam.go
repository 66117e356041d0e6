package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/jogstore/jog/internal/meta"
)

// The IAM group of meta.Store: entities (users, groups, roles), access keys
// and group membership here; managed and inline policies and attachments
// in iam_policies.go.
//
// Every IAM change runs in iamWrite, whose first statement advances
// iam_state.generation: the row lock it takes serialises IAM changes
// across gateways (they are rare), so the checks a change makes (a name in
// use, a key quota, what blocks a delete) and the change itself are atomic,
// as under SQLite's single writer. A refused change rolls the counter back
// with everything else.
//
// Names are unique regardless of case (the schema's lower(name) indexes):
// lookups compare lower(name), listings order by it byte-wise (COLLATE
// "C", as SQLite's NOCASE), whatever the database's default collation.

var _ meta.IAMStore = (*Store)(nil)

// iamWrite runs fn in a transaction that first advances the IAM change
// counter, holding its row lock until the commit.
func (s *Store) iamWrite(ctx context.Context, fn func(tx pgx.Tx) error) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "UPDATE iam_state SET generation = generation + 1 WHERE id = 1"); err != nil {
			return err
		}
		return fn(tx)
	})
}

// IAMAccount implements meta.Store.
func (s *Store) IAMAccount(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, "SELECT account_id FROM iam_state WHERE id = 1").Scan(&id)
	return id, err
}

// IAMGeneration implements meta.Store.
func (s *Store) IAMGeneration(ctx context.Context) (int64, error) {
	var g int64
	err := s.pool.QueryRow(ctx, "SELECT generation FROM iam_state WHERE id = 1").Scan(&g)
	return g, err
}

// entityID resolves an entity's row ID.
func entityID(ctx context.Context, q querier, kind meta.EntityKind, name string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, "SELECT id FROM iam_entities WHERE kind = $1 AND lower(name) = lower($2)", int32(kind), name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, meta.NoSuchEntity(kind, name)
	}
	return id, err
}

// found reports whether query (with args) returns a row.
func found(ctx context.Context, q querier, query string, args ...any) (bool, error) {
	var ok bool
	err := q.QueryRow(ctx, "SELECT EXISTS ("+query+")", args...).Scan(&ok)
	return ok, err
}

// collect reads every row of a query with scan.
func collect[T any](rows pgx.Rows, err error, scan func(pgx.Row) (T, error)) ([]T, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
}

// changed is err, or none when the statement changed no row.
func changed(tag pgconn.CommandTag, err, none error) error {
	if err == nil && tag.RowsAffected() == 0 {
		return none
	}
	return err
}

// limitArg is n as a LIMIT parameter: NULL (no limit) for 0.
func limitArg(n int) any {
	if n <= 0 {
		return nil
	}
	return n
}

// byName orders IAM rows by name ignoring case, byte-wise.
const byName = ` ORDER BY lower(e.name) COLLATE "C"`

const entityColumns = "e.kind, e.name, e.path, e.unique_id, e.arn, e.created_at, e.description, e.trust_policy, e.max_session, " +
	"COALESCE((SELECT b.arn FROM iam_policies b WHERE b.id = e.boundary_id), '')"

func scanEntity(row pgx.Row) (meta.IAMEntity, error) {
	var e meta.IAMEntity
	var kind, maxSession int32
	var created int64
	err := row.Scan(&kind, &e.Name, &e.Path, &e.ID, &e.ARN, &created, &e.Description, &e.TrustPolicy, &maxSession, &e.Boundary)
	e.Kind = meta.EntityKind(kind)
	e.Created = fromMillis(created)
	e.MaxSessionDuration = time.Duration(maxSession) * time.Second
	return e, err
}

// CreateEntity implements meta.Store.
func (s *Store) CreateEntity(ctx context.Context, e meta.IAMEntity) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		taken, err := found(ctx, tx, "SELECT 1 FROM iam_entities WHERE kind = $1 AND lower(name) = lower($2)", int32(e.Kind), e.Name)
		if err != nil {
			return err
		}
		if taken {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "%s with name %s already exists.", e.Kind.Title(), e.Name)
		}
		var boundary *int64 // NULL: none
		if e.Boundary != "" {
			id, err := policyID(ctx, tx, e.Boundary)
			if err != nil {
				return err
			}
			boundary = &id
		}
		_, err = tx.Exec(ctx, `INSERT INTO iam_entities
			(kind, name, path, unique_id, arn, created_at, description, trust_policy, max_session, boundary_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
			int32(e.Kind), e.Name, e.Path, e.ID, e.ARN, millis(e.Created), e.Description, e.TrustPolicy,
			int32(e.MaxSessionDuration/time.Second), boundary)
		return err
	})
}

// GetEntity implements meta.Store.
func (s *Store) GetEntity(ctx context.Context, kind meta.EntityKind, name string) (meta.IAMEntity, error) {
	e, err := scanEntity(s.pool.QueryRow(ctx,
		"SELECT "+entityColumns+" FROM iam_entities e WHERE e.kind = $1 AND lower(e.name) = lower($2)", int32(kind), name))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.IAMEntity{}, meta.NoSuchEntity(kind, name)
	}
	return e, err
}

// ListEntities implements meta.Store.
func (s *Store) ListEntities(ctx context.Context, kind meta.EntityKind, opts meta.IAMListOptions) ([]meta.IAMEntity, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+entityColumns+` FROM iam_entities e
		WHERE e.kind = $1 AND starts_with(e.path, $2) AND lower(e.name) COLLATE "C" > lower($3)`+byName+` LIMIT $4`,
		int32(kind), opts.PathPrefix, opts.After, limitArg(opts.Limit))
	return collect(rows, err, scanEntity)
}

// entityDependents are what keeps an entity from being deleted, as IAM
// refuses it: a query for the entity's ID ($1) and why.
var entityDependents = []struct{ query, what string }{
	{"SELECT 1 FROM iam_access_keys WHERE user_id = $1", "must delete access keys first"},
	{"SELECT 1 FROM iam_group_members WHERE user_id = $1", "must remove user from all groups first"},
	{"SELECT 1 FROM iam_group_members WHERE group_id = $1", "must remove users from group first"},
	{"SELECT 1 FROM iam_inline_policies WHERE entity_id = $1", "must delete policies first"},
	{"SELECT 1 FROM iam_attachments WHERE entity_id = $1", "must detach all policies first"},
}

// DeleteEntity implements meta.Store.
func (s *Store) DeleteEntity(ctx context.Context, kind meta.EntityKind, name string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		id, err := entityID(ctx, tx, kind, name)
		if err != nil {
			return err
		}
		for _, d := range entityDependents {
			blocked, err := found(ctx, tx, d.query, id)
			if err != nil {
				return err
			}
			if blocked {
				return meta.IAMErrorf(meta.ErrDeleteConflict, "Cannot delete entity, %s.", d.what)
			}
		}
		_, err = tx.Exec(ctx, "DELETE FROM iam_entities WHERE id = $1", id)
		return err
	})
}

// CreateAccessKey implements meta.Store.
func (s *Store) CreateAccessKey(ctx context.Context, k meta.AccessKey) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		uid, err := entityID(ctx, tx, meta.EntityUser, k.User)
		if err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM iam_access_keys WHERE user_id = $1", uid).Scan(&n); err != nil {
			return err
		}
		if n >= meta.MaxAccessKeys {
			return meta.IAMErrorf(meta.ErrLimitExceeded, "Cannot exceed quota for AccessKeysPerUser: %d", meta.MaxAccessKeys)
		}
		taken, err := found(ctx, tx, "SELECT 1 FROM iam_access_keys WHERE id = $1", k.ID)
		if err != nil {
			return err
		}
		if taken {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "Access key %s already exists.", k.ID)
		}
		_, err = tx.Exec(ctx, "INSERT INTO iam_access_keys (id, user_id, sealed, status, created_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6)",
			k.ID, uid, k.Sealed, k.Status, millis(k.Created), lastUsed(k.LastUsed))
		return err
	})
}

// lastUsed is t in Unix milliseconds, 0 for the zero time (never used).
func lastUsed(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return millis(t)
}

const keyColumns = "k.id, e.name, k.sealed, k.status, k.created_at, k.last_used_at FROM iam_access_keys k JOIN iam_entities e ON e.id = k.user_id"

func scanKey(row pgx.Row) (meta.AccessKey, error) {
	var k meta.AccessKey
	var created, used int64
	err := row.Scan(&k.ID, &k.User, &k.Sealed, &k.Status, &created, &used)
	k.Created = fromMillis(created)
	if used != 0 {
		k.LastUsed = fromMillis(used)
	}
	return k, err
}

// GetAccessKey implements meta.Store.
func (s *Store) GetAccessKey(ctx context.Context, id string) (meta.AccessKey, error) {
	k, err := scanKey(s.pool.QueryRow(ctx, "SELECT "+keyColumns+" WHERE k.id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.AccessKey{}, meta.NoSuchAccessKey(id)
	}
	return k, err
}

// ListAccessKeys implements meta.Store.
func (s *Store) ListAccessKeys(ctx context.Context, user string) ([]meta.AccessKey, error) {
	uid, err := entityID(ctx, s.pool, meta.EntityUser, user)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, "SELECT "+keyColumns+" WHERE k.user_id = $1 ORDER BY k.created_at, k.id", uid)
	return collect(rows, err, scanKey)
}

// userKey fails as IAM does when the user or the key (of that user) does
// not exist.
func userKey(ctx context.Context, tx pgx.Tx, user, id string) error {
	uid, err := entityID(ctx, tx, meta.EntityUser, user)
	if err != nil {
		return err
	}
	ok, err := found(ctx, tx, "SELECT 1 FROM iam_access_keys WHERE id = $1 AND user_id = $2", id, uid)
	if err == nil && !ok {
		err = meta.NoSuchAccessKey(id)
	}
	return err
}

// SetAccessKeyStatus implements meta.Store.
func (s *Store) SetAccessKeyStatus(ctx context.Context, user, id, status string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		if err := userKey(ctx, tx, user, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "UPDATE iam_access_keys SET status = $1 WHERE id = $2", status, id)
		return err
	})
}

// SetAccessKeyLastUsed implements meta.Store; it does not advance the
// generation, nor wait for IAM changes.
func (s *Store) SetAccessKeyLastUsed(ctx context.Context, id string, at time.Time) error {
	tag, err := s.pool.Exec(ctx, "UPDATE iam_access_keys SET last_used_at = $1 WHERE id = $2", lastUsed(at), id)
	return changed(tag, err, meta.NoSuchAccessKey(id))
}

// DeleteAccessKey implements meta.Store.
func (s *Store) DeleteAccessKey(ctx context.Context, user, id string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		if err := userKey(ctx, tx, user, id); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "DELETE FROM iam_access_keys WHERE id = $1", id)
		return err
	})
}

// groupAndUser resolves a group and a user.
func groupAndUser(ctx context.Context, tx pgx.Tx, group, user string) (gid, uid int64, err error) {
	if gid, err = entityID(ctx, tx, meta.EntityGroup, group); err != nil {
		return 0, 0, err
	}
	uid, err = entityID(ctx, tx, meta.EntityUser, user)
	return gid, uid, err
}

// AddGroupMember implements meta.Store.
func (s *Store) AddGroupMember(ctx context.Context, group, user string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		gid, uid, err := groupAndUser(ctx, tx, group, user)
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO iam_group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING", gid, uid)
		return err
	})
}

// RemoveGroupMember implements meta.Store.
func (s *Store) RemoveGroupMember(ctx context.Context, group, user string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		gid, uid, err := groupAndUser(ctx, tx, group, user)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM iam_group_members WHERE group_id = $1 AND user_id = $2", gid, uid)
		return changed(tag, err, meta.IAMErrorf(meta.ErrNoSuchEntity, "The user with name %s is not in group %s.", user, group))
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
	id, err := entityID(ctx, s.pool, kind, name)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, "SELECT "+entityColumns+` FROM iam_group_members m
		JOIN iam_entities e ON e.id = m.`+other+` WHERE m.`+own+` = $1`+byName, id)
	return collect(rows, err, scanEntity)
}
