package service

import (
	"context"
	"errors"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/meta"
)

// replicationConfig is the name a bucket's replication configuration is
// stored under (meta.Store.PutBucketConfig), as JSON of
// bucketrepl.Config with each rule's destination resolved.
const replicationConfig = "replication"

// PutBucketReplication stores bucket's replication configuration
// (validated by the caller with bucketrepl.ParseXML), replacing any
// earlier one, once every rule's destination resolves to a configured
// target (bucketrepl.Targets.Bind). The bucket's versioning must be
// Enabled (bucketrepl.ErrNotVersioned), before and after the write: a
// suspension that raced with it removes the configuration again
// (PutBucketVersioning writes, then checks, the other way round).
func (s *Service) PutBucketReplication(ctx context.Context, bucket string, c bucketrepl.Config) error {
	if err := s.replicationNeedsVersioning(ctx, bucket); err != nil {
		return err
	}
	if err := s.replTargets.Bind(&c); err != nil {
		return err
	}
	if err := s.putConfigDoc(ctx, bucket, replicationConfig, c, s.repl.rules.drop); err != nil {
		return err
	}
	if err := s.replicationNeedsVersioning(ctx, bucket); err != nil {
		return errors.Join(err, s.DeleteBucketReplication(ctx, bucket))
	}
	return nil
}

// replicationNeedsVersioning refuses a bucket whose versioning is not
// Enabled.
func (s *Service) replicationNeedsVersioning(ctx context.Context, bucket string) error {
	b, err := s.meta.GetBucket(ctx, bucket)
	switch {
	case err != nil:
		return err
	case b.Versioning != meta.VersioningEnabled:
		return bucketrepl.ErrNotVersioned
	}
	return nil
}

// GetBucketReplication returns bucket's replication configuration as
// stored now (bucketrepl.ErrNoConfig when it has none; NoSuchBucket
// without the bucket).
func (s *Service) GetBucketReplication(ctx context.Context, bucket string) (bucketrepl.Config, error) {
	return getConfigDoc[bucketrepl.Config](ctx, s, bucket, replicationConfig, bucketrepl.ErrNoConfig)
}

// DeleteBucketReplication removes bucket's replication configuration
// (none is fine).
func (s *Service) DeleteBucketReplication(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, replicationConfig, s.repl.rules.drop)
}

// hasReplication reports whether bucket has a replication configuration.
func (s *Service) hasReplication(ctx context.Context, bucket string) (bool, error) {
	_, err := s.meta.GetBucketConfig(ctx, bucket, replicationConfig)
	if errors.Is(err, meta.ErrNoSuchConfig) {
		return false, nil
	}
	return err == nil, err
}

// ReplicationTargets are the targets rules may name.
func (s *Service) ReplicationTargets() bucketrepl.Targets { return s.replTargets }
