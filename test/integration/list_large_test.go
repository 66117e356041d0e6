package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// TestAWSList100k uploads 100,000 zero-byte objects through the S3 API and
// walks them with the SDK's ListObjectsV2 paginator, with and without a
// delimiter and with a prefix.
func TestAWSList100k(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000-object listing skipped in -short mode")
	}
	const n, dirs, workers = 100_000, 1000, 32
	srv := testutil.StartServer(t, testutil.WithoutFsync())
	c := itest.PooledAWSClient(t, srv, workers)
	itest.CreateBucket(t, c, "big")
	keys := make([]string, n)
	for i := range n {
		keys[i] = fmt.Sprintf("d%03d/k%06d", i%dirs, i)
	}
	start := time.Now()
	itest.PutMany(t, c, "big", keys, workers, true)
	t.Logf("uploaded %d objects in %v (%.0f PUT/s)", n, time.Since(start).Round(time.Millisecond), n/time.Since(start).Seconds())
	slices.Sort(keys)
	ctx := context.Background()

	walk := func(name string, in *s3.ListObjectsV2Input) (objs, prefixes []string) {
		t.Helper()
		start := time.Now()
		pages := 0
		p := s3.NewListObjectsV2Paginator(c, in)
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			if err != nil {
				t.Fatalf("%s: page %d: %v", name, pages, err)
			}
			pages++
			for _, o := range out.Contents {
				if aws.ToInt64(o.Size) != 0 {
					t.Fatalf("%s: %s has size %d", name, aws.ToString(o.Key), aws.ToInt64(o.Size))
				}
				objs = append(objs, aws.ToString(o.Key))
			}
			for _, cp := range out.CommonPrefixes {
				prefixes = append(prefixes, aws.ToString(cp.Prefix))
			}
			if got := len(out.Contents) + len(out.CommonPrefixes); got != int(aws.ToInt32(out.KeyCount)) {
				t.Fatalf("%s: page %d: KeyCount %d for %d items", name, pages, aws.ToInt32(out.KeyCount), got)
			}
		}
		t.Logf("%s: %d keys + %d common prefixes in %d pages, walked in %v",
			name, len(objs), len(prefixes), pages, time.Since(start).Round(time.Millisecond))
		return objs, prefixes
	}
	strictlySorted := func(name string, s []string) {
		t.Helper()
		for i := 1; i < len(s); i++ {
			if s[i-1] >= s[i] {
				t.Fatalf("%s: out of order or duplicate at %d: %q then %q", name, i, s[i-1], s[i])
			}
		}
	}

	// Flat walk: every key once, in order.
	objs, prefixes := walk("no delimiter", &s3.ListObjectsV2Input{Bucket: aws.String("big")})
	strictlySorted("no delimiter", objs)
	if len(objs) != n || len(prefixes) != 0 || !slices.Equal(objs, keys) {
		t.Fatalf("no delimiter: %d keys, %d prefixes; want exactly the %d uploaded keys", len(objs), len(prefixes), n)
	}

	// Delimiter walk: 1,000 directories, no keys at the top level.
	wantDirs := make([]string, dirs)
	for i := range dirs {
		wantDirs[i] = fmt.Sprintf("d%03d/", i)
	}
	objs, prefixes = walk("delimiter /", &s3.ListObjectsV2Input{Bucket: aws.String("big"), Delimiter: aws.String("/")})
	strictlySorted("delimiter /", prefixes)
	if len(objs) != 0 || !slices.Equal(prefixes, wantDirs) {
		t.Fatalf("delimiter /: %d keys, %d prefixes; want 0 and %d", len(objs), len(prefixes), dirs)
	}
	// The same with small pages: common prefixes page like keys.
	objs, prefixes = walk("delimiter / max-keys 333", &s3.ListObjectsV2Input{Bucket: aws.String("big"), Delimiter: aws.String("/"), MaxKeys: aws.Int32(333)})
	if len(objs) != 0 || !slices.Equal(prefixes, wantDirs) {
		t.Fatalf("delimiter / max-keys 333: %d keys, %d prefixes", len(objs), len(prefixes))
	}

	// Prefix walks.
	var want []string
	for _, k := range keys {
		if strings.HasPrefix(k, "d042/") {
			want = append(want, k)
		}
	}
	objs, prefixes = walk("prefix d042/", &s3.ListObjectsV2Input{Bucket: aws.String("big"), Prefix: aws.String("d042/"), MaxKeys: aws.Int32(7)})
	if len(want) != n/dirs || !slices.Equal(objs, want) || len(prefixes) != 0 {
		t.Fatalf("prefix d042/: %d keys, want %d", len(objs), len(want))
	}
	objs, prefixes = walk("prefix d04 delimiter /", &s3.ListObjectsV2Input{Bucket: aws.String("big"), Prefix: aws.String("d04"), Delimiter: aws.String("/")})
	if len(objs) != 0 || !slices.Equal(prefixes, wantDirs[40:50]) {
		t.Fatalf("prefix d04 delimiter /: %q", prefixes)
	}
	want = want[:0]
	for _, k := range keys {
		if strings.HasPrefix(k, "d9") {
			want = append(want, k)
		}
	}
	objs, _ = walk("prefix d9", &s3.ListObjectsV2Input{Bucket: aws.String("big"), Prefix: aws.String("d9")})
	strictlySorted("prefix d9", objs)
	if len(objs) != n/10 || !slices.Equal(objs, want) {
		t.Fatalf("prefix d9: %d keys, want %d", len(objs), n/10)
	}
}
