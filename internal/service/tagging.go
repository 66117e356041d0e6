package service

import (
	"context"

	"github.com/jogstore/jog/internal/tagging"
)

// bucketTags is the name a bucket's tag set is stored under
// (meta.BucketStore.PutBucketConfig), as JSON of tagging.Set.
const bucketTags = "tagging"

func noDrop(string) {}

// PutBucketTagging replaces bucket's tag set (validated by the caller with
// tagging.ParseXML).
func (s *Service) PutBucketTagging(ctx context.Context, bucket string, tags tagging.Set) error {
	if tags == nil {
		tags = tagging.Set{}
	}
	return s.putConfigDoc(ctx, bucket, bucketTags, tags, noDrop)
}

// GetBucketTagging returns bucket's tag set (tagging.ErrNoTagSet when it
// has none).
func (s *Service) GetBucketTagging(ctx context.Context, bucket string) (tagging.Set, error) {
	return getConfigDoc[tagging.Set](ctx, s, bucket, bucketTags, tagging.ErrNoTagSet)
}

// DeleteBucketTagging removes bucket's tag set (none is fine).
func (s *Service) DeleteBucketTagging(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, bucketTags, noDrop)
}

// PutObjectTags replaces the tags (x-amz-tagging form, "" for none) of
// key's latest version (versionID "") or the given one, and returns that
// version's ID.
func (s *Service) PutObjectTags(ctx context.Context, bucket, key, versionID, tags string) (string, error) {
	return s.meta.PutObjectTags(ctx, bucket, key, versionID, tags)
}
