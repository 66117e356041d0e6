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

// RecoveryBefore returns the instant before which start-up recovery
// (Store.CleanTemp) and the orphan sweep (SweepOrphans) of a process
// started at started may remove what writes left. A process that has the
// data dir to itself (shared false: it holds its exclusive lock) takes
// started: every write before it belongs to a process that has ended,
// and its own writes come after it. Where other gateways share the data
// dir (shared true) their writes run on, so it takes blob.Grace earlier: a
// blob another gateway committed less than blob.Grace ago may still wait
// for its metadata commit, and its temp files may be a write in progress.
func RecoveryBefore(started time.Time, shared bool) time.Time {
	if !shared {
		return started
	}
	return started.Add(-blob.Grace)
}

// SweepOrphans removes committed blobs, older than before, that no
// metadata refers to: a crash between a blob's commit and its metadata's,
// or before a replaced blob was freed, leaves them. It walks every blob, so
// the server runs it in the background while it answers requests. That is
// safe because a blob no metadata refers to never gains a reference (new
// writes make new blobs) once its own write's metadata commit is past —
// which before must guarantee: it must precede the blob commit of every
// write whose metadata has not committed yet, in this process and in any
// other sharing the store (RecoveryBefore gives such a bound) — and the
// sweep frees orphans as a committed delete does: a blob a reader of this
// process still has pinned goes when the reader is done.
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
