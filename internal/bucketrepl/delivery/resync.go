package delivery

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/jogstore/jog/internal/bucketrepl"
	"github.com/jogstore/jog/internal/meta"
)

// Resyncer is what a resync reads and records, beyond Source: the service's
// methods of the same names.
type Resyncer interface {
	ListObjectVersions(ctx context.Context, bucket string, opts meta.ListVersionsOptions) (meta.VersionsPage, error)
	ResyncProgress(ctx context.Context, bucket string) (bucketrepl.Resync, error)
	PutResyncProgress(ctx context.Context, bucket string, p bucketrepl.Resync) error
}

// resyncSaveEvery is how often a running resync stores its progress.
const resyncSaveEvery = 2 * time.Second

// Resync walks bucket's versions in the background from p.After on,
// queueing those still owed (service.ReplicationResyncer); a walk of the
// same bucket already running here goes on alone.
func (rq *Queue) Resync(_ context.Context, bucket string, p bucketrepl.Resync) error {
	rq.mu.Lock()
	defer rq.mu.Unlock()
	if rq.resyncing[bucket] || rq.closed {
		return nil
	}
	rq.resyncing[bucket] = true
	rq.wg.Add(1)
	go func() {
		defer rq.wg.Done()
		rq.resync(bucket, p)
		rq.mu.Lock()
		delete(rq.resyncing, bucket)
		rq.mu.Unlock()
	}()
	return nil
}

// resumeResyncs goes on with the resyncs a stop interrupted.
func (rq *Queue) resumeResyncs(ctx context.Context, buckets []string) {
	for _, b := range buckets {
		p, err := rq.rs.ResyncProgress(ctx, b)
		if err == nil && p.Running() {
			rq.log.Info("bucket replication: resuming the resync", "bucket", b, "after", p.After, "queued", p.Queued)
			_ = rq.Resync(ctx, b, p)
		}
	}
}

// resync is the walk: key by key, each key's versions oldest first.
func (rq *Queue) resync(bucket string, p bucketrepl.Resync) {
	ctx := rq.ctx
	opts := meta.ListVersionsOptions{KeyMarker: p.After, Limit: 1000}
	var key []meta.VersionSummary // the versions of the key being read, newest first
	saved := time.Now()
	finish := func(err error) {
		if err != nil {
			if ctx.Err() != nil {
				return // stopped: the next start goes on from p.After
			}
			p.Error = err.Error()
		}
		p.Ended = meta.Now()
		if err := rq.rs.PutResyncProgress(context.WithoutCancel(ctx), bucket, p); err != nil {
			rq.log.Warn("bucket replication: storing the resync's end", "bucket", bucket, "err", err)
		}
		rq.log.Info("bucket replication: resync ended", "bucket", bucket, "scanned", p.Scanned, "queued", p.Queued, "err", p.Error)
	}
	for {
		page, err := rq.rs.ListObjectVersions(ctx, bucket, opts)
		if err != nil {
			finish(err)
			return
		}
		for _, v := range page.Versions {
			if len(key) > 0 && key[0].Key != v.Key {
				n, err := rq.resyncKey(ctx, bucket, key)
				if err != nil {
					finish(err)
					return
				}
				p.After, p.Scanned, p.Queued = key[0].Key, p.Scanned+int64(len(key)), p.Queued+int64(n)
				key = key[:0]
			}
			key = append(key, v)
		}
		if time.Since(saved) > resyncSaveEvery {
			if err := rq.rs.PutResyncProgress(ctx, bucket, p); err != nil {
				finish(err)
				return
			}
			saved = time.Now()
		}
		if !page.Truncated {
			break
		}
		opts.KeyMarker, opts.VersionIDMarker = page.NextKeyMarker, page.NextVersionIDMarker
	}
	if len(key) > 0 {
		n, err := rq.resyncKey(ctx, bucket, key)
		if err != nil {
			finish(err)
			return
		}
		p.After, p.Scanned, p.Queued = key[0].Key, p.Scanned+int64(len(key)), p.Queued+int64(n)
	}
	finish(nil)
}

// resyncKey queues the versions of one key (vs, newest first) that are
// owed: those newer than its newest version already replicated (an older
// one sent now would arrive after it), never replicated or FAILED; each
// claimed by setting it PENDING first, so two gateways resuming one
// resync queue a version once.
func (rq *Queue) resyncKey(ctx context.Context, bucket string, vs []meta.VersionSummary) (int, error) {
	newer := vs
	for i, v := range vs {
		if v.Replication == meta.ReplicationCompleted || v.Replication == meta.ReplicationReplica {
			newer = vs[:i]
			break
		}
	}
	var ts []bucketrepl.Task
	for _, v := range slices.Backward(newer) {
		if v.Replication != "" && v.Replication != meta.ReplicationFailed {
			continue // PENDING: queued already
		}
		o := meta.Object{Bucket: bucket, Key: v.Key, VersionID: v.VersionID, Size: v.Size, DeleteMarker: v.DeleteMarker}
		t, ok, err := rq.src.TaskFor(ctx, o)
		if errors.Is(err, meta.ErrObjectNotFound) {
			continue // removed meanwhile
		}
		if err != nil {
			return 0, err
		}
		if !ok {
			continue
		}
		claimed, err := rq.src.SetReplication(ctx, bucket, v.Key, v.VersionID, v.Replication, meta.ReplicationPending)
		if err != nil {
			return 0, err
		}
		if claimed {
			ts = append(ts, t)
		}
	}
	return len(ts), rq.Enqueue(ctx, ts)
}
