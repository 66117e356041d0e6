package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Managed policies, inline policies and attachments (see iam.go).

const policyColumns = `p.name, p.path, p.unique_id, p.arn, p.description, p.document, p.default_version,
	p.created_at, p.updated_at, (SELECT count(*) FROM iam_attachments a WHERE a.policy_id = p.id),
	(SELECT count(*) FROM iam_entities e WHERE e.boundary_id = p.id)`

func scanPolicy(sc interface{ Scan(...any) error }) (meta.ManagedPolicy, error) {
	var p meta.ManagedPolicy
	var created, updated int64
	err := sc.Scan(&p.Name, &p.Path, &p.ID, &p.ARN, &p.Description, &p.Document, &p.DefaultVersion,
		&created, &updated, &p.AttachmentCount, &p.BoundaryCount)
	p.Created, p.Updated = time.UnixMilli(created).UTC(), time.UnixMilli(updated).UTC()
	return p, err
}

func scanPolicies(rows *sql.Rows, err error) ([]meta.ManagedPolicy, error) {
	return scanAll(rows, err, scanPolicy)
}

// policyID resolves a managed policy's row ID by ARN.
func policyID(ctx context.Context, q querier, arn string) (int64, error) {
	var id int64
	err := q.QueryRowContext(ctx, "SELECT id FROM iam_policies WHERE arn = ?", arn).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, meta.NoSuchPolicy(arn)
	}
	return id, err
}

// CreatePolicy implements meta.Store.
func (s *Store) CreatePolicy(ctx context.Context, p meta.ManagedPolicy) error {
	return s.iamWrite(ctx, func(tx querier) error {
		found, err := exists(ctx, tx, "SELECT 1 FROM iam_policies WHERE name = ? OR arn = ?", p.Name, p.ARN)
		if err != nil {
			return err
		}
		if found {
			return meta.IAMErrorf(meta.ErrEntityAlreadyExists, "A policy called %s already exists. Duplicate names are not allowed.", p.Name)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO iam_policies
			(name, path, unique_id, arn, description, document, default_version, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			p.Name, p.Path, p.ID, p.ARN, p.Description, p.Document, p.DefaultVersion,
			p.Created.UnixMilli(), p.Updated.UnixMilli())
		return err
	})
}

// GetPolicy implements meta.Store.
func (s *Store) GetPolicy(ctx context.Context, arn string) (meta.ManagedPolicy, error) {
	p, err := scanPolicy(s.rd.QueryRowContext(ctx, "SELECT "+policyColumns+" FROM iam_policies p WHERE p.arn = ?", arn))
	if errors.Is(err, sql.ErrNoRows) {
		return meta.ManagedPolicy{}, meta.NoSuchPolicy(arn)
	}
	return p, err
}

// ListPolicies implements meta.Store.
func (s *Store) ListPolicies(ctx context.Context, opts meta.IAMListOptions) ([]meta.ManagedPolicy, error) {
	return scanPolicies(s.rd.QueryContext(ctx, "SELECT "+policyColumns+` FROM iam_policies p
		WHERE substr(p.path, 1, length(?1)) = ?1 AND p.name > ?2 ORDER BY p.name LIMIT ?3`,
		opts.PathPrefix, opts.After, limit(opts.Limit)))
}

// DeletePolicy implements meta.Store.
func (s *Store) DeletePolicy(ctx context.Context, arn string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		id, err := policyID(ctx, tx, arn)
		if err != nil {
			return err
		}
		attached, err := exists(ctx, tx, `SELECT 1 FROM iam_attachments WHERE policy_id = ?1
			UNION ALL SELECT 1 FROM iam_entities WHERE boundary_id = ?1 LIMIT 1`, id)
		if err != nil {
			return err
		}
		if attached {
			return meta.IAMErrorf(meta.ErrDeleteConflict, "Cannot delete a policy attached to entities.")
		}
		_, err = tx.ExecContext(ctx, "DELETE FROM iam_policies WHERE id = ?", id)
		return err
	})
}

// SetBoundary implements meta.Store.
func (s *Store) SetBoundary(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		var boundary any // NULL: none
		if arn != "" {
			if boundary, err = policyID(ctx, tx, arn); err != nil {
				return err
			}
		}
		_, err = tx.ExecContext(ctx, "UPDATE iam_entities SET boundary_id = ? WHERE id = ?", boundary, id)
		return err
	})
}

// PutInlinePolicy implements meta.Store.
func (s *Store) PutInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string, doc []byte) error {
	return s.iamWrite(ctx, func(tx querier) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		// The name as first stored is kept: IAM names ignore case.
		_, err = tx.ExecContext(ctx, `INSERT INTO iam_inline_policies (entity_id, name, document) VALUES (?, ?, ?)
			ON CONFLICT (entity_id, name) DO UPDATE SET document = excluded.document`, id, name, doc)
		return err
	})
}

// GetInlinePolicy implements meta.Store.
func (s *Store) GetInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) (meta.InlinePolicy, error) {
	id, err := entityID(ctx, s.rd, kind, entity)
	if err != nil {
		return meta.InlinePolicy{}, err
	}
	p, err := scanInline(s.rd.QueryRowContext(ctx, "SELECT name, document FROM iam_inline_policies WHERE entity_id = ? AND name = ?", id, name))
	if errors.Is(err, sql.ErrNoRows) {
		return meta.InlinePolicy{}, meta.NoSuchInlinePolicy(kind, name)
	}
	return p, err
}

func scanInline(sc interface{ Scan(...any) error }) (meta.InlinePolicy, error) {
	var p meta.InlinePolicy
	err := sc.Scan(&p.Name, &p.Document)
	return p, err
}

// InlinePolicies implements meta.Store.
func (s *Store) InlinePolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]meta.InlinePolicy, error) {
	id, err := entityID(ctx, s.rd, kind, entity)
	if err != nil {
		return nil, err
	}
	rows, err := s.rd.QueryContext(ctx, "SELECT name, document FROM iam_inline_policies WHERE entity_id = ? ORDER BY name", id)
	return scanAll(rows, err, scanInline)
}

// DeleteInlinePolicy implements meta.Store.
func (s *Store) DeleteInlinePolicy(ctx context.Context, kind meta.EntityKind, entity, name string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		id, err := entityID(ctx, tx, kind, entity)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM iam_inline_policies WHERE entity_id = ? AND name = ?", id, name)
		return affected(res, err, meta.NoSuchInlinePolicy(kind, name))
	})
}

// entityAndPolicy resolves an entity and a managed policy.
func entityAndPolicy(ctx context.Context, q querier, kind meta.EntityKind, entity, arn string) (eid, pid int64, err error) {
	if eid, err = entityID(ctx, q, kind, entity); err != nil {
		return 0, 0, err
	}
	pid, err = policyID(ctx, q, arn)
	return eid, pid, err
}

// AttachPolicy implements meta.Store.
func (s *Store) AttachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		eid, pid, err := entityAndPolicy(ctx, tx, kind, entity, arn)
		if err != nil {
			return err
		}
		attached, err := exists(ctx, tx, "SELECT 1 FROM iam_attachments WHERE entity_id = ? AND policy_id = ?", eid, pid)
		if err != nil || attached {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM iam_attachments WHERE entity_id = ?", eid).Scan(&n); err != nil {
			return err
		}
		if n >= meta.MaxAttachedPolicies {
			return meta.IAMErrorf(meta.ErrLimitExceeded, "Cannot exceed quota for PoliciesPer%s: %d", kind.Title(), meta.MaxAttachedPolicies)
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO iam_attachments (entity_id, policy_id) VALUES (?, ?)", eid, pid)
		return err
	})
}

// DetachPolicy implements meta.Store.
func (s *Store) DetachPolicy(ctx context.Context, kind meta.EntityKind, entity, arn string) error {
	return s.iamWrite(ctx, func(tx querier) error {
		eid, pid, err := entityAndPolicy(ctx, tx, kind, entity, arn)
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, "DELETE FROM iam_attachments WHERE entity_id = ? AND policy_id = ?", eid, pid)
		return affected(res, err, meta.IAMErrorf(meta.ErrNoSuchEntity, "Policy %s was not found.", arn))
	})
}

// AttachedPolicies implements meta.Store.
func (s *Store) AttachedPolicies(ctx context.Context, kind meta.EntityKind, entity string) ([]meta.ManagedPolicy, error) {
	eid, err := entityID(ctx, s.rd, kind, entity)
	if err != nil {
		return nil, err
	}
	return scanPolicies(s.rd.QueryContext(ctx, "SELECT "+policyColumns+` FROM iam_attachments x
		JOIN iam_policies p ON p.id = x.policy_id WHERE x.entity_id = ? ORDER BY p.name`, eid))
}
