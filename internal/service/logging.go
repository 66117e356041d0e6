package service

import (
	"bytes"
	"context"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/policy"
	"github.com/jogstore/jog/internal/meta"
)

// bucketLoggingDoc is the name a bucket's server access logging
// configuration is stored under (meta.BucketStore.PutBucketConfig), as
// JSON of BucketLogging.
const bucketLoggingDoc = "logging"

// ErrNoBucketLogging reports a bucket without logging enabled.
var ErrNoBucketLogging = errors.New("bucket logging not enabled")

// BucketLogging is where a bucket's server access log records go
// (PutBucketLogging's LoggingEnabled): objects named TargetPrefix + a
// date and a unique string in TargetBucket (internal/bucketlog).
type BucketLogging struct {
	TargetBucket string `json:"target"`
	TargetPrefix string `json:"prefix"`
	// Owner is the canonical ID of the source bucket's owner, the first
	// field of every record.
	Owner string `json:"owner"`
	// ByRoot: the root credentials made the configuration. The root may
	// write into every bucket, so what it configures needs no grant of
	// the target's (LogDeliveryAllowed); a Deny still refuses it.
	ByRoot bool `json:"root,omitempty"`
}

// LogDeliveryAllowed reports whether l's target bucket takes key, a log
// object of source bucket's records: its policy allows the logging
// service (authz.LoggingService) s3:PutObject on key, with aws:SourceArn
// the source bucket and aws:SourceAccount the account (decided by a); or,
// short of a Deny of the service, its ACL (ACLs enabled) grants the log
// delivery group WRITE and READ_ACP, or the root made l. PutBucketLogging
// asks before storing l, the delivery before each object: the target's
// policy may have changed since. meta.ErrBucketNotFound without the
// target.
func (s *Service) LogDeliveryAllowed(ctx context.Context, a *authz.Authorizer, source string, l BucketLogging, key string) (bool, error) {
	acc, err := s.BucketAccess(ctx, l.TargetBucket)
	if err != nil {
		return false, err
	}
	switch a.DecideService(authz.LoggingService, "s3:PutObject", authz.ObjectARN(l.TargetBucket, key),
		authz.BucketARN(source), acc.Policy(false)) {
	case policy.Allowed:
		return true, nil
	case policy.ExplicitDeny:
		return false, nil
	}
	return acc.LogDeliveryACL() || l.ByRoot, nil
}

// logNameTime is the date in a log object's name.
const logNameTime = "2006-01-02-15-04-05"

// LogObjectSuffixLen is the length of what LogObjectKey appends to the
// prefix.
const LogObjectSuffixLen = len(logNameTime + "-0123456789ABCDEF")

// LogObjectKey is the key of a log object, as S3 names them:
// prefix + YYYY-mm-DD-HH-MM-SS- (t, UTC) + unique, 16 upper-case hex
// characters.
func LogObjectKey(prefix string, t time.Time, unique string) string {
	return prefix + t.UTC().Format(logNameTime) + "-" + unique
}

// PutBucketLogging enables bucket's server access logging as l says
// (validated by the caller: the target bucket exists and takes the logs,
// LogDeliveryAllowed).
func (s *Service) PutBucketLogging(ctx context.Context, bucket string, l BucketLogging) error {
	return s.putConfigDoc(ctx, bucket, bucketLoggingDoc, l, s.bucketLogging.drop)
}

// GetBucketLogging returns bucket's logging configuration as stored now
// (ErrNoBucketLogging when logging is off).
func (s *Service) GetBucketLogging(ctx context.Context, bucket string) (BucketLogging, error) {
	return getConfigDoc[BucketLogging](ctx, s, bucket, bucketLoggingDoc, ErrNoBucketLogging)
}

// DeleteBucketLogging turns bucket's logging off (off already is fine):
// PutBucketLogging with an empty BucketLoggingStatus.
func (s *Service) DeleteBucketLogging(ctx context.Context, bucket string) error {
	return s.deleteConfigDoc(ctx, bucket, bucketLoggingDoc, s.bucketLogging.drop)
}

// BucketLoggingOf returns where bucket's records go, nil when logging is
// off or there is no such bucket. Answers come from a cache (ConfigCacheTTL:
// the longest a change through another gateway goes unseen), so the
// access log observer costs no query per request.
func (s *Service) BucketLoggingOf(ctx context.Context, bucket string) (*BucketLogging, error) {
	return s.bucketLogging.load(bucket, func() (*BucketLogging, error) {
		l, err := s.GetBucketLogging(ctx, bucket)
		switch {
		case errors.Is(err, ErrNoBucketLogging), errors.Is(err, meta.ErrBucketNotFound):
			return nil, nil
		case err != nil:
			return nil, err
		}
		return &l, nil
	}, func(error) bool { return false })
}

// PutLogObject stores a server access log object: body under key in
// bucket, owned by the bucket's owner, as text/plain. It is the delivery's
// write (internal/bucketlog): through the service, never the S3 edge, so
// that it is not itself logged.
func (s *Service) PutLogObject(ctx context.Context, bucket, key string, body []byte) error {
	b, err := s.meta.GetBucket(ctx, bucket)
	if err != nil {
		return err
	}
	_, err = s.PutObject(ctx, PutInput{
		Bucket: bucket, Key: key, Body: bytes.NewReader(body), Size: int64(len(body)),
		Headers: meta.ContentHeaders{ContentType: "text/plain"}, Owner: b.Owner, Integrity: true,
	})
	return err
}
