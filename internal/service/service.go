package service

import (
	"context"
	"log/slog"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/meta"
)

// Service is the object layer shared by every front end (S3 API, fsck, bench).
type Service struct {
	meta  meta.Store
	blobs blob.Store
	log   *slog.Logger
}

// New returns a Service over the given stores.
func New(m meta.Store, b blob.Store, log *slog.Logger) *Service {
	return &Service{meta: m, blobs: b, log: log}
}

// Meta exposes the metadata store for read-only callers (listings, buckets).
func (s *Service) Meta() meta.Store { return s.meta }

// freeBlobs deletes blobs a committed metadata change no longer refers to.
// Failures leave orphans that recovery removes later, so they are logged, not
// returned.
func (s *Service) freeBlobs(ctx context.Context, ids []string) {
	for _, id := range ids {
		if err := s.blobs.Delete(context.WithoutCancel(ctx), id); err != nil {
			s.log.Warn("delete replaced blob", "blob", id, "err", err)
		}
	}
}
