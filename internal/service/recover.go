package service

import (
	"context"
	"time"

	"github.com/jogstore/jog/internal/blob"
)

// RecoveryReport counts what Recover cleaned up.
type RecoveryReport struct {
	TempRemoved    int // interrupted writes
	BlobsScanned   int
	OrphansRemoved int // committed blobs no metadata refers to
}

// Recover removes what a crash can leave behind: temp files of interrupted
// writes and committed blobs whose metadata never committed (or whose
// replacement's cleanup never ran). Only files older than before are
// touched, so writes in flight after that instant are safe.
func (s *Service) Recover(ctx context.Context, before time.Time) (RecoveryReport, error) {
	var rep RecoveryReport
	n, err := s.blobs.CleanTemp(ctx, before)
	rep.TempRemoved = n
	if err != nil {
		return rep, err
	}
	var batch []string
	flush := func() error {
		orphans, err := s.meta.UnreferencedBlobs(ctx, batch)
		if err != nil {
			return err
		}
		for _, id := range orphans {
			if err := s.blobs.Delete(ctx, id); err != nil {
				return err
			}
			rep.OrphansRemoved++
		}
		batch = batch[:0]
		return nil
	}
	err = s.blobs.Walk(ctx, func(info blob.Info) error {
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
