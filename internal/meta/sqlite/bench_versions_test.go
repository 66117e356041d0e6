package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// BenchmarkListVersioned measures ADR 0012's requirement: a ListObjectsV2
// page over 100,000 live keys costs the same whether or not the bucket
// also holds 1,000,000 noncurrent versions (10 per live key) and 100,000
// keys whose latest version is a delete marker (each over one noncurrent
// version), interleaved with the live keys. "plain" is the bucket without
// them; "versioned" the bucket with them.
func BenchmarkListVersioned(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	ctx := context.Background()
	const n = 100_000
	for _, name := range []string{"plain", "versioned"} {
		if err := s.CreateBucket(ctx, meta.Bucket{Name: name, CreatedAt: meta.Now()}); err != nil {
			b.Fatal(err)
		}
		err := s.write(ctx, func(tx querier) error {
			id, err := bucketID(ctx, tx, name)
			if err != nil {
				return err
			}
			now := meta.Now().UnixMilli()
			for i := range n {
				key := fmt.Sprintf("d%03d/f%05d", i/100, i)
				if _, err := tx.ExecContext(ctx, `INSERT INTO objects
					(bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, storage_class, owner, headers, parent)
					VALUES (?, ?, ?, 1, ?, ?, ?, ?, '', 'owner', '{}', ?)`, id, key, fmt.Sprintf("v%06d-10", i), fmt.Sprintf("blob%06d", i),
					i, "d41d8cd98f00b204e9800998ecf8427e", now, parentOf(key)); err != nil {
					return err
				}
				if err := addKey(ctx, tx, id, key); err != nil {
					return err
				}
				if name == "plain" {
					continue
				}
				for v := range 10 {
					if _, err := tx.ExecContext(ctx, `INSERT INTO object_versions
						(bucket_id, key, seq, version_id, blob_id, size, etag, mtime, headers)
						VALUES (?, ?, ?, ?, ?, ?, 'd41d8cd98f00b204e9800998ecf8427e', ?, '{}')`,
						id, key, v+1, fmt.Sprintf("v%06d-%02d", i, v), fmt.Sprintf("blob%06d-%02d", i, v), i, now); err != nil {
						return err
					}
				}
				gone := key + "-gone" // sorts right after key: a delete marker over one version
				if _, err := tx.ExecContext(ctx, `INSERT INTO object_versions
					(bucket_id, key, seq, version_id, is_latest, delete_marker, blob_id, size, etag, mtime)
					VALUES (?1, ?2, 1, 'old', 0, 0, 'b-old', 1, 'e', ?3), (?1, ?2, 2, 'dm', 1, 1, NULL, 0, '', ?3)`,
					id, gone, now); err != nil {
					return err
				}
			}
			if name == "versioned" {
				_, err = tx.ExecContext(ctx, "UPDATE buckets SET has_versions = 1, versioning = 'Enabled' WHERE id = ?", id)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		opts meta.ListOptions
		want int
	}{
		{"keys", meta.ListOptions{Limit: 1000, After: "d499/f49950"}, 1000},
		{"prefix+delimiter", meta.ListOptions{Limit: 1000, Prefix: "d512/", Delimiter: "/"}, 100},
		{"prefixes", meta.ListOptions{Limit: 1000, Delimiter: "/"}, 1000},
	} {
		for _, bucket := range []string{"plain", "versioned"} {
			b.Run(c.name+"/"+bucket, func(b *testing.B) {
				for b.Loop() {
					page, err := s.ListObjects(ctx, bucket, c.opts)
					if err != nil {
						b.Fatal(err)
					}
					if got := len(page.Objects) + len(page.CommonPrefixes); got != c.want {
						b.Fatalf("page of %d items, want %d", got, c.want)
					}
				}
			})
		}
	}
	b.Run("versions/versioned", func(b *testing.B) {
		for b.Loop() {
			page, err := s.ListObjectVersions(ctx, "versioned", meta.ListVersionsOptions{Limit: 1000, KeyMarker: "d499/f49950"})
			if err != nil {
				b.Fatal(err)
			}
			if len(page.Versions) != 1000 {
				b.Fatalf("page of %d versions", len(page.Versions))
			}
		}
	})
}

// BenchmarkPutVersioned compares PutObject on a bucket without versions
// (the null version replaced) and with versioning (a new version each
// time, the previous one moved to object_versions): new keys, and
// overwrites of 1,000 keys in turn. The versioned bucket holds versions
// before the loop (has_versions), so every write pays its lookups.
func BenchmarkPutVersioned(b *testing.B) {
	for _, c := range []struct {
		name      string
		overwrite bool
		versioned bool
		fsync     bool
	}{
		{"new/unversioned", false, false, false}, {"new/versioned", false, true, false},
		{"overwrite/unversioned", true, false, false}, {"overwrite/versioned", true, true, false},
		{"new/unversioned/fsync", false, false, true}, {"new/versioned/fsync", false, true, true},
		{"overwrite/unversioned/fsync", true, false, true}, {"overwrite/versioned/fsync", true, true, true},
	} {
		overwrite, versioned := c.overwrite, c.versioned
		{
			b.Run(c.name, func(b *testing.B) {
				// Without fsync (synchronous=OFF) the difference of the
				// statements shows; with it, what a PUT pays.
				ctx := context.Background()
				s, err := OpenWith(ctx, filepath.Join(b.TempDir(), "meta.db"), Options{NoSync: !c.fsync})
				if err != nil {
					b.Fatal(err)
				}
				defer s.Close()
				if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
					b.Fatal(err)
				}
				o := meta.Object{Bucket: "b", Size: 1, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: meta.Now(),
					Headers: meta.ContentHeaders{ContentType: "application/octet-stream"}}
				if versioned { // the bucket holds versions already
					if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
						b.Fatal(err)
					}
					o.Key, o.VersionID = "seed", "v0"
					put := func() {
						if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
							b.Fatal(err)
						}
					}
					put()
					o.VersionID = "v1"
					put()
				}
				for i := 0; b.Loop(); i++ {
					if overwrite {
						o.Key = fmt.Sprintf("dir%03d/key%04d", i%10, i%1000)
					} else {
						o.Key = fmt.Sprintf("dir%03d/key%08d", i%1000, i)
					}
					o.BlobID = fmt.Sprintf("blob%08d", i)
					if versioned {
						o.VersionID = fmt.Sprintf("%016x", i)
					}
					if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLockedVersions measures what object lock adds to the metadata
// of a write and of a delete by version ID (ADR 0013), without fsync so
// the statements show: "versioned" is a bucket with versioning Enabled,
// "locked" one created with object lock whose writes carry a retention
// (GOVERNANCE, already expired when deleted, so the delete goes through
// guardVersion's read and removes the lock row).
func BenchmarkLockedVersions(b *testing.B) {
	for _, locked := range []bool{false, true} {
		name := map[bool]string{false: "versioned", true: "locked"}[locked]
		ctx := context.Background()
		s, err := OpenWith(ctx, filepath.Join(b.TempDir(), "meta.db"), Options{NoSync: true})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		bucket := meta.Bucket{Name: "b", CreatedAt: meta.Now(), ObjectLock: locked}
		if err := s.CreateBucket(ctx, bucket); err != nil {
			b.Fatal(err)
		}
		if !locked {
			if err := s.SetBucketVersioning(ctx, "b", meta.VersioningEnabled); err != nil {
				b.Fatal(err)
			}
		}
		o := meta.Object{Bucket: "b", Size: 1, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: meta.Now(),
			Headers: meta.ContentHeaders{ContentType: "application/octet-stream"}}
		n := 0
		b.Run("put/"+name, func(b *testing.B) {
			for b.Loop() {
				o.Key, o.VersionID, o.BlobID = fmt.Sprintf("dir%03d/key%08d", n%1000, n), fmt.Sprintf("%016x", n), fmt.Sprintf("blob%08d", n)
				if locked { // expires at once: the delete below may remove it
					o.Lock = &meta.ObjectLock{Mode: meta.LockGovernance, RetainUntil: meta.Now().Add(time.Millisecond)}
				}
				if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
					b.Fatal(err)
				}
				n++
			}
		})
		time.Sleep(10 * time.Millisecond) // every retention has expired
		b.Run("delete-version/"+name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				if i >= n {
					b.Skip("more deletes than versions written")
				}
				key, version := fmt.Sprintf("dir%03d/key%08d", i%1000, i), fmt.Sprintf("%016x", i)
				if _, err := s.DeleteObject(ctx, "b", key, version, meta.Condition{}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
