package worker

import (
	"context"
	"errors"
	"time"

	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
)

// keyState is what the versions phase knows of the key it is in: enough
// to judge the key's next (older) version and to decide, once the key
// ends, on a lone delete marker. It is part of the cursor, so a resumed
// pass judges the rest of the key as the interrupted one would have.
type keyState struct {
	Key string `json:"key"`
	// Since is the creation of the last version seen: when the next,
	// older one became noncurrent.
	Since time.Time `json:"since"`
	// Noncurrent counts the key's noncurrent versions seen (removed or
	// not): the next one's newer noncurrent versions.
	Noncurrent int `json:"noncurrent,omitempty"`
	// Kept counts the key's versions seen and left in place, the latest
	// delete marker excepted.
	Kept int `json:"kept,omitempty"`
	// LatestVersion is the ID of the key's latest version as listed (a
	// delete marker's too): the condition of every removal in the key.
	// Marker is the same ID when the latest is a delete marker.
	LatestVersion string `json:"latestVersion,omitempty"`
	Marker        string `json:"marker,omitempty"`
	// MarkerModified is the latest delete marker's Last-Modified.
	MarkerModified time.Time `json:"markerModified,omitempty"`
}

// unknownLatest is no version ID: the condition of removals in a key whose
// latest version was not listed in this cursor's format (a cursor saved
// by an older JOG), which therefore all fail: such versions are kept
// until the next pass lists the key whole.
const unknownLatest = "\x00unknown"

// latestCond holds a removal in the key to the latest version listed, by
// its version ID (meta.Condition.IfLatestVersion): a version that became
// the latest since it was listed (its successor deleted by ID) is not
// removed as noncurrent, and a delete marker a PUT superseded is not
// removed as lone — even when versions share an ETag and a second.
func (k *keyState) latestCond() meta.Condition {
	if k.LatestVersion == "" {
		return meta.Condition{IfLatestVersion: unknownLatest}
	}
	return meta.Condition{IfLatestVersion: k.LatestVersion}
}

// expireVersions pages through bucket's versions from cur's markers (the
// last version listed and left in place) and removes the noncurrent
// versions a NoncurrentVersionExpiration rule has reached and the lone
// delete markers an ExpiredObjectDeleteMarker rule selects. A bucket
// whose versioning was never set has neither and is skipped.
func (w *Worker) expireVersions(ctx context.Context, bucket string, cur *cursor, rep *Report) error {
	b, err := w.svc.GetBucket(ctx, bucket)
	if err != nil || b.Versioning == "" {
		return err
	}
	if cur.Key == nil {
		cur.Key = &keyState{}
	}
	k := cur.Key
	for {
		rules, err := w.rules(ctx, bucket)
		if err != nil {
			return err
		}
		prefixes := rules.VersionPrefixes()
		prefix, ok := nextPrefix(prefixes, cur.After, cur.Next)
		if !ok {
			return w.endKey(ctx, bucket, k, rules, rep)
		}
		page, err := w.svc.ListObjectVersions(ctx, bucket, meta.ListVersionsOptions{
			Prefix: prefix, KeyMarker: listFrom(cur), VersionIDMarker: cur.VersionID, Limit: w.opts.PageSize})
		if errors.Is(err, meta.ErrVersionMarker) && cur.VersionID != "" {
			// The version marking the position was removed since (by a
			// client): go on after its key; the next pass sees the rest.
			cur.VersionID = ""
			continue
		}
		if err != nil {
			return err
		}
		now := w.opts.Now()
		for _, v := range page.Versions {
			rep.Scanned++
			if v.Key != k.Key {
				if err := w.endKey(ctx, bucket, k, rules, rep); err != nil {
					return err
				}
				*k = keyState{Key: v.Key}
			}
			removed, err := w.version(ctx, bucket, k, v, rules, now, rep)
			if err != nil {
				return err
			}
			if !removed {
				// The next page starts after the last version left in
				// place: a removed one can no longer mark a position.
				cur.After, cur.VersionID, cur.Next = v.Key, v.VersionID, ""
			}
		}
		if !page.Truncated || len(page.Versions) == 0 {
			if cur.Next = following(prefixes, prefix); cur.Next == "" {
				return w.endKey(ctx, bucket, k, rules, rep)
			}
			cur.After, cur.VersionID = "", ""
		}
		if err := w.save(ctx, bucket, *cur); err != nil {
			return err
		}
		w.onPage(bucket)
	}
}

// version judges v, the next version of k's key (newest first), and
// removes it when a rule has reached it; true when it was removed.
func (w *Worker) version(ctx context.Context, bucket string, k *keyState, v meta.VersionSummary,
	rules *lifecycle.Rules, now time.Time, rep *Report) (bool, error) {
	since := k.Since
	k.Since = v.LastModified
	if v.IsLatest {
		k.LatestVersion = v.VersionID
		if v.DeleteMarker {
			k.Marker, k.MarkerModified = v.VersionID, v.LastModified // judged when the key ends
		} else {
			k.Kept++
		}
		return false, nil
	}
	newer := k.Noncurrent
	k.Noncurrent++
	if since.IsZero() { // no latest seen: the listing began inside the key
		k.Kept++
		return false, nil
	}
	lo := lifecycle.Object{Key: v.Key, Size: v.Size, LastModified: v.LastModified}
	if !v.DeleteMarker && rules.NoncurrentNeedsTags(lo) { // a delete marker has no tags
		var err error
		if lo.Tags, err = w.tags(ctx, bucket, v.Key, v.VersionID, v.ETag); err != nil {
			return false, err
		}
	}
	at, id, ok := rules.NoncurrentExpiry(lo, since, newer)
	if !ok || now.Before(at) {
		k.Kept++
		return false, nil
	}
	removed, err := w.removeVersion(ctx, bucket, k, v.VersionID)
	if err != nil || !removed {
		k.Kept++
		return false, err
	}
	rep.Noncurrent++
	w.log.Info("lifecycle: noncurrent version expired", "bucket", bucket, "key", v.Key, "version_id", v.VersionID,
		"rule", id, "delete_marker", v.DeleteMarker, "size", v.Size, "noncurrent_since", since.UTC())
	return true, nil
}

// endKey removes k's latest delete marker when no other version of the
// key is left and a rule has reached it (lifecycle.Rules.MarkerExpiry).
func (w *Worker) endKey(ctx context.Context, bucket string, k *keyState, rules *lifecycle.Rules, rep *Report) error {
	if k.Marker == "" || k.Kept > 0 {
		return nil
	}
	at, _, ok := rules.MarkerExpiry(k.Key, k.MarkerModified)
	if !ok || w.opts.Now().Before(at) {
		return nil
	}
	removed, err := w.removeVersion(ctx, bucket, k, k.Marker)
	if err != nil || !removed {
		return err
	}
	rep.Markers++
	w.log.Info("lifecycle: expired object delete marker removed", "bucket", bucket, "key", k.Key, "version_id", k.Marker)
	return nil
}

// removeVersion removes version versionID of k's key for good: the one
// place the versions phase removes anything. Like expire it goes through
// the service's DeleteObject, where object lock's check for every caller
// belongs (a locked version is kept, and logged). It holds only while the
// key's latest version is still the one listed (keyState.latestCond):
// false, and the version kept, when the key changed since.
func (w *Worker) removeVersion(ctx context.Context, bucket string, k *keyState, versionID string) (bool, error) {
	_, err := w.svc.DeleteObject(expiring(ctx), bucket, k.Key, versionID, "", k.latestCond())
	if errors.Is(err, meta.ErrPreconditionFailed) || errors.Is(err, meta.ErrObjectNotFound) {
		w.log.Debug("lifecycle: key changed since listed, version kept", "bucket", bucket, "key", k.Key, "version_id", versionID)
		return false, nil
	}
	if errors.Is(err, meta.ErrObjectLocked) { // object lock keeps it: not an error of the pass
		w.log.Info("lifecycle: version kept by object lock", "bucket", bucket, "key", k.Key, "version_id", versionID)
		return false, nil
	}
	return err == nil, err
}
