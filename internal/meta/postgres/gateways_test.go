package postgres

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// gateways opens n stores (n pools: n gateways) on one new database.
func gateways(t *testing.T, n int) []*Store {
	t.Helper()
	url := openURL(t)
	stores := make([]*Store, n)
	for i := range stores {
		s, err := Open(t.Context(), url, Options{MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		stores[i] = s
	}
	return stores
}

// TestGatewaysIfNoneMatch: writers on two gateways racing conditional
// PUTs (If-None-Match: *) to one key, round after round on new keys: in
// every round exactly one wins, and the key holds the winner's version.
func TestGatewaysIfNoneMatch(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	const rounds, writers = 20, 16
	for r := range rounds {
		key := fmt.Sprintf("race-%d", r)
		var wg sync.WaitGroup
		var mu sync.Mutex
		var winners []string
		start := make(chan struct{})
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				blob := fmt.Sprintf("blob-%d-%d", r, w)
				o := meta.Object{Bucket: "b", Key: key, BlobID: blob, Size: 1, ETag: blob, LastModified: meta.Now()}
				<-start
				freed, err := gws[w%2].PutObject(ctx, o, meta.Condition{IfNoneMatchAny: true})
				switch {
				case err == nil:
					mu.Lock()
					winners = append(winners, blob)
					mu.Unlock()
				case !errors.Is(err, meta.ErrPreconditionFailed):
					t.Errorf("round %d, writer %d: %v", r, w, err)
				}
				if len(freed) != 0 {
					t.Errorf("round %d, writer %d freed %q", r, w, freed)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(winners) != 1 {
			t.Fatalf("round %d: %d conditional PUTs won (%q), want exactly 1", r, len(winners), winners)
		}
		for _, gw := range gws {
			if o, err := gw.GetObject(ctx, "b", key, ""); err != nil || o.BlobID != winners[0] {
				t.Errorf("round %d: the key holds %q, %v; want the winner %q", r, o.BlobID, err, winners[0])
			}
		}
	}
}

// TestGatewaysQuota: writers on two gateways PUT new objects into a
// bucket whose quota holds some of them, and overwrite others: the usage
// never passes the quota, every PUT that fits passes, and the kept usage
// is the sum over the versions.
func TestGatewaysQuota(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	const writers, each, size, fit = 16, 8, 100, 40
	if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: "q", Region: "us-east-1", CreatedAt: meta.Now(), Quota: fit * size}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	passed := 0
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				o := meta.Object{Bucket: "q", Key: fmt.Sprintf("w%02d-%d", w, i), Size: size, ETag: "e", LastModified: meta.Now(),
					BlobID: fmt.Sprintf("blob-%d-%d", w, i)}
				_, err := gws[(w+i)%2].PutObject(ctx, o, meta.Condition{})
				switch {
				case err == nil:
					mu.Lock()
					passed++
					mu.Unlock()
				case !errors.Is(err, meta.ErrQuotaExceeded):
					t.Errorf("PutObject: %v", err)
				}
				u, err := gws[i%2].BucketUsage(ctx, "q")
				used := u.Bytes
				if err != nil || used > fit*size {
					t.Errorf("BucketUsage = %d, %v; the quota is %d", used, err, fit*size)
				}
			}
		}()
	}
	wg.Wait()
	if passed != fit {
		t.Errorf("%d PUTs passed, want exactly %d", passed, fit)
	}
	wantUsage(t, gws[1], "q", fit*size)
}

// TestQuotaSetLater: a quota set on a bucket that has versions starts from
// their sum, and usage is kept from then on; removing it and setting it
// again starts over from the sum.
func TestQuotaSetLater(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	ctx := t.Context()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	put := func(key, version string, size int64) error {
		_, err := s.PutObject(ctx, meta.Object{Bucket: "b", Key: key, VersionID: version, Size: size, ETag: "e",
			LastModified: meta.Now(), BlobID: "blob-" + key + version}, meta.Condition{})
		return err
	}
	for _, p := range []struct {
		key, version string
		size         int64
	}{{"a", "v1", 100}, {"a", "v2", 200}, {"b", "", 50}} {
		if err := put(p.key, p.version, p.size); err != nil {
			t.Fatal(err)
		}
	}
	wantUsage(t, s, "b", 350)
	if err := s.SetBucketQuota(ctx, "b", 400); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, s, "b", 350)
	if err := put("c", "", 51); !errors.Is(err, meta.ErrQuotaExceeded) {
		t.Errorf("a PUT past a quota set later: %v", err)
	}
	if err := put("c", "", 50); err != nil {
		t.Errorf("a PUT that fits: %v", err)
	}
	if err := s.SetBucketQuota(ctx, "b", 0); err != nil {
		t.Fatal(err)
	}
	if err := put("d", "", 1000); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteObject(ctx, "b", "a", "v1", meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, s, "b", 1300)
	if err := s.SetBucketQuota(ctx, "b", 1300); err != nil {
		t.Fatal(err)
	}
	var kept int64
	if err := s.pool.QueryRow(ctx, "SELECT used_bytes FROM buckets WHERE name = 'b'").Scan(&kept); err != nil || kept != 1300 {
		t.Errorf("used_bytes = %d, %v; want 1300", kept, err)
	}
	if err := put("e", "", 1); !errors.Is(err, meta.ErrQuotaExceeded) {
		t.Errorf("a PUT past the quota set again: %v", err)
	}

	// A bucket with a quota from the start: a noncurrent version (moved
	// from objects, which the triggers count as a removal and an
	// insertion) and a delete marker are counted as they weigh.
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "v", Region: "us-east-1", CreatedAt: meta.Now(), Quota: 1000}); err != nil {
		t.Fatal(err)
	}
	for i, size := range []int64{100, 200} {
		o := meta.Object{Bucket: "v", Key: "k", VersionID: fmt.Sprint("v", i), Size: size, ETag: "e", LastModified: meta.Now()}
		if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutObject(ctx, meta.Object{Bucket: "v", Key: "m", VersionID: "m1", DeleteMarker: true, LastModified: meta.Now()}, meta.Condition{}); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, s, "v", 300)
}

func wantUsage(t *testing.T, s *Store, bucket string, want int64) {
	t.Helper()
	if got, err := s.BucketUsage(t.Context(), bucket); err != nil || got.Bytes != want {
		t.Errorf("BucketUsage(%q) = %d, %v; want %d", bucket, got.Bytes, err, want)
	}
}

// TestGatewaysDeleteBucketRace: one gateway deletes a bucket while
// another puts into it, round after round: either the delete wins and the
// PUT finds no bucket, or the PUT wins and the delete finds it not empty;
// never does a PUT land in a deleted bucket or fail otherwise.
func TestGatewaysDeleteBucketRace(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	deleted := 0
	for r := range 30 {
		if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
			t.Fatalf("round %d: %v", r, err)
		}
		var putErr, delErr error
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, putErr = gws[1].PutObject(ctx, meta.Object{Bucket: "b", Key: "k", BlobID: "blob", Size: 1, ETag: "e", LastModified: meta.Now()}, meta.Condition{})
		}()
		go func() {
			defer wg.Done()
			_, delErr = gws[0].DeleteBucket(ctx, "b")
		}()
		wg.Wait()
		switch {
		case putErr == nil && errors.Is(delErr, meta.ErrBucketNotEmpty):
			if _, err := gws[0].DeleteObject(ctx, "b", "k", "", meta.Condition{}); err != nil {
				t.Fatal(err)
			}
			if _, err := gws[0].DeleteBucket(ctx, "b"); err != nil {
				t.Fatal(err)
			}
		case errors.Is(putErr, meta.ErrBucketNotFound) && delErr == nil:
			deleted++
		default:
			t.Fatalf("round %d: PUT %v, DeleteBucket %v", r, putErr, delErr)
		}
	}
	t.Logf("the delete won %d of 30 rounds", deleted)
}

// TestBucketChangesWaitForWrites: SetBucketVersioning, EnableObjectLock
// and SetBucketQuota wait for a write to the bucket in flight (one that
// holds the bucket's row FOR KEY SHARE, as lockForWrite takes it), so
// the state that write read holds until it commits.
func TestBucketChangesWaitForWrites(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: "b", Region: "us-east-1", CreatedAt: meta.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		change func() error
	}{
		{"SetBucketVersioning", func() error { return gws[1].SetBucketVersioning(ctx, "b", meta.VersioningEnabled) }},
		{"EnableObjectLock", func() error { return gws[1].EnableObjectLock(ctx, "b") }},
		{"SetBucketQuota", func() error { return gws[1].SetBucketQuota(ctx, "b", 1000) }},
	} {
		before, err := gws[0].GetBucket(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		tx, err := gws[0].pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gws[0].lockForWrite(ctx, tx, "b", "k"); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.change() }()
		// Wait until the change waits for the bucket's row.
		for {
			var waiting bool
			err := gws[0].pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
				WHERE wait_event_type = 'Lock' AND query LIKE '%FROM buckets WHERE name = $1 FOR UPDATE')`).Scan(&waiting)
			if err != nil {
				t.Fatal(err)
			}
			if waiting {
				break
			}
			select {
			case err := <-done:
				t.Fatalf("%s did not wait for the write in flight: %v", c.name, err)
			default:
			}
		}
		if now, err := gws[0].GetBucket(ctx, "b"); err != nil || now != before {
			t.Errorf("%s changed the bucket while a write was in flight: %+v, %v", c.name, now, err)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
	}
	if b, err := gws[0].GetBucket(ctx, "b"); err != nil || b.Versioning != meta.VersioningEnabled || !b.ObjectLock || b.Quota != 1000 {
		t.Errorf("GetBucket = %+v, %v", b, err)
	}
}

// TestKeyLockWrap: keyLockSQL (bucketLockID) maps a bucket ID to the lock's int4 as Go's
// int32 conversion does, past 2³¹ and 2³² too.
func TestKeyLockWrap(t *testing.T) {
	s := openFresh(t)
	defer s.Close()
	for _, id := range []int64{1, 2, 1<<31 - 1, 1 << 31, 1<<32 - 1, 1 << 32, 1<<32 + 5, 1<<62 + 12345} {
		var got int32
		q := "SELECT " + bucketLockID + " FROM (VALUES ($1::bigint)) AS b (id)"
		if err := s.pool.QueryRow(t.Context(), q, id).Scan(&got); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got != int32(id) {
			t.Errorf("bucket %d: lock %d, want %d", id, got, int32(id))
		}
	}
}

// TestGatewaysVersionChurn: writers on two gateways PUT versions, write
// delete markers and delete versions of a few keys of a versioned bucket
// with a quota, all at once. Afterwards every key's versions are
// consistent (CheckVersions finds nothing: one latest version a key, a
// latest delete marker newest), no write failed (a duplicate seq or a
// second live row would), and the kept usage is the sum over the
// versions.
func TestGatewaysVersionChurn(t *testing.T) {
	gws := gateways(t, 2)
	ctx := t.Context()
	if err := gws[0].CreateBucket(ctx, meta.Bucket{Name: "v", Region: "us-east-1", CreatedAt: meta.Now(), Quota: 1 << 40}); err != nil {
		t.Fatal(err)
	}
	if err := gws[0].SetBucketVersioning(ctx, "v", meta.VersioningEnabled); err != nil {
		t.Fatal(err)
	}
	const writers, each = 12, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			gw := gws[w%2]
			for i := range each {
				key := fmt.Sprint("k", (w+i)%3)
				vid := fmt.Sprintf("v%02d-%03d", w, i)
				var err error
				switch i % 4 {
				case 0, 1:
					_, err = gw.PutObject(ctx, meta.Object{Bucket: "v", Key: key, VersionID: vid, BlobID: vid, Size: int64(w*100 + i),
						ETag: vid, LastModified: meta.Now()}, meta.Condition{})
				case 2:
					_, err = gw.PutObject(ctx, meta.Object{Bucket: "v", Key: key, VersionID: vid, DeleteMarker: true, LastModified: meta.Now()}, meta.Condition{})
				case 3:
					_, err = gw.DeleteObject(ctx, "v", key, "", meta.Condition{}) // the latest, whichever it is
				}
				if err != nil {
					t.Errorf("writer %d, step %d: %v", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	err := gws[1].CheckVersions(ctx, func(p meta.VersionProblem) { t.Errorf("CheckVersions: %+v", p) })
	if err != nil {
		t.Fatal(err)
	}
	var kept, sum int64
	if err := gws[0].pool.QueryRow(ctx, "SELECT used_bytes, "+usageOf("id")+" FROM buckets WHERE name = 'v'").Scan(&kept, &sum); err != nil {
		t.Fatal(err)
	}
	if kept != sum {
		t.Errorf("used_bytes = %d, the versions sum to %d", kept, sum)
	}
}
