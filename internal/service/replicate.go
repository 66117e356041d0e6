package service

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
)

// ReplicationQueue takes the tasks of replicated changes
// (internal/bucketrepl/delivery): Enqueue returns once they are stored
// durably on this gateway, grouped with other requests' (ADR 0031).
type ReplicationQueue interface {
	Enqueue(ctx context.Context, ts []bucketrepl.Task) error
}

// replicator is bucket replication's part of the Service: the queue
// (nil: no target is configured, and the feature costs a nil check per
// write), each bucket's compiled rules, and the enqueues that failed (their
// versions stay PENDING: the queue's sweep finds them).
type replicator struct {
	queue  ReplicationQueue
	rules  *configCache[*bucketrepl.Rules]
	failed atomic.Uint64
}

// replicaKey carries, in a request's context, the version ID a replicated
// write or delete must keep (WithReplica).
type replicaKey struct{}

// WithReplica returns ctx for a write or delete that a source replicates
// here, keeping the source's version ID versionID (bucketrepl.ReplicaHeader,
// checked and authorized by the S3 edge): the version it creates is a
// REPLICA, never replicated onward.
func WithReplica(ctx context.Context, versionID string) context.Context {
	return context.WithValue(ctx, replicaKey{}, versionID)
}

// replicaOf returns the version ID WithReplica put in ctx, "" for none.
func replicaOf(ctx context.Context) string {
	v, _ := ctx.Value(replicaKey{}).(string)
	return v
}

// ErrReplicaVersion refuses a replicated write to a bucket whose
// versioning is not Enabled, or with a version ID JOG cannot keep.
var ErrReplicaVersion = errors.New("a replica's version ID needs a bucket with versioning Enabled and a version ID of this server's form")

// replicaVersion is the version ID a write to bucket b creates: the
// source's for a replica (ctx), else writeVersion's.
func replicaVersion(ctx context.Context, b meta.Bucket) (string, error) {
	v := replicaOf(ctx)
	if v == "" {
		return writeVersion(b), nil
	}
	if b.Versioning != meta.VersioningEnabled || v == meta.NullVersion || !ValidVersionID(v) {
		return "", ErrReplicaVersion
	}
	return v, nil
}

// Replicating reports whether bucket replication delivers (a target is
// configured and the queue runs).
func (s *Service) Replicating() bool { return s.repl.queue != nil }

// ReplicationEnqueueFailures counts the replicated changes whose task
// could not be queued (their versions stay PENDING until the next sweep).
func (s *Service) ReplicationEnqueueFailures() uint64 { return s.repl.failed.Load() }

// bucketReplication returns bucket's compiled replication rules, nil for
// none, from the cache.
func (s *Service) bucketReplication(ctx context.Context, bucket string) (*bucketrepl.Rules, error) {
	return s.repl.rules.load(bucket, func() (*bucketrepl.Rules, error) {
		c, err := s.GetBucketReplication(ctx, bucket)
		if errors.Is(err, bucketrepl.ErrNoConfig) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return bucketrepl.Compile(c), nil
	}, func(err error) bool { return errors.Is(err, meta.ErrBucketNotFound) })
}

// owed returns the task a new version of key (with tags, x-amz-tagging's
// form; marker for a delete marker) is owed by bucket's rules, and
// whether one is: its VersionID, Size and Queued are set once committed
// (replicate). A replica (WithReplica) is owed to no one, nor are the
// lifecycle worker's removals, as in S3 (a destination expires by its own
// rules). A bucket without rules costs a cached lookup; a lookup that
// fails owes nothing and is logged: the write goes on.
func (s *Service) owed(ctx context.Context, bucket, key, tags string, marker bool) (bucketrepl.Task, bool) {
	if s.repl.queue == nil || replicaOf(ctx) != "" || notify.RequestFrom(ctx).Lifecycle {
		return bucketrepl.Task{}, false
	}
	rules, err := s.bucketReplication(ctx, bucket)
	if err != nil {
		s.log.Error("bucket replication: reading the rules", "bucket", bucket, "err", err)
		return bucketrepl.Task{}, false
	}
	if rules == nil {
		return bucketrepl.Task{}, false
	}
	var tm map[string]string
	if rules.NeedsTags() && tags != "" {
		q, _ := url.ParseQuery(tags)
		tm = make(map[string]string, len(q))
		for k, v := range q {
			tm[k] = v[0]
		}
	}
	rule, ok := rules.Match(key, tm)
	if !ok || marker && !rule.ReplicatesDeleteMarkers() {
		return bucketrepl.Task{}, false
	}
	return bucketrepl.Task{Target: rule.Destination.Target, Bucket: bucket, Key: key, Op: bucketrepl.OpPut,
		Dest: rule.Destination.TargetBucket}, true
}

// replicationStatus is the status a new version starts with: PENDING when
// owed, REPLICA for a replica, else none.
func replicationStatus(ctx context.Context, owed bool) string {
	switch {
	case owed:
		return meta.ReplicationPending
	case replicaOf(ctx) != "":
		return meta.ReplicationReplica
	}
	return ""
}

// replicate queues t for the version o just committed, before the request
// is answered. A failure is logged and counted, never returned: the change
// is committed, and its version stays PENDING for the sweep.
func (s *Service) replicate(ctx context.Context, t bucketrepl.Task, versionID string, size int64) {
	t.VersionID, t.Size = versionID, size
	_ = s.enqueue(ctx, t, "task not queued (the version stays PENDING for the next sweep)")
}

// enqueue stores t (stamped with the time) in the replication queue; a
// failure is counted and logged with what it means (why).
func (s *Service) enqueue(ctx context.Context, t bucketrepl.Task, why string) error {
	t.Queued = time.Now().UnixNano()
	err := s.repl.queue.Enqueue(context.WithoutCancel(ctx), []bucketrepl.Task{t})
	if err != nil {
		s.repl.failed.Add(1)
		s.log.Warn("bucket replication: "+why, "bucket", t.Bucket, "key", t.Key, "version", t.VersionID, "op", t.Op, "err", err)
	}
	return err
}

// ErrReplicationBacklog refuses a version delete whose replication task
// cannot be stored (the queue is full, or its disk failed): a version
// delete leaves no row to find again, so it is refused rather than
// answered and forgotten.
var ErrReplicationBacklog = errors.New("the replication queue cannot take the delete")

// replicateDelete queues the removal of version versionID of key, for the
// rule that selects key (by key alone: a version delete leaves no row
// whose tags a later sweep could read), if any. It runs BEFORE the delete
// commits: a version delete leaves no PENDING row for the start-up sweep
// to find, so a crash between the commit and the enqueue would lose it.
// A task whose delete then fails (a condition, a lock set meanwhile), or
// never commits, is dropped by the sender, which finds the version still
// on the source.
func (s *Service) replicateDelete(ctx context.Context, bucket, key, versionID string, cond meta.Condition) error {
	t, ok := s.owed(ctx, bucket, key, "", false)
	if !ok {
		return nil
	}
	// A version its lock protects will not go: no task, which would hold
	// its lane until the sender gave up on it.
	if l, err := s.ObjectLockOf(ctx, bucket, key, versionID); err == nil && l.Protects(time.Now(), cond.BypassGovernance) {
		return nil
	}
	t.Op, t.VersionID = bucketrepl.OpDelete, versionID
	if err := s.enqueue(ctx, t, "version delete refused, its task not queued"); err != nil {
		return fmt.Errorf("%w: %w", ErrReplicationBacklog, err)
	}
	return nil
}

// SetReplication sets a version's replication status from from to status
// (meta.ObjectStore.SetReplication): the sender's claim and its result.
func (s *Service) SetReplication(ctx context.Context, bucket, key, versionID, from, status string) (bool, error) {
	return s.meta.SetReplication(ctx, bucket, key, versionID, from, status)
}

// PendingReplication returns a page of bucket's PENDING versions
// (meta.ObjectStore.PendingReplication): the sweep's.
func (s *Service) PendingReplication(ctx context.Context, bucket, afterKey string, limit int) ([]meta.Object, string, error) {
	return s.meta.PendingReplication(ctx, bucket, afterKey, limit)
}

// ReplicatedBuckets returns the buckets with a replication configuration.
func (s *Service) ReplicatedBuckets(ctx context.Context) ([]string, error) {
	var names []string
	after := ""
	for {
		bs, err := s.meta.ListBuckets(ctx, meta.ListBucketsOptions{After: after, Limit: 1000})
		if err != nil {
			return nil, err
		}
		for _, b := range bs {
			if ok, err := s.hasReplication(ctx, b.Name); err != nil {
				return nil, err
			} else if ok {
				names = append(names, b.Name)
			}
		}
		if len(bs) < 1000 {
			return names, nil
		}
		after = bs[len(bs)-1].Name
	}
}

// TaskFor returns the task bucket's rules owe version o now (its tags read
// when a rule filters on them and o came without), and whether one is
// owed: what the sweep and resync queue for versions already written.
func (s *Service) TaskFor(ctx context.Context, o meta.Object) (bucketrepl.Task, bool, error) {
	rules, err := s.bucketReplication(ctx, o.Bucket)
	if err != nil || rules == nil {
		return bucketrepl.Task{}, false, err
	}
	if rules.NeedsTags() && !o.DeleteMarker && o.Tags == "" {
		full, err := s.meta.GetObject(ctx, o.Bucket, o.Key, o.VersionID)
		if err != nil {
			return bucketrepl.Task{}, false, err
		}
		o.Tags = full.Tags
	}
	t, ok := s.owed(ctx, o.Bucket, o.Key, o.Tags, o.DeleteMarker)
	t.VersionID, t.Size, t.Queued = o.VersionID, o.Size, time.Now().UnixNano()
	return t, ok, nil
}

// resyncDoc is the name a bucket's resync progress is stored under
// (bucketrepl.Resync, as JSON).
const resyncDoc = "replication-resync"

// ReplicationResyncer is what a ReplicationQueue that can resync offers
// (internal/bucketrepl/delivery): Resync starts, or resumes from
// from.After, the walk of bucket's versions in the background.
type ReplicationResyncer interface {
	Resync(ctx context.Context, bucket string, from bucketrepl.Resync) error
}

// StartResync starts the resync of bucket's replication: every version
// its rules select that was never replicated, or FAILED, is queued again
// (in each key's order, after the newest version already replicated). One
// that is running goes on (its progress is returned).
func (s *Service) StartResync(ctx context.Context, bucket string) (bucketrepl.Resync, error) {
	rs, ok := s.repl.queue.(ReplicationResyncer)
	if !ok {
		return bucketrepl.Resync{}, bucketrepl.ErrNoDelivery
	}
	if _, err := s.GetBucketReplication(ctx, bucket); err != nil {
		return bucketrepl.Resync{}, err
	}
	if p, err := s.ResyncProgress(ctx, bucket); err == nil && p.Running() {
		return p, rs.Resync(ctx, bucket, p)
	}
	p := bucketrepl.Resync{Started: meta.Now()}
	if err := s.PutResyncProgress(ctx, bucket, p); err != nil {
		return bucketrepl.Resync{}, err
	}
	return p, rs.Resync(ctx, bucket, p)
}

// ResyncProgress returns the progress of bucket's last resync
// (bucketrepl.ErrNoResync when there was none).
func (s *Service) ResyncProgress(ctx context.Context, bucket string) (bucketrepl.Resync, error) {
	return getConfigDoc[bucketrepl.Resync](ctx, s, bucket, resyncDoc, bucketrepl.ErrNoResync)
}

// PutResyncProgress stores bucket's resync progress.
func (s *Service) PutResyncProgress(ctx context.Context, bucket string, p bucketrepl.Resync) error {
	return s.putConfigDoc(ctx, bucket, resyncDoc, p, func(string) {})
}

// replicaHeld returns the version a replicated write or delete (ctx:
// WithReplica) would create when this server holds it already: a source
// sends a version again after a crash between its send and its record of
// it, and the repeat must change nothing — neither the bytes nor which
// version is the latest. held is false for any other request.
func (s *Service) replicaHeld(ctx context.Context, bucket, key string) (o meta.Object, marker, held bool) {
	v := replicaOf(ctx)
	if v == "" {
		return meta.Object{}, false, false
	}
	o, err := s.meta.GetObject(ctx, bucket, key, v)
	var dm *meta.DeleteMarkerError
	switch {
	case errors.As(err, &dm):
		return meta.Object{Bucket: bucket, Key: key, VersionID: v, DeleteMarker: true}, true, true
	case err != nil:
		return meta.Object{}, false, false
	}
	return o, false, true
}
