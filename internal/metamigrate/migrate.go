package metamigrate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"log/slog"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/fsck"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/storage"
)

// Options say what to copy where.
type Options struct {
	DataDir string
	// From and To name the source and target stores as jog server's
	// --meta does ("sqlite", a postgres:// URL or a key=value string).
	From, To string
	// Progress, when set, is told of each table as it is copied.
	Progress Progress
	// Log receives what the stores report on opening; nil discards it.
	Log *slog.Logger
}

// Progress is told of a table every progressRows rows copied (done
// false) and once it is copied whole (done true).
type Progress func(t TableReport, done bool)

// progressRows is how often Progress hears of a long table.
const progressRows = 100_000

// TableReport is one table's copy: the rows read from the source and
// their SHA-256, and the same read back from the target.
type TableReport struct {
	Name                string
	Rows, TargetRows    int64
	Checksum, TargetSum [sha256.Size]byte
}

// Equal reports whether the target holds the source's rows.
func (r TableReport) Equal() bool { return r.Rows == r.TargetRows && r.Checksum == r.TargetSum }

// Report is what a migration did and found.
type Report struct {
	Tables []TableReport
	// Committed: the target holds the copy (errors after it are of the
	// verification).
	Committed bool
	// Source and Target are jog fsck's summaries of the two stores after
	// the copy.
	Source, Target fsck.Summary
}

// Clean reports whether every table matched and fsck found nothing on
// either side.
func (r Report) Clean() bool {
	for _, t := range r.Tables {
		if !t.Equal() {
			return false
		}
	}
	return r.Source.Remaining() == 0 && r.Target.Remaining() == 0
}

// ErrMismatch reports a target whose rows differ from the source's after
// the copy.
var ErrMismatch = errors.New("the target's rows differ from the source's")

// Run copies opts.From's metadata into opts.To, verifies the copy and
// runs fsck on both. An error before the copy committed leaves the target
// as it was; after it (ErrMismatch, fsck failing to run) the report says
// what was found. Errors never show a password of From or To (the
// stores' opening redacts them; nothing else quotes them).
func Run(ctx context.Context, opts Options) (Report, error) {
	var rep Report
	for _, m := range []string{opts.From, opts.To} {
		if config.MetaBackend(m) == "" {
			return rep, fmt.Errorf("%q: unknown metadata store, want sqlite or a PostgreSQL URL", config.RedactMeta(m))
		}
	}
	if opts.From == opts.To {
		return rep, errors.New("the source and the target are the same store")
	}
	unlock, err := datadir.Lock(opts.DataDir)
	if err != nil {
		return rep, err
	}
	if err := copyAndVerify(ctx, opts, &rep); err != nil {
		_ = unlock()
		return rep, err
	}
	// fsck opens the stores itself, and counts a locked data dir as one
	// a server runs on: the lock goes first.
	if err := unlock(); err != nil {
		return rep, err
	}
	for _, side := range []struct {
		meta string
		sum  *fsck.Summary
	}{{opts.From, &rep.Source}, {opts.To, &rep.Target}} {
		if *side.sum, err = fsck.Run(ctx, fsck.Options{DataDir: opts.DataDir, Meta: side.meta}); err != nil {
			return rep, fmt.Errorf("fsck %s: %w", config.RedactMeta(side.meta), err)
		}
	}
	return rep, nil
}

// copyAndVerify opens both stores, copies and reads the target back.
func copyAndVerify(ctx context.Context, opts Options, rep *Report) error {
	cfg := config.Default()
	cfg.DataDir = opts.DataDir
	cfg.Meta = opts.From
	src, err := storage.OpenMeta(ctx, cfg, opts.Log, true)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer src.Close()
	cfg.Meta = opts.To
	dst, err := storage.OpenMeta(ctx, cfg, opts.Log, false)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer dst.Close()
	exp, ok := src.(meta.Exporter)
	if !ok {
		return fmt.Errorf("source: %T cannot export", src)
	}
	imp, ok := dst.(meta.Importer)
	if !ok {
		return fmt.Errorf("target: %T cannot import", dst)
	}
	if err := Copy(ctx, exp, imp, opts.Progress, rep); err != nil {
		return err
	}
	texp, ok := dst.(meta.Exporter)
	if !ok {
		return fmt.Errorf("target: %T cannot be read back", dst)
	}
	return Verify(ctx, texp, rep)
}

// Batch bounds: a batch is written once it holds batchRows rows or
// batchBytes bytes of text and binary values (inline data), whichever
// comes first.
const (
	batchRows  = 1000
	batchBytes = 4 << 20
)

// Copy copies every table of meta.Tables from src into dst, in one
// snapshot of src and one transaction of dst, appending each table's
// count and checksum to rep.Tables (and telling progress, if not nil).
func Copy(ctx context.Context, src meta.Exporter, dst meta.Importer, progress Progress, rep *Report) error {
	exp, err := src.BeginExport(ctx)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	defer exp.Close()
	imp, err := dst.BeginImport(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer imp.Rollback()
	for _, t := range meta.Tables {
		tr := TableReport{Name: t.Name}
		h := sha256.New()
		var batch []meta.Row
		size := 0
		flush := func() error {
			err := imp.Write(ctx, t, batch)
			batch, size = batch[:0], 0
			return err
		}
		err := exp.Rows(ctx, t, func(r meta.Row) error {
			size += hashRow(h, r)
			tr.Rows++
			if progress != nil && tr.Rows%progressRows == 0 {
				progress(tr, false)
			}
			batch = append(batch, r)
			if len(batch) >= batchRows || size >= batchBytes {
				return flush()
			}
			return nil
		})
		if err == nil && len(batch) > 0 {
			err = flush()
		}
		if err != nil {
			return fmt.Errorf("copy %s: %w", t.Name, err)
		}
		h.Sum(tr.Checksum[:0])
		rep.Tables = append(rep.Tables, tr)
		if progress != nil {
			progress(tr, true)
		}
	}
	if err := imp.Commit(ctx); err != nil {
		return fmt.Errorf("target: commit: %w", err)
	}
	rep.Committed = true
	return nil
}

// Verify reads every table of dst back, counting and hashing its rows
// into rep.Tables (filled by Copy): ErrMismatch when any differs.
func Verify(ctx context.Context, dst meta.Exporter, rep *Report) error {
	exp, err := dst.BeginExport(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer exp.Close()
	var bad []string
	for i, t := range meta.Tables {
		tr := &rep.Tables[i]
		h := sha256.New()
		err := exp.Rows(ctx, t, func(r meta.Row) error {
			hashRow(h, r)
			tr.TargetRows++
			return nil
		})
		if err != nil {
			return fmt.Errorf("verify %s: %w", t.Name, err)
		}
		h.Sum(tr.TargetSum[:0])
		if !tr.Equal() {
			bad = append(bad, t.Name)
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("%w: tables %v", ErrMismatch, bad)
	}
	return nil
}

// hashRow writes r to h unambiguously (each value's kind and length
// before its bytes) and returns the bytes of its text and binary values.
func hashRow(h hash.Hash, r meta.Row) int {
	var buf [9]byte
	n := 0
	for _, v := range r {
		buf = [9]byte{}
		var b []byte
		switch x := v.(type) {
		case nil:
			buf[0] = 0
		case int64:
			buf[0] = 1
			binary.BigEndian.PutUint64(buf[1:], uint64(x))
		case bool:
			buf[0] = 2
			if x {
				buf[1] = 1
			}
		case string:
			buf[0] = 3
			b = []byte(x)
		case []byte:
			buf[0] = 4
			b = x
		default:
			panic(fmt.Sprintf("metamigrate: value of type %T", v))
		}
		if buf[0] >= 3 {
			binary.BigEndian.PutUint64(buf[1:], uint64(len(b)))
			n += len(b)
		}
		h.Write(buf[:])
		h.Write(b)
	}
	return n
}
