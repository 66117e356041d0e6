package worker

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/tagging"
)

// DefaultPageSize is how many keys or uploads a page of a pass holds.
const DefaultPageSize = 1000

// Options tunes a Worker.
type Options struct {
	// Interval is the time from the end of a pass to the start of the
	// next (the first starts at once).
	Interval time.Duration
	// PageSize is the keys or uploads listed at once (DefaultPageSize when
	// 0): the most a pass holds in memory, and how often it records its
	// cursor.
	PageSize int
	// Now is the clock rules are evaluated against (time.Now when nil).
	Now func() time.Time
	// OnPage, when set, is called after each page a pass has applied and
	// recorded, with the bucket's name. Tests stop a pass there.
	OnPage func(bucket string)
}

// Worker applies lifecycle rules; see the package documentation.
type Worker struct {
	svc   *service.Service
	log   *slog.Logger
	opts  Options
	stats stats // Run's passes (stats.go)
}

// New returns a Worker over svc. svc evaluates the rules with its
// lifecycle day (service.Options.LifecycleDay).
func New(svc *service.Service, log *slog.Logger, opts Options) *Worker {
	if opts.PageSize <= 0 {
		opts.PageSize = DefaultPageSize
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Worker{svc: svc, log: log, opts: opts}
}

// Report counts what a pass did.
type Report struct {
	Buckets int // buckets with lifecycle rules
	Resumed int // of them, passes resumed from a stored cursor
	Scanned int // objects, uploads and versions looked at
	Expired int // objects expired
	Aborted int // uploads aborted
	// Noncurrent counts noncurrent versions removed, Markers lone delete
	// markers removed.
	Noncurrent int
	Markers    int
}

// Run makes a pass at once and then every Interval after the previous one
// ended, until ctx is done.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		started := time.Now()
		rep, err := w.Pass(ctx)
		w.stats.add(rep, err, time.Since(started))
		attrs := []any{"buckets", rep.Buckets, "resumed", rep.Resumed, "scanned", rep.Scanned,
			"expired", rep.Expired, "aborted", rep.Aborted,
			"noncurrent_expired", rep.Noncurrent, "markers_removed", rep.Markers, "took", time.Since(started).Round(time.Millisecond)}
		switch {
		case ctx.Err() != nil:
			w.log.Info("lifecycle pass stopped by shutdown: it resumes at the next start", attrs...)
			return
		case err != nil:
			w.log.Error("lifecycle pass failed", append(attrs, "err", err)...)
		case rep.Expired+rep.Aborted+rep.Noncurrent+rep.Markers > 0:
			w.log.Info("lifecycle pass done", attrs...)
		default:
			w.log.Debug("lifecycle pass done", attrs...)
		}
		t.Reset(w.opts.Interval)
	}
}

// Pass applies every bucket's rules once. A bucket that fails is logged
// and skipped (its cursor keeps its place); the error returned is the
// last such failure, or ctx's.
func (w *Worker) Pass(ctx context.Context) (Report, error) {
	var rep Report
	var last error
	after := ""
	for {
		const page = 100
		bs, err := w.svc.ListBuckets(ctx, meta.ListBucketsOptions{After: after, Limit: page})
		if err != nil {
			return rep, err
		}
		for _, b := range bs {
			if err := w.bucket(ctx, b.Name, &rep); err != nil {
				if ctx.Err() != nil {
					return rep, ctx.Err()
				}
				if errors.Is(err, meta.ErrBucketNotFound) {
					continue // deleted during its pass
				}
				w.log.Error("lifecycle: bucket not processed", "bucket", b.Name, "err", err)
				last = err
			}
		}
		if len(bs) < page {
			return rep, last
		}
		after = bs[len(bs)-1].Name
	}
}

// Phases of a bucket's pass, in order.
const (
	phaseObjects  = "objects"
	phaseUploads  = "uploads"
	phaseVersions = "versions"
)

// cursor is where a bucket's pass stands, stored after each page.
type cursor struct {
	Phase string `json:"phase"`
	// After is the last key listed (phaseObjects) or the key marker
	// (phaseUploads, phaseVersions); UploadID the upload ID marker,
	// VersionID the version ID marker.
	After     string `json:"after,omitempty"`
	UploadID  string `json:"uploadId,omitempty"`
	VersionID string `json:"versionId,omitempty"`
	// Next, when set, is the prefix the phase is to scan next from its
	// start (the markers above are then empty; scan.go).
	Next string `json:"next,omitempty"`
	// Key is the versions phase's state of the key it is in.
	Key *keyState `json:"key,omitempty"`
}

// bucket applies bucket's rules, from its stored cursor when a pass was
// interrupted.
func (w *Worker) bucket(ctx context.Context, bucket string, rep *Report) error {
	rules, err := w.svc.BucketLifecycle(ctx, bucket)
	if err != nil {
		return err
	}
	doc, err := w.svc.LifecycleCursor(ctx, bucket)
	if err != nil {
		return err
	}
	if rules.Empty() {
		if doc != nil { // the configuration went away mid-pass
			return w.svc.SetLifecycleCursor(ctx, bucket, nil)
		}
		return nil
	}
	rep.Buckets++
	cur := cursor{Phase: phaseObjects}
	if doc != nil {
		if err := json.Unmarshal(doc, &cur); err != nil {
			w.log.Warn("lifecycle: unreadable cursor, starting the bucket over", "bucket", bucket, "err", err)
			cur = cursor{Phase: phaseObjects}
		} else {
			rep.Resumed++
			w.log.Info("lifecycle: resuming an interrupted pass", "bucket", bucket, "phase", cur.Phase, "after", cur.After)
		}
	}
	if cur.Phase == phaseObjects {
		if err := w.expireObjects(ctx, bucket, &cur, rep); err != nil {
			return err
		}
		cur = cursor{Phase: phaseUploads}
		if err := w.save(ctx, bucket, cur); err != nil {
			return err
		}
	}
	if cur.Phase == phaseUploads {
		if err := w.abortUploads(ctx, bucket, &cur, rep); err != nil {
			return err
		}
		cur = cursor{Phase: phaseVersions}
		if err := w.save(ctx, bucket, cur); err != nil {
			return err
		}
	}
	if cur.Phase == phaseVersions {
		if err := w.expireVersions(ctx, bucket, &cur, rep); err != nil {
			return err
		}
	}
	return w.svc.SetLifecycleCursor(ctx, bucket, nil)
}

// save records cur as bucket's cursor.
func (w *Worker) save(ctx context.Context, bucket string, cur cursor) error {
	doc, err := json.Marshal(cur)
	if err != nil {
		return err
	}
	return w.svc.SetLifecycleCursor(ctx, bucket, doc)
}

// rules returns bucket's rules as they are now, or ctx's error once it is
// done. A pass reads them per page (from the service's cache): a changed
// configuration applies from the next page on.
func (w *Worker) rules(ctx context.Context, bucket string) (*lifecycle.Rules, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return w.svc.BucketLifecycle(ctx, bucket)
}

// expireObjects pages through bucket's current objects from cur.After and
// expires those a rule has reached.
func (w *Worker) expireObjects(ctx context.Context, bucket string, cur *cursor, rep *Report) error {
	for {
		rules, err := w.rules(ctx, bucket)
		if err != nil {
			return err
		}
		prefixes := rules.ObjectPrefixes()
		prefix, ok := nextPrefix(prefixes, cur.After, cur.Next)
		if !ok {
			return nil
		}
		page, err := w.svc.ListObjects(ctx, bucket, meta.ListOptions{Prefix: prefix, After: listFrom(cur), Limit: w.opts.PageSize})
		if err != nil {
			return err
		}
		now := w.opts.Now()
		for _, o := range page.Objects {
			rep.Scanned++
			lo := lifecycle.Object{Key: o.Key, Size: o.Size, LastModified: o.LastModified}
			if rules.NeedsTags(lo) {
				if lo.Tags, err = w.tags(ctx, bucket, o.Key, "", o.ETag); err != nil {
					return err
				}
			}
			at, id, ok := rules.Expiry(lo)
			if !ok || now.Before(at) {
				continue
			}
			expired, err := w.expire(ctx, bucket, o, id)
			if err != nil {
				return err
			}
			if expired {
				rep.Expired++
			}
		}
		if !page.Truncated || len(page.Objects) == 0 {
			if cur.Next = following(prefixes, prefix); cur.Next == "" {
				return nil
			}
			cur.After = ""
		} else {
			cur.After, cur.Next = page.Objects[len(page.Objects)-1].Key, ""
		}
		if err := w.save(ctx, bucket, *cur); err != nil {
			return err
		}
		w.onPage(bucket)
	}
}

// tags reads the tags of a listed version (versionID, "" for the current
// object) with ETag etag, which a rule filtering on tags may remove:
// listings do not carry them. A version changed or gone since it was
// listed has none (the removal's condition then spares it anyway).
func (w *Worker) tags(ctx context.Context, bucket, key, versionID, etag string) (map[string]string, error) {
	cur, err := w.svc.HeadObject(ctx, bucket, key, versionID, false)
	if errors.Is(err, meta.ErrObjectNotFound) || err == nil && cur.ETag != etag {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return tagging.ParseStored(cur.Tags).Map(), nil
}

// expire removes the current version of o, which rule expired: the one
// place the worker removes an object. Object lock is enforced by the
// store for every caller: a locked version is kept, logged, and the pass
// goes on (a bucket with object lock is versioned, so expiration writes a
// delete marker there, which a lock allows). The delete goes
// through the service, so that on a versioned bucket it writes a delete
// marker, as S3's expiration does. It holds only while o is still the
// current version listed: false when it was overwritten or removed since.
func (w *Worker) expire(ctx context.Context, bucket string, o meta.ObjectSummary, rule string) (bool, error) {
	cond := meta.Condition{IfMatch: o.ETag, IfMatchLastModified: o.LastModified}
	// On a versioned bucket the delete marker is owned by the expired
	// object's owner.
	_, err := w.svc.DeleteObject(expiring(ctx), bucket, o.Key, "", o.Owner, cond)
	if errors.Is(err, meta.ErrPreconditionFailed) || errors.Is(err, meta.ErrObjectNotFound) {
		w.log.Debug("lifecycle: object changed since listed, not expired", "bucket", bucket, "key", o.Key)
		return false, nil
	}
	if errors.Is(err, meta.ErrObjectLocked) {
		w.log.Info("lifecycle: object locked, not expired", "bucket", bucket, "key", o.Key, "rule", rule)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	w.log.Info("lifecycle: object expired", "bucket", bucket, "key", o.Key, "rule", rule,
		"size", o.Size, "last_modified", o.LastModified.UTC())
	return true, nil
}

// abortUploads pages through bucket's uploads in progress from cur's
// markers and aborts those a rule has reached.
func (w *Worker) abortUploads(ctx context.Context, bucket string, cur *cursor, rep *Report) error {
	for {
		rules, err := w.rules(ctx, bucket)
		if err != nil {
			return err
		}
		prefixes := rules.UploadPrefixes()
		prefix, ok := nextPrefix(prefixes, cur.After, cur.Next)
		if !ok {
			return nil
		}
		page, err := w.svc.ListUploads(ctx, bucket, meta.ListUploadsOptions{
			Prefix: prefix, KeyMarker: listFrom(cur), UploadIDMarker: cur.UploadID, Limit: w.opts.PageSize})
		if err != nil {
			return err
		}
		now := w.opts.Now()
		for _, u := range page.Uploads {
			rep.Scanned++
			at, id, ok := rules.AbortDue(u.Key, u.Initiated)
			if !ok || now.Before(at) {
				continue
			}
			// With the initiation time, an upload completed or aborted
			// since it was listed is no error.
			if err := w.svc.AbortUpload(ctx, bucket, u.Key, u.UploadID, u.Initiated); err != nil {
				return err
			}
			rep.Aborted++
			w.log.Info("lifecycle: incomplete multipart upload aborted", "bucket", bucket, "key", u.Key,
				"upload_id", u.UploadID, "rule", id, "initiated", u.Initiated.UTC())
		}
		if !page.Truncated {
			if cur.Next = following(prefixes, prefix); cur.Next == "" {
				return nil
			}
			cur.After, cur.UploadID = "", ""
		} else {
			cur.After, cur.UploadID, cur.Next = page.NextKeyMarker, page.NextUploadIDMarker, ""
		}
		if err := w.save(ctx, bucket, *cur); err != nil {
			return err
		}
		w.onPage(bucket)
	}
}

func (w *Worker) onPage(bucket string) {
	if w.opts.OnPage != nil {
		w.opts.OnPage(bucket)
	}
}

// expiring marks ctx's removals as the lifecycle's, so that their events
// are LifecycleExpiration:* (internal/notify), not ObjectRemoved:*.
func expiring(ctx context.Context) context.Context {
	return notify.WithRequest(ctx, notify.Request{Lifecycle: true, PrincipalID: "jog-lifecycle"})
}
