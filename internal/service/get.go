package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/jogstore/jog/internal/meta"
)

// HeadObject returns an object's metadata.
func (s *Service) HeadObject(ctx context.Context, bucket, key, versionID string) (meta.Object, error) {
	return s.meta.GetObject(ctx, bucket, key, versionID)
}

// OpenObject returns an object's metadata and a reader of exactly the bytes
// that metadata describes. Blobs are immutable and named by ID, so when a
// concurrent overwrite deletes the blob between the metadata read and the
// open, the lookup is simply repeated: the reader never mixes versions.
func (s *Service) OpenObject(ctx context.Context, bucket, key, versionID string) (meta.Object, io.ReadSeekCloser, error) {
	for attempt := 0; ; attempt++ {
		o, err := s.meta.GetObject(ctx, bucket, key, versionID)
		if err != nil {
			return meta.Object{}, nil, err
		}
		if o.BlobID == "" {
			return o, nopCloser{strings.NewReader("")}, nil
		}
		f, err := s.blobs.Open(ctx, o.BlobID)
		if err == nil {
			return o, f, nil
		}
		if !errors.Is(err, fs.ErrNotExist) || attempt >= 8 {
			return meta.Object{}, nil, fmt.Errorf("open blob %s of %s/%s: %w", o.BlobID, bucket, key, err)
		}
	}
}

type nopCloser struct{ io.ReadSeeker }

func (nopCloser) Close() error { return nil }
