package bench

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
)

// listVersionsWorkload pages through the prepared objects with
// ListObjectVersions, each worker on its own key-marker and
// version-id-marker, wrapping around at the end: one operation is one page
// of --list-max-keys versions and delete markers. With --versions and
// --delete-markers the bucket holds noncurrent versions and keys whose
// latest version is a delete marker, which list (ListObjectsV2) must skip.
type listVersionsWorkload struct{}

func (*listVersionsWorkload) Prepare(ctx context.Context, env *Env) error {
	return prepareListing(ctx, env)
}

// versionsCursor is where a worker's listing goes on from.
type versionsCursor struct{ keyMarker, versionIDMarker string }

func (*listVersionsWorkload) Run(ctx context.Context, w *Worker) error {
	cur, _ := w.state.(*versionsCursor)
	if cur == nil {
		cur = &versionsCursor{}
		w.state = cur
	}
	start := time.Now()
	page, err := w.Env.Client.ListObjectVersions(ctx, w.Env.Bucket, w.Env.Prefix+"obj/", cur.keyMarker, cur.versionIDMarker, w.Env.Cfg.ListMaxKeys)
	d := page.Received // to the last byte, as list
	if err != nil {
		d = time.Since(start)
	}
	w.RecordListed(OpListVersions, d, len(page.Versions), err)
	cur.keyMarker, cur.versionIDMarker = page.NextKeyMarker, page.NextVersionIDMarker
	return nil
}

func (*listVersionsWorkload) Cleanup(ctx context.Context, env *Env) error {
	return cleanupListing(ctx, env)
}

// versioned says whether the list workloads' preparation makes a versioned
// bucket.
func versioned(c Config) bool { return c.Versions > 1 || c.DeleteMarkers > 0 }

// markerKey names the m-th key whose latest version is a delete marker:
// beside a live key, so the markers are spread over the listing (key
// <live>-deleted-<m> sorts right after <live>).
func (e *Env) markerKey(m int) string {
	live := m * e.Cfg.Objects / e.Cfg.DeleteMarkers
	return e.key(live) + "-deleted-" + strconv.Itoa(m)
}

// prepareListing writes what the list workloads page through: --objects
// keys, each --versions times (the last write current, the others
// noncurrent), and --delete-markers keys written once and deleted.
// Versioning is turned on first when either is asked for.
func prepareListing(ctx context.Context, env *Env) error {
	c := env.Cfg
	if !versioned(c) {
		_, err := prepareObjects(ctx, env, c.Objects)
		return err
	}
	if err := env.Client.EnableVersioning(ctx, env.Bucket); err != nil {
		return fmt.Errorf("enable versioning on %s: %w", env.Bucket, err)
	}
	writes := max(c.Versions, 1)
	env.Status("preparing %d objects of %v, %d versions each, and %d keys under a delete marker", c.Objects, c.Size, writes, c.DeleteMarkers)
	return inParallel(ctx, c, c.Objects+c.DeleteMarkers, func(rng *rand.Rand, i int) error {
		if i >= c.Objects {
			k := env.markerKey(i - c.Objects)
			if err := env.Client.PutObject(ctx, env.Bucket, k, c.Size.Pick(rng)); err != nil {
				return err
			}
			return env.Client.DeleteObject(ctx, env.Bucket, k)
		}
		for range writes {
			if err := env.Client.PutObject(ctx, env.Bucket, env.key(i), c.Size.Pick(rng)); err != nil {
				return err
			}
		}
		return nil
	})
}

// cleanupListing removes what prepareListing wrote: every version and
// delete marker in a versioned bucket, else the objects.
func cleanupListing(ctx context.Context, env *Env) error {
	if !versioned(env.Cfg) {
		return removeAll(ctx, env)
	}
	env.Status("removing every version under s3://%s/%s", env.Bucket, env.Prefix)
	for {
		// Everything listed is deleted, so each page starts from the
		// beginning again: no marker naming a version that is gone.
		page, err := env.Client.ListObjectVersions(ctx, env.Bucket, env.Prefix, "", "", 1000)
		if err != nil || len(page.Versions) == 0 {
			return err
		}
		err = inParallel(ctx, env.Cfg, len(page.Versions), func(_ *rand.Rand, i int) error {
			v := page.Versions[i]
			return env.Client.DeleteVersion(ctx, env.Bucket, v.Key, v.VersionID)
		})
		if err != nil {
			return err
		}
	}
}
