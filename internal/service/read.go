package service

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// The reads below are what the S3 edge asks of buckets, listings and
// uploads. Today each is the metadata store's answer as is; they are here
// so that the rules still to come (versions and delete markers, object lock,
// read policies, usage accounting) have one place to live, and the edge
// never reaches past the service into a store. Each keeps its meta.Store
// method's semantics and errors.

// GetBucket returns a bucket (meta.ErrBucketNotFound).
func (s *Service) GetBucket(ctx context.Context, name string) (meta.Bucket, error) {
	return s.meta.GetBucket(ctx, name)
}

// ListBuckets returns the buckets opts selects, in byte-wise name order.
func (s *Service) ListBuckets(ctx context.Context, opts meta.ListBucketsOptions) ([]meta.Bucket, error) {
	return s.meta.ListBuckets(ctx, opts)
}

// ListObjects returns a page of a bucket's latest object versions
// (meta.ErrBucketNotFound).
func (s *Service) ListObjects(ctx context.Context, bucket string, opts meta.ListOptions) (meta.ListPage, error) {
	return s.meta.ListObjects(ctx, bucket, opts)
}

// GetUpload returns a multipart upload in progress (meta.ErrUploadNotFound).
func (s *Service) GetUpload(ctx context.Context, bucket, key, uploadID string) (meta.Upload, error) {
	return s.meta.GetUpload(ctx, bucket, key, uploadID)
}

// ListParts returns up to limit parts of an upload in progress numbered
// above after, and whether more follow.
func (s *Service) ListParts(ctx context.Context, bucket, key, uploadID string, after, limit int) ([]meta.Part, bool, error) {
	return s.meta.ListParts(ctx, bucket, key, uploadID, after, limit)
}

// ListUploads returns a page of a bucket's multipart uploads in progress.
func (s *Service) ListUploads(ctx context.Context, bucket string, opts meta.ListUploadsOptions) (meta.UploadsPage, error) {
	return s.meta.ListUploads(ctx, bucket, opts)
}

// ObjectParts returns the parts of the completed upload uploadID (a
// multipart object's meta.Object.UploadID), by number.
func (s *Service) ObjectParts(ctx context.Context, uploadID string) ([]meta.Part, error) {
	return s.meta.ObjectParts(ctx, uploadID)
}
