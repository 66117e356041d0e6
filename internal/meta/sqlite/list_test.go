package sqlite

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// TestGroupedListsConcurrently: a delimited listing holds a read
// connection for its transaction, so many at once on a cold statement
// cache, more than the pool has connections, must still all finish (a
// statement prepared inside the transaction would wait for a connection
// that never comes).
func TestGroupedListsConcurrently(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		o := meta.Object{Bucket: "b", Key: fmt.Sprintf("d%d/k%d", i%4, i), BlobID: fmt.Sprintf("blob%d", i), Size: 1, ETag: "e", LastModified: meta.Now()}
		if i%3 == 0 {
			o.Key = fmt.Sprintf("top%d", i) // a key that stays a key
		}
		if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Page sizes 1..8 give walks and row queries of many shapes.
			page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: g%8 + 1, Delimiter: "/"})
			if err == nil && len(page.Objects)+len(page.CommonPrefixes) != g%8+1 {
				err = fmt.Errorf("page of %d items, want %d", len(page.Objects)+len(page.CommonPrefixes), g%8+1)
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
}
