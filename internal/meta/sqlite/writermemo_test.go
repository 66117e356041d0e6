package sqlite

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// TestWriterMemoRollback: a write refused after it inserted its directory
// (over the bucket's quota) leaves no directory in the writer's memo, so
// the next write into that directory records it: alone (the transaction
// rolled back) and inside a batch (the write's savepoint rolled back).
func TestWriterMemoRollback(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "q", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetBucketQuota(ctx, "q", 100); err != nil {
		t.Fatal(err)
	}
	put := func(key string, size int64) func(tx querier) error {
		return func(tx querier) error {
			b, err := bucketRow(ctx, tx, "q")
			if err != nil {
				return err
			}
			_, err = installObject(ctx, tx, b, meta.Object{Bucket: "q", Key: key, BlobID: key, Size: size, ETag: "e", LastModified: meta.Now()}, meta.Condition{})
			return err
		}
	}
	run := func(fns ...func(tx querier) error) []error {
		batch := make([]*writeReq, len(fns))
		for i, fn := range fns {
			batch[i] = &writeReq{fn: fn, done: make(chan error, 1)}
		}
		s.commitBatch(batch)
		errs := make([]error, len(batch))
		for i, r := range batch {
			errs[i] = <-r.done
		}
		return errs
	}
	if errs := run(put("alone/big", 1000)); !errors.Is(errs[0], meta.ErrQuotaExceeded) {
		t.Fatalf("over the quota alone: %v", errs)
	}
	if errs := run(put("alone/small", 10)); errs[0] != nil {
		t.Fatal(errs[0])
	}
	if errs := run(put("batch/big", 1000), put("batch/small", 10)); !errors.Is(errs[0], meta.ErrQuotaExceeded) || errs[1] != nil {
		t.Fatalf("a batch: %v", errs)
	}
	page, err := s.ListObjects(context.Background(), "q", meta.ListOptions{Limit: 1000, Delimiter: "/"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"alone/", "batch/"}; !slices.Equal(page.CommonPrefixes, want) {
		t.Errorf("common prefixes %q, want %q", page.CommonPrefixes, want)
	}
}
