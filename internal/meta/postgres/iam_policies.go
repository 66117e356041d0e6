package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/jogstore/jog/internal/meta"
)

// Managed policies, inline policies and attachments (see iam.go).

const policyColumns = `p.name, p.path, p.unique_id, p.arn, p.description, p.document, p.default_version,
	p.created_at, p.updated_at, (SELECT count(*) FROM iam_attachments a WHERE a.policy_id = p.id),
	(SELECT count(*) FROM iam_entities e WHERE e.boundary_id = p.id)`

// byPolicyName orders policies by name ignoring case, byte-wise.
const byPolicyName = ` ORDER BY lower(p.name) COLLATE "C"`

func scanPolicy(row pgx.Row) (meta.ManagedPolicy, error) {
	var p meta.ManagedPolicy
	var created, updated int64
	err := row.Scan(&p.Name, &p.Path, &p.ID, &p.ARN, &p.Description, &p.Document, &p.DefaultVersion,
		&created, &updated, &p.AttachmentCount, &p.BoundaryCount)
	p.Created, p.Updated = fromMillis(created), fromMillis(updated)
	return p, err
}

// policyID resolves a managed policy's row ID by ARN.
func policyID(ctx context.Context, q querier, arn string) (int64, error) {
	var id int64
	err := q.QueryRow(ctx, "SELECT id FROM iam_policies WHERE arn = $1", arn).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, meta.NoSuchPolicy(arn)
	}
	return id, err
}

// CreatePolicy implements meta.Store.
func (s *Store) CreatePolicy(ctx context.Context, p meta.ManagedPolicy) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		taken, err := found(ctx, tx, "SELECT 1 FROM iam_policies WHERE lower(name) = lower($1) OR arn = $2", p.Name, p.ARN)
		if err != nil {
			return err
		}
		if taken {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "A policy called %s already exists. Duplicate names are not allowed.", p.Name)
		}
		_, err = tx.Exec(ctx, `INSERT INTO iam_policies
			(name, path, unique_id, arn, description, document, default_version, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			p.Name, p.Path, p.ID, p.ARN, p.Description, p.Document, p.DefaultVersion,
			millis(p.Created), millis(p.Updated))
		return err
	})
}

// GetPolicy implements meta.Store.
func (s *Store) GetPolicy(ctx context.Context, arn string) (meta.ManagedPolicy, error) {
	p, err := scanPolicy(s.pool.QueryRow(ctx, "SELECT "+policyColumns+" FROM iam_policies p WHERE p.arn = $1", arn))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.ManagedPolicy{}, meta.NoSuchPolicy(arn)
	}
	return p, err
}

// ListPolicies implements meta.Store.
func (s *Store) ListPolicies(ctx context.Context, opts meta.IAMListOptions) ([]meta.ManagedPolicy, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+policyColumns+` FROM iam_policies p
		WHERE starts_with(p.path, $1) AND lower(p.name) COLLATE "C" > lower($2)`+byPolicyName+` LIMIT $3`,
		opts.PathPrefix, opts.After, limitArg(opts.Limit))
	return collect(rows, err, scanPolicy)
}

// DeletePolicy implements meta.Store.
func (s *Store) DeletePolicy(ctx context.Context, arn string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		id, err := policyID(ctx, tx, arn)
		if err != nil {
			return err
		}
		used, err := found(ctx, tx, `SELECT 1 FROM iam_attachments WHERE policy_id = $1
			UNION ALL SELECT 1 FROM iam_entities WHERE boundary_id = $1`, id)
		if err != nil {
			return err
		}
		if used {
			return meta.IAMErrorf(meta.ErrDeleteConflict, "Cannot delete a policy attached to entities.")
		}
		_, err = tx.Exec(ctx, "DELETE FROM iam_policies WHERE id = $1", id)
		return err
	})
}

// SetBoundary implements meta.Store.
func (s *Store) SetBoundary(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		var boundary *int64 // NULL: none
		if arn != "" {
			pid, err := policyID(ctx, tx, arn)
			if err != nil {
				return err
			}
			boundary = &pid
		}
		_, err = tx.Exec(ctx, "UPDATE iam_entities SET boundary_id = $1 WHERE id = $2", boundary, id)
		return err
	})
}

// PutInlinePolicy implements meta.Store.
func (s *Store) PutInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string, doc []byte) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		// The name as first stored is kept: IAM names ignore case.
		_, err = tx.Exec(ctx, `INSERT INTO iam_inline_policies (entity_id, name, document) VALUES ($1, $2, $3)
			ON CONFLICT (entity_id, lower(name)) DO UPDATE SET document = excluded.document`, id, name, doc)
		return err
	})
}

func scanInline(row pgx.Row) (meta.InlinePolicy, error) {
	var p meta.InlinePolicy
	err := row.Scan(&p.Name, &p.Document)
	return p, err
}

// GetInlinePolicy implements meta.Store.
func (s *Store) GetInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) (meta.InlinePolicy, error) {
	id, err := entityID(ctx, s.pool, kind, entity)
	if err != nil {
		return meta.InlinePolicy{}, err
	}
	p, err := scanInline(s.pool.QueryRow(ctx,
		"SELECT name, document FROM iam_inline_policies WHERE entity_id = $1 AND lower(name) = lower($2)", id, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return meta.InlinePolicy{}, meta.NoSuchInlinePolicy(kind, name)
	}
	return p, err
}

// InlinePolicies implements meta.Store.
func (s *Store) InlinePolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]meta.InlinePolicy, error) {
	id, err := entityID(ctx, s.pool, kind, entity)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx,
		`SELECT name, document FROM iam_inline_policies WHERE entity_id = $1 ORDER BY lower(name) COLLATE "C"`, id)
	return collect(rows, err, scanInline)
}

// DeleteInlinePolicy implements meta.Store.
func (s *Store) DeleteInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM iam_inline_policies WHERE entity_id = $1 AND lower(name) = lower($2)", id, name)
		return changed(tag, err, meta.NoSuchInlinePolicy(kind, name))
	})
}

// entityAndPolicy resolves an entity and a managed policy.
func entityAndPolicy(ctx context.Context, tx pgx.Tx, kind meta.EntityKind, entity, arn string) (eid, pid int64, err error) {
	if eid, err = entityID(ctx, tx, kind, entity); err != nil {
		return 0, 0, err
	}
	pid, err = policyID(ctx, tx, arn)
	return eid, pid, err
}

// AttachPolicy implements meta.Store.
func (s *Store) AttachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		eid, pid, err := entityAndPolicy(ctx, tx, kind, entity, arn)
		if err != nil {
			return err
		}
		attached, err := found(ctx, tx, "SELECT 1 FROM iam_attachments WHERE entity_id = $1 AND policy_id = $2", eid, pid)
		if err != nil || attached {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM iam_attachments WHERE entity_id = $1", eid).Scan(&n); err != nil {
			return err
		}
		if n >= meta.MaxAttachedPolicies {
			return meta.IAMErrorf(meta.ErrLimitExceeded, "Cannot exceed quota for PoliciesPer%s: %d", kind.Title(), meta.MaxAttachedPolicies)
		}
		_, err = tx.Exec(ctx, "INSERT INTO iam_attachments (entity_id, policy_id) VALUES ($1, $2)", eid, pid)
		return err
	})
}

// DetachPolicy implements meta.Store.
func (s *Store) DetachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx pgx.Tx) error {
		eid, pid, err := entityAndPolicy(ctx, tx, kind, entity, arn)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, "DELETE FROM iam_attachments WHERE entity_id = $1 AND policy_id = $2", eid, pid)
		return changed(tag, err, meta.IAMErrorf(meta.ErrNoSuchEntity, "Policy %s was not found.", arn))
	})
}

// AttachedPolicies implements meta.Store.
func (s *Store) AttachedPolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]meta.ManagedPolicy, error) {
	eid, err := entityID(ctx, s.pool, kind, entity)
	if err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, "SELECT "+policyColumns+` FROM iam_attachments x
		JOIN iam_policies p ON p.id = x.policy_id WHERE x.entity_id = $1`+byPolicyName, eid)
	return collect(rows, err, scanPolicy)
}
