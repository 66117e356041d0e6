package metrics

import (
	"context"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/meta"
)

// Stores no backend package defines, reporting statistics through blob's
// and meta's interfaces only. The embedded interfaces are nil: Watch and
// the collectors must call nothing else.
type (
	reportingBlobs struct {
		blob.Store
		stats blob.Stats
	}
	// usageMeta answers the bucket collector from a map of buckets.
	usageMeta struct {
		meta.Store
		buckets []meta.Bucket
		usage   map[string]meta.Usage
	}
	committingMeta struct {
		usageMeta
		stats meta.CommitStats
	}
	pooledMeta struct {
		usageMeta
		stats meta.PoolStats
	}
)

func (b reportingBlobs) Stats() blob.Stats             { return b.stats }
func (m committingMeta) CommitStats() meta.CommitStats { return m.stats }
func (m pooledMeta) PoolStats() meta.PoolStats         { return m.stats }
func (pooledMeta) SumsUsageWithoutQuota()              {}

func (m usageMeta) ListBuckets(context.Context, meta.ListBucketsOptions) ([]meta.Bucket, error) {
	return m.buckets, nil
}

func (m usageMeta) BucketUsage(_ context.Context, bucket string) (meta.Usage, error) {
	return m.usage[bucket], nil
}

// TestWatchCapabilities: Watch finds a store's metrics by the statistics
// it reports, whatever its type: a blob store's, a group-committing
// metadata store's, a pooled one's, whose per-bucket usage covers only
// the buckets with a quota.
func TestWatchCapabilities(t *testing.T) {
	usage := usageMeta{
		buckets: []meta.Bucket{{Name: "plain"}, {Name: "quota", Quota: 1 << 20}},
		usage:   map[string]meta.Usage{"plain": {Bytes: 7, Objects: 1}, "quota": {Bytes: 5, Objects: 2}},
	}
	blobs := reportingBlobs{stats: blob.Stats{FilesWritten: 3, PackedWritten: 4, Reserve: 9}}
	for _, c := range []struct {
		name       string
		meta       meta.Store
		want, none string // a family the store's kind has, and one it has not
		buckets    []string
	}{
		{"commits", committingMeta{usage, meta.CommitStats{WALBytes: 11}},
			"jog_meta_sqlite_wal_bytes", "jog_meta_pg_connections", []string{"plain", "quota"}},
		{"pool", pooledMeta{usage, meta.PoolStats{Idle: 2, Max: 11}},
			"jog_meta_pg_max_connections", "jog_meta_commit_batch_size", []string{"quota"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := New()
			m.Watch(Sources{Blobs: blobs, Meta: c.meta, BucketLimit: 10})
			all, err := m.Gatherer().Gather()
			if err != nil {
				t.Fatal(err)
			}
			fams := map[string]float64{} // a family's (last) value
			got := map[string][]string{} // a family's buckets
			for _, f := range all {
				for _, x := range f.Metric {
					fams[f.GetName()] = x.GetGauge().GetValue() + x.GetCounter().GetValue()
					if l := labelsOf(x); l["bucket"] != "" {
						got[f.GetName()] = append(got[f.GetName()], l["bucket"])
					}
				}
			}
			if fams[c.want] != 11 {
				t.Errorf("%s: %v, want 11", c.want, fams[c.want])
			}
			if _, ok := fams[c.none]; ok {
				t.Errorf("%s present", c.none)
			}
			if fams["jog_disk_reserve_bytes"] != 9 {
				t.Errorf("jog_disk_reserve_bytes: %v, want 9", fams["jog_disk_reserve_bytes"])
			}
			if b := got["jog_bucket_used_bytes"]; !slices.Equal(b, c.buckets) {
				t.Errorf("jog_bucket_used_bytes of %v, want %v", b, c.buckets)
			}
		})
	}
}
