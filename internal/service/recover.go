package service

import (
	"context"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// SweepReport counts what the orphan sweep found.
type SweepReport struct {
	BlobsScanned   int
	OrphansRemoved int // committed blobs no metadata refers to
}

// SweepOrphans removes committed blobs, older than before, that no
// metadata refers to: a crash between a blob's commit and its metadata's,
// or before a replaced blob was freed, leaves them. It walks every blob, so
// the server runs it in the background while it answers requests. That is
// safe because a blob no metadata refers to never gains a reference (new
// writes make new blobs), and the sweep frees orphans as a committed
// delete does: a blob a reader still has pinned goes when the reader is
// done.
func (s *Service) SweepOrphans(ctx context.Context, before time.Time) (SweepReport, error) {
	var rep SweepReport
	var batch []string
	flush := func() error {
		orphans, err := s.meta.UnreferencedBlobs(ctx, batch)
		if err != nil {
			return err
		}
		s.freeBlobs(ctx, orphans)
		rep.OrphansRemoved += len(orphans)
		batch = batch[:0]
		return nil
	}
	err := s.blobs.Walk(ctx, func(info blob.Info) error {
		rep.BlobsScanned++
		if !info.ModTime.Before(before) {
			return nil
		}
		batch = append(batch, info.ID)
		if len(batch) >= 512 {
			return flush()
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	return rep, flush()
}
