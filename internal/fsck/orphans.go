package fsck

import (
	"context"
	"path/filepath"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/datadir"
)

// orphans walks the blob store once and reports blob files no metadata
// refers to (removing them with Repair).
func (c *checker) orphans(ctx context.Context) error {
	var batch []blob.Info
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		ids := make([]string, len(batch))
		byID := make(map[string]blob.Info, len(batch))
		for i, b := range batch {
			ids[i], byID[b.ID] = b.ID, b
		}
		batch = batch[:0]
		unref, err := c.meta.UnreferencedBlobs(ctx, ids)
		if err != nil {
			return err
		}
		for _, id := range unref {
			info := byID[id]
			path := c.path(id)
			if c.sum.Live {
				// Freed by a write that committed after the walk saw the
				// file: the server deletes it right after its commit.
				if !c.exists(ctx, id) {
					continue
				}
			}
			p := Problem{Kind: Orphan, BlobID: id, Path: path, Size: info.Size, Detail: "no metadata refers to this blob"}
			c.sum.Orphans++
			c.sum.OrphanBytes += info.Size
			if c.opts.Repair {
				if err := c.blobs.Delete(ctx, id); err != nil {
					return err
				}
				c.sum.OrphansRemoved++
				p.Action = ActionRemoved
			}
			c.report(p)
		}
		return nil
	}
	err := c.blobs.Walk(ctx, func(info blob.Info) error {
		c.sum.Blobs++
		if c.sum.Live && info.ModTime.After(c.start.Add(-c.grace)) {
			return nil // may be a write whose metadata commits any moment
		}
		batch = append(batch, info)
		if len(batch) >= 512 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return flush()
}

// temp reports the files left in tmp/ by interrupted writes (removing them
// with Repair; in live mode they are writes in progress).
func (c *checker) temp(ctx context.Context) error {
	temps, ok := c.blobs.(tempFiles)
	if !ok {
		return nil
	}
	return temps.WalkTemp(ctx, func(info blob.Info) error {
		c.sum.TempFiles++
		if c.sum.Live {
			return nil // writes in progress
		}
		p := Problem{Kind: Temp, Path: filepath.Join(c.opts.DataDir, datadir.TempDir, info.ID), Size: info.Size,
			Detail: "left by an interrupted write"}
		if c.opts.Repair {
			if err := temps.RemoveTemp(info.ID); err != nil {
				return err
			}
			c.sum.TempRemoved++
			p.Action = ActionRemoved
		}
		c.report(p)
		return nil
	})
}
