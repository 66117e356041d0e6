package sqlite

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// BenchmarkPutObject measures one unconditional PutObject of a new key (one
// write transaction), with the production synchronous=FULL and, for
// comparison, with synchronous=OFF (no fsync).
func BenchmarkPutObject(b *testing.B) {
	for _, mode := range []string{"FULL", "OFF"} {
		b.Run("synchronous="+mode, func(b *testing.B) {
			s, _ := openTemp(b)
			defer s.Close()
			ctx := context.Background()
			if _, err := s.w.ExecContext(ctx, "PRAGMA synchronous="+mode); err != nil {
				b.Fatal(err)
			}
			if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
				b.Fatal(err)
			}
			o := meta.Object{Bucket: "b", Size: 1, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: meta.Now(),
				Headers: meta.ContentHeaders{ContentType: "application/octet-stream"}}
			for i := 0; b.Loop(); i++ {
				o.Key, o.BlobID = fmt.Sprintf("dir%03d/key%08d", i%1000, i), fmt.Sprintf("blob%08d", i)
				if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("overwrite", func(b *testing.B) {
		s, _ := openTemp(b)
		defer s.Close()
		ctx := context.Background()
		if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
			b.Fatal(err)
		}
		o := meta.Object{Bucket: "b", Key: "hot", Size: 1, ETag: "e", LastModified: meta.Now()}
		for i := 0; b.Loop(); i++ {
			o.BlobID = fmt.Sprintf("blob%08d", i)
			if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkListObjects1000 measures one page of 1000 items over 100,000 keys
// in 1,000 directories of 100: plain keys; common prefixes by the delimiter
// "/" (the directory index) under no prefix and under one that is not a
// directory; one directory's worth under a prefix; and common prefixes by
// another delimiter (the skip scan).
func BenchmarkListObjects1000(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
		b.Fatal(err)
	}
	// Load directly, in one transaction (with what installObject adds to
	// the directory index): 100,000 PutObject calls would take far longer
	// than the benchmark.
	const n = 100_000
	err := s.write(ctx, func(tx querier) error {
		id, err := bucketID(ctx, tx, "b")
		if err != nil {
			return err
		}
		for i := range n {
			key := fmt.Sprintf("d%03d/f%05d", i/100, i)
			if _, err := tx.ExecContext(ctx, `INSERT INTO objects
			(bucket_id, key, version_id, is_latest, blob_id, size, etag, mtime, storage_class, owner, headers, parent)
			VALUES (?, ?, 'null', 1, ?, ?, ?, ?, '', 'owner', '{}', ?)`, id, key, fmt.Sprintf("blob%06d", i),
				i, "d41d8cd98f00b204e9800998ecf8427e", meta.Now().UnixMilli(), parentOf(key)); err != nil {
				return err
			}
			if err := addKey(ctx, tx, id, key); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name string
		opts meta.ListOptions
		want int
	}{
		{"keys", meta.ListOptions{Limit: 1000, After: "d499/f49950"}, 1000},
		{"prefixes", meta.ListOptions{Limit: 1000, Delimiter: "/"}, 1000},
		{"prefix+delimiter", meta.ListOptions{Limit: 1000, Prefix: "d512/", Delimiter: "/"}, 100},
		{"prefixes/partial-prefix", meta.ListOptions{Limit: 1000, Prefix: "d", Delimiter: "/"}, 1000},
		{"prefixes/skip-scan", meta.ListOptions{Limit: 1000, Delimiter: "/f"}, 1000},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				page, err := s.ListObjects(ctx, "b", c.opts)
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

// BenchmarkPutObjectParallel measures PutObject of new keys from 32
// goroutines at once with synchronous=FULL: what many concurrent PUTs cost
// the single writer.
func BenchmarkPutObjectParallel(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
		b.Fatal(err)
	}
	var seq atomic.Int64
	b.SetParallelism(16) // 16 × GOMAXPROCS goroutines
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := seq.Add(1)
			o := meta.Object{Bucket: "b", Key: fmt.Sprintf("dir%03d/key%08d", i%1000, i), BlobID: fmt.Sprintf("blob%08d", i),
				Size: 1, ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: meta.Now()}
			if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
