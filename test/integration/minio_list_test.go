package integration

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
)

// mcListKeys returns ~300 keys in nested "directories", with characters that
// need escaping in URLs and XML, and non-ASCII ones.
func mcListKeys() []string {
	tops := []string{
		"a/", "a/b/", "a/b/c/", "a//", "dir/", "ünïcødé/", "日本/", "sp ace/", "plus+/", "pct%25/",
		"amp&lt;/", "q?x=1/", "", "z~/", "tab\t/",
	}
	leaves := []string{
		"file", "file.txt", "File", "x y", "+", "%", "&<>\"'", "é", "🙂", "a", "a/", "_",
		"-dash", ".dot", "..", "#h", "=eq", "semi;", "tilde~", "back\\slash",
	}
	var keys []string
	for i, top := range tops {
		for j, leaf := range leaves {
			k := top + leaf
			if (i+j)%4 == 0 {
				k += fmt.Sprintf("-%d", j)
			}
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// mcExpectList is the reference listing: keys after startAfter under prefix,
// rolled up at "/" unless recursive, in byte order (keys and common prefixes
// merged; minio-go yields each page's keys before its prefixes, so callers
// compare sorted).
func mcExpectList(keys []string, prefix, startAfter string, recursive bool) []string {
	var out []string
	seen := map[string]bool{}
	for _, k := range keys { // keys are sorted
		if !strings.HasPrefix(k, prefix) || k <= startAfter {
			continue
		}
		if !recursive {
			if i := strings.Index(k[len(prefix):], "/"); i >= 0 {
				cp := k[:len(prefix)+i+1]
				if cp == startAfter {
					// A marker naming a common prefix (as NextMarker and
					// continuation tokens do) skips all of it.
					continue
				}
				if !seen[cp] {
					seen[cp] = true
					out = append(out, cp)
				}
				continue
			}
		}
		out = append(out, k)
	}
	return out
}

func TestMinioList(t *testing.T) {
	_, c, bucket := mcSetup(t, testutil.WithoutFsync())
	ctx := context.Background()
	keys := mcListKeys()
	if len(keys) < 290 {
		t.Fatalf("only %d distinct keys", len(keys))
	}
	etags := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for _, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			body := []byte("body of " + k)
			info, err := c.PutObject(ctx, bucket, k, strings.NewReader(string(body)), int64(len(body)), mcPutOpts())
			if err != nil {
				t.Errorf("PutObject %q: %v", k, err)
				return
			}
			mu.Lock()
			etags[k] = info.ETag
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	type listCase struct {
		prefix, startAfter string
		recursive          bool
	}
	cases := []listCase{
		{"", "", true},
		{"", "", false},
		{"a/", "", true},
		{"a/", "", false},
		{"a/b", "", false},
		{"a//", "", false},
		{"ünïcødé/", "", true},
		{"sp ace/x", "", true},
		{"pct%25/", "", false},
		{"no-such-prefix/", "", true},
		{"", "dir/", true},
		{"", "dir/file", false}, // inside a common prefix: dir/ rolls up again
		{"", "m", false},
		{"a/", "a/b/c/file", true},
		{"a/", "a/b/", false},
		{"", "\U0010FFFF", true}, // after every key
	}
	for _, tc := range cases {
		want := mcExpectList(keys, tc.prefix, tc.startAfter, tc.recursive)
		for _, v1 := range []bool{false, true} {
			for _, maxKeys := range []int{0, 7} {
				name := fmt.Sprintf("prefix=%q startAfter=%q recursive=%v v1=%v maxKeys=%d",
					tc.prefix, tc.startAfter, tc.recursive, v1, maxKeys)
				var got []string
				for o := range c.ListObjects(ctx, bucket, minio.ListObjectsOptions{
					Prefix: tc.prefix, StartAfter: tc.startAfter, Recursive: tc.recursive,
					UseV1: v1, MaxKeys: maxKeys, WithVersions: false,
				}) {
					if o.Err != nil {
						t.Fatalf("%s: %v", name, o.Err)
					}
					got = append(got, o.Key)
					if !tc.recursive && strings.Contains(strings.TrimPrefix(o.Key, tc.prefix), "/") {
						continue // a common prefix: no size or ETag
					}
					if o.ETag != etags[o.Key] || o.Size != int64(len("body of "+o.Key)) || o.LastModified.IsZero() {
						t.Errorf("%s: entry %q etag %q size %d mtime %v", name, o.Key, o.ETag, o.Size, o.LastModified)
					}
					if o.StorageClass != "STANDARD" {
						t.Errorf("%s: entry %q storage class %q", name, o.Key, o.StorageClass)
					}
				}
				var gotKeys, gotPrefixes []string
				for _, k := range got {
					if !tc.recursive && strings.Contains(strings.TrimPrefix(k, tc.prefix), "/") {
						gotPrefixes = append(gotPrefixes, k)
					} else {
						gotKeys = append(gotKeys, k)
					}
				}
				if !slices.IsSorted(gotKeys) || !slices.IsSorted(gotPrefixes) {
					t.Errorf("%s: keys or prefixes out of byte order: %q", name, mcHead(got))
				}
				slices.Sort(got)
				if !slices.Equal(got, want) {
					t.Errorf("%s:\n got %d entries %q\nwant %d entries %q", name, len(got), mcHead(got), len(want), mcHead(want))
				}
			}
		}
	}
}

func mcHead(s []string) []string {
	if len(s) > 12 {
		return append(slices.Clone(s[:12]), "…")
	}
	return s
}
