package service

import (
	"log/slog"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/meta"
)

// Service is the object layer shared by every front end (S3 API, fsck, bench).
type Service struct {
	meta  meta.Store
	blobs blob.Store
	log   *slog.Logger
	pins  *pins
}

// New returns a Service over the given stores.
func New(m meta.Store, b blob.Store, log *slog.Logger) *Service {
	return &Service{meta: m, blobs: b, log: log, pins: newPins()}
}

// Meta exposes the metadata store for read-only callers (listings, buckets).
func (s *Service) Meta() meta.Store { return s.meta }
