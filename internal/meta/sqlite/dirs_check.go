package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.IndexChecker = (*Store)(nil) // jog fsck finds it by type assertion

// CheckIndexes implements meta.IndexChecker for the directory index: every
// row's parent column must be parentOf(key), and dirs must hold exactly
// the directories above the latest keys. Each bucket is compared in one
// read transaction by merging two streams in name order; only the
// findings are held, until the bucket's rebuild.
func (s *Store) CheckIndexes(ctx context.Context, repair bool, report func(meta.IndexProblem)) error {
	return s.eachBucket(ctx, func(name string, id int64) error {
		var found []meta.IndexProblem
		if err := s.checkDirs(ctx, id, func(dir, detail string) {
			found = append(found, meta.IndexProblem{Bucket: name, Name: dir, Detail: detail})
		}); err != nil {
			return fmt.Errorf("check the directory index of %s: %w", name, err)
		}
		if len(found) > 0 && repair {
			if err := s.write(ctx, func(tx querier) error { return rebuildDirs(ctx, tx, id) }); err != nil {
				return fmt.Errorf("rebuild the directory index of %s: %w", name, err)
			}
		}
		recorded, actual, err := s.checkUsage(ctx, id)
		if err != nil {
			return fmt.Errorf("check the usage of %s: %w", name, err)
		}
		if recorded != actual {
			found = append(found, meta.IndexProblem{Bucket: name, Name: "usage",
				Detail: fmt.Sprintf("recorded usage %d bytes in %d objects, its rows hold %d bytes in %d objects",
					recorded.Bytes, recorded.Objects, actual.Bytes, actual.Objects)})
			if repair {
				if err := s.write(ctx, func(tx querier) error { return repairUsage(ctx, tx, id) }); err != nil {
					return fmt.Errorf("repair the usage of %s: %w", name, err)
				}
			}
		}
		for _, p := range found {
			p.Repaired = repair
			report(p)
		}
		return nil
	})
}

// eachBucket calls fn with the name and ID of every bucket, skipping those
// a running server deletes meanwhile.
func (s *Store) eachBucket(ctx context.Context, fn func(name string, id int64) error) error {
	buckets, err := s.ListBuckets(ctx, meta.ListBucketsOptions{})
	if err != nil {
		return err
	}
	for _, b := range buckets {
		id, err := bucketID(ctx, s.rd, b.Name)
		if errors.Is(err, meta.ErrBucketNotFound) {
			continue // deleted by a running server since ListBuckets
		}
		if err != nil {
			return err
		}
		if err := fn(b.Name, id); err != nil {
			return err
		}
	}
	return nil
}

// dirStream turns the latest keys of a bucket, in key order, into the
// directories above them, in name order, each once: a directory's first
// key follows every key of the directories before it, so only the
// previous key's directories can repeat.
type dirStream struct{ chain []string }

// next returns the directories above key that the keys before it did not
// have.
func (d *dirStream) next(key string) []string {
	var names []string
	_ = eachDir(key, func(_, name string) error {
		names = append(names, name)
		return nil
	})
	same := 0
	for same < len(names) && same < len(d.chain) && names[same] == d.chain[same] {
		same++
	}
	d.chain = names
	return names[same:]
}

// checkDirs compares one bucket's parent column and dirs rows with its
// objects, calling problem for each disagreement.
func (s *Store) checkDirs(ctx context.Context, id int64, problem func(name, detail string)) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	dirs, err := tx.QueryContext(ctx, "SELECT parent, name FROM dirs WHERE bucket_id = ? ORDER BY name", id)
	if err != nil {
		return err
	}
	defer dirs.Close()
	// have is the next dirs row, or ok false past the last.
	var have struct {
		parent, name string
		ok           bool
	}
	advance := func() error {
		if have.ok = dirs.Next(); have.ok {
			return dirs.Scan(&have.parent, &have.name)
		}
		return dirs.Err()
	}
	if err := advance(); err != nil {
		return err
	}
	// want consumes the dirs rows up to name, the next directory that
	// must exist.
	want := func(name string) error {
		for have.ok && have.name < name {
			problem(have.name, "directory in the index has no key below it")
			if err := advance(); err != nil {
				return err
			}
		}
		if !have.ok || have.name != name {
			problem(name, "directory missing from the index")
			return nil
		}
		if p := dirParent(name); have.parent != p {
			problem(name, fmt.Sprintf("directory row has parent %q, want %q", have.parent, p))
		}
		return advance()
	}
	var stream dirStream
	err = eachObjectRow(ctx, tx, id, func(r objectRow) error {
		if p := parentOf(r.key); r.parent != p {
			problem(r.key, fmt.Sprintf("parent column is %q, want %q", r.parent, p))
		}
		if !r.latest {
			return nil
		}
		for _, name := range stream.next(r.key) {
			if err := want(name); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for have.ok {
		problem(have.name, "directory in the index has no key below it")
		if err := advance(); err != nil {
			return err
		}
	}
	return nil
}

// objectRow is what the directory index derives from: one version's row.
type objectRow struct {
	key, version, parent string
	latest               bool
}

// eachObjectRow calls fn on every row of bucket id in (key, version) order.
// It reads a page of rows at a time and calls fn after the page's query
// has ended, so fn may write to objects, and memory stays bounded.
func eachObjectRow(ctx context.Context, q querier, id int64, fn func(objectRow) error) error {
	var last objectRow
	for first := true; ; first = false {
		sel, args := "SELECT key, version_id, parent, is_latest FROM objects WHERE bucket_id = ?", []any{id}
		if !first {
			sel += " AND (key, version_id) > (?, ?)"
			args = append(args, last.key, last.version)
		}
		var page []objectRow
		err := queryEach(ctx, q, sel+" ORDER BY key, version_id LIMIT 10000", args, func(rows *sql.Rows) error {
			var r objectRow
			err := rows.Scan(&r.key, &r.version, &r.parent, &r.latest)
			page = append(page, r)
			return err
		})
		if err != nil || len(page) == 0 {
			return err
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		last = page[len(page)-1]
	}
}

// rebuildDirs sets every parent column of bucket id right and writes its
// dirs rows anew from the latest keys.
func rebuildDirs(ctx context.Context, tx querier, id int64) error {
	if _, err := tx.ExecContext(ctx, "DELETE FROM dirs WHERE bucket_id = ?", id); err != nil {
		return err
	}
	var stream dirStream
	return eachObjectRow(ctx, tx, id, func(r objectRow) error {
		if p := parentOf(r.key); r.parent != p {
			if _, err := tx.ExecContext(ctx, "UPDATE objects SET parent = ? WHERE bucket_id = ? AND key = ? AND version_id = ?",
				p, id, r.key, r.version); err != nil {
				return err
			}
		}
		if !r.latest {
			return nil
		}
		for _, name := range stream.next(r.key) {
			if _, err := tx.ExecContext(ctx, "INSERT INTO dirs (bucket_id, parent, name) VALUES (?, ?, ?)",
				id, dirParent(name), name); err != nil {
				return err
			}
		}
		return nil
	})
}
