package service

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// DeleteObject removes a key (idempotent: a missing key is not an error).
func (s *Service) DeleteObject(ctx context.Context, bucket, key, versionID string, cond meta.Condition) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	freed, err := s.meta.DeleteObject(ctx, bucket, key, versionID, cond)
	if err != nil {
		return err
	}
	s.freeBlobs(ctx, freed)
	return nil
}
