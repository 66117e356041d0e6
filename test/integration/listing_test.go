package integration

// ListObjects V1 and V2: prefixes, delimiters, paging, start-after,
// fetch-owner and argument checks, through aws-sdk-go-v2 and minio-go.

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/minio/minio-go/v7"

	"github.com/jogstore/jog/internal/testutil"
	"github.com/jogstore/jog/test/integration/itest"
)

// awsListed is one listing page flattened: keys and common prefixes.
type awsListed struct {
	keys, prefixes []string
	truncated      bool
	keyCount       int32
}

func awsListV2(t *testing.T, c *s3.Client, in *s3.ListObjectsV2Input) (awsListed, *s3.ListObjectsV2Output) {
	t.Helper()
	out, err := c.ListObjectsV2(context.Background(), in)
	if err != nil {
		t.Fatalf("ListObjectsV2(prefix %q delim %q): %v", aws.ToString(in.Prefix), aws.ToString(in.Delimiter), err)
	}
	var l awsListed
	for _, o := range out.Contents {
		l.keys = append(l.keys, aws.ToString(o.Key))
	}
	for _, p := range out.CommonPrefixes {
		l.prefixes = append(l.prefixes, aws.ToString(p.Prefix))
	}
	l.truncated, l.keyCount = aws.ToBool(out.IsTruncated), aws.ToInt32(out.KeyCount)
	return l, out
}

// awsExpectListing computes what S3 lists for keys under prefix and
// delimiter: keys and common prefixes, merged in byte order (the order in
// which paging returns them), each with whether it is a prefix.
func awsExpectListing(keys []string, prefix, delimiter, after string) []string {
	seen := map[string]bool{}
	var out []string
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		item := k
		if delimiter != "" {
			if i := strings.Index(k[len(prefix):], delimiter); i >= 0 {
				item = k[:len(prefix)+i+len(delimiter)]
			}
		}
		if item <= after || seen[item] {
			continue
		}
		seen[item] = true
		out = append(out, item)
	}
	slices.Sort(out)
	return out
}

var awsListKeys = []string{
	"a.txt", "dir1/a", "dir1/b", "dir1/sub/c", "dir2/x", "dir2/y/z", "e",
	"photos/2024/jan/1.jpg", "photos/2024/feb/2.jpg", "photos/2025/x.jpg", "z/",
}

func TestAWSListObjectsV2PrefixDelimiter(t *testing.T) {
	_, c := itest.StartBucket(t, "list")
	itest.PutMany(t, c, "list", awsListKeys, 4, false)
	sorted := slices.Sorted(slices.Values(awsListKeys))

	cases := []struct {
		prefix, delim string
		maxKeys       int32
		keys, cps     []string
		truncated     bool
	}{
		{"", "", 0, sorted, nil, false},
		{"dir1/", "", 0, []string{"dir1/a", "dir1/b", "dir1/sub/c"}, nil, false},
		{"", "/", 0, []string{"a.txt", "e"}, []string{"dir1/", "dir2/", "photos/", "z/"}, false},
		{"dir1/", "/", 0, []string{"dir1/a", "dir1/b"}, []string{"dir1/sub/"}, false},
		{"photos/2024/", "/", 0, nil, []string{"photos/2024/feb/", "photos/2024/jan/"}, false},
		{"photos/", "/", 0, nil, []string{"photos/2024/", "photos/2025/"}, false},
		{"dir", "/", 0, nil, []string{"dir1/", "dir2/"}, false},
		{"z/", "/", 0, []string{"z/"}, nil, false},
		{"", ".", 0, []string{"dir1/a", "dir1/b", "dir1/sub/c", "dir2/x", "dir2/y/z", "e", "z/"},
			[]string{"a.", "photos/2024/feb/2.", "photos/2024/jan/1.", "photos/2025/x."}, false},
		{"", "/", 3, []string{"a.txt"}, []string{"dir1/", "dir2/"}, true},
		{"", "", 3, sorted[:3], nil, true},
		{"nothing", "", 0, nil, nil, false},
		{"dir1/sub/c/", "", 0, nil, nil, false},
		{"", "dir", 0, []string{"a.txt", "e", "photos/2024/feb/2.jpg", "photos/2024/jan/1.jpg", "photos/2025/x.jpg", "z/"}, []string{"dir"}, false},
	}
	for _, tc := range cases {
		in := &s3.ListObjectsV2Input{Bucket: aws.String("list")}
		if tc.prefix != "" {
			in.Prefix = aws.String(tc.prefix)
		}
		if tc.delim != "" {
			in.Delimiter = aws.String(tc.delim)
		}
		if tc.maxKeys != 0 {
			in.MaxKeys = aws.Int32(tc.maxKeys)
		}
		l, out := awsListV2(t, c, in)
		name := fmt.Sprintf("prefix %q delimiter %q max %d", tc.prefix, tc.delim, tc.maxKeys)
		if !slices.Equal(l.keys, tc.keys) || !slices.Equal(l.prefixes, tc.cps) || l.truncated != tc.truncated {
			t.Errorf("%s: keys %q prefixes %q truncated %v, want %q %q %v", name, l.keys, l.prefixes, l.truncated, tc.keys, tc.cps, tc.truncated)
		}
		if int(l.keyCount) != len(tc.keys)+len(tc.cps) {
			t.Errorf("%s: KeyCount %d, want %d", name, l.keyCount, len(tc.keys)+len(tc.cps))
		}
		if aws.ToString(out.Prefix) != tc.prefix || aws.ToString(out.Delimiter) != tc.delim || aws.ToString(out.Name) != "list" {
			t.Errorf("%s: echoed prefix %q delimiter %q name %q", name, aws.ToString(out.Prefix), aws.ToString(out.Delimiter), aws.ToString(out.Name))
		}
		wantMax := tc.maxKeys
		if wantMax == 0 {
			wantMax = 1000
		}
		if aws.ToInt32(out.MaxKeys) != wantMax {
			t.Errorf("%s: MaxKeys %d, want %d", name, aws.ToInt32(out.MaxKeys), wantMax)
		}
		if (out.NextContinuationToken != nil) != tc.truncated {
			t.Errorf("%s: NextContinuationToken %v with IsTruncated %v", name, out.NextContinuationToken, tc.truncated)
		}
	}

	// Listing entries describe the objects.
	l, out := awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("list"), Prefix: aws.String("dir1/a")})
	if len(l.keys) != 1 {
		t.Fatalf("prefix dir1/a: %q", l.keys)
	}
	o := out.Contents[0]
	if aws.ToInt64(o.Size) != int64(len("dir1/a")) || aws.ToString(o.ETag) != itest.ETag([]byte("dir1/a")) ||
		o.StorageClass != types.ObjectStorageClassStandard || o.LastModified == nil || o.Owner != nil {
		t.Errorf("entry: size %d ETag %s class %q modified %v owner %v", aws.ToInt64(o.Size), aws.ToString(o.ETag), o.StorageClass, o.LastModified, o.Owner)
	}

	// max-keys=0 lists nothing.
	l, _ = awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("list"), MaxKeys: aws.Int32(0)})
	if len(l.keys)+len(l.prefixes) != 0 || l.keyCount != 0 {
		t.Errorf("max-keys 0 listed %q %q", l.keys, l.prefixes)
	}
}

// awsPagingKeys returns ~200 keys mixing flat keys, shallow and deep
// directories, and names that sort around the delimiter.
func awsPagingKeys() []string {
	var keys []string
	for i := range 120 {
		keys = append(keys, fmt.Sprintf("k%03d", i))
	}
	for d := range 12 {
		for j := range 5 {
			keys = append(keys, fmt.Sprintf("dir%02d/f%d", d, j))
		}
	}
	keys = append(keys, "dir05/deep/x", "dir05/deep/y", "dir05-sibling", "dir05.dot", "dir05", "k050/inner", "k050/inner/2",
		"zz/", "zz/a", "zz/b/", "!first", "~last")
	return keys
}

func TestAWSListObjectsV2Paging(t *testing.T) {
	_, c := itest.StartBucket(t, "paging")
	keys := awsPagingKeys()
	itest.PutMany(t, c, "paging", keys, 8, true)

	for _, delim := range []string{"", "/"} {
		for _, prefix := range []string{"", "dir05", "k05"} {
			want := awsExpectListing(keys, prefix, delim, "")
			for maxKeys := int32(1); maxKeys <= 7; maxKeys++ {
				name := fmt.Sprintf("delimiter %q prefix %q max-keys %d", delim, prefix, maxKeys)
				var got []string
				var token *string
				for page := 0; ; page++ {
					if page > len(want)+1 {
						t.Fatalf("%s: paging does not end", name)
					}
					in := &s3.ListObjectsV2Input{Bucket: aws.String("paging"), MaxKeys: aws.Int32(maxKeys), ContinuationToken: token}
					if delim != "" {
						in.Delimiter = aws.String(delim)
					}
					if prefix != "" {
						in.Prefix = aws.String(prefix)
					}
					l, out := awsListV2(t, c, in)
					n := len(l.keys) + len(l.prefixes)
					if int(l.keyCount) != n {
						t.Fatalf("%s page %d: KeyCount %d, %d items", name, page, l.keyCount, n)
					}
					if aws.ToString(out.ContinuationToken) != aws.ToString(token) {
						t.Fatalf("%s page %d: ContinuationToken echoed %q, sent %q", name, page, aws.ToString(out.ContinuationToken), aws.ToString(token))
					}
					// Keys and prefixes of one page merge into the global order.
					items := append(append([]string{}, l.keys...), l.prefixes...)
					slices.Sort(items)
					got = append(got, items...)
					last := len(got) == len(want)
					if l.truncated == last && len(got) <= len(want) {
						t.Fatalf("%s page %d: IsTruncated %v after %d of %d items", name, page, l.truncated, len(got), len(want))
					}
					if !l.truncated {
						if out.NextContinuationToken != nil {
							t.Fatalf("%s: last page has a NextContinuationToken", name)
						}
						break
					}
					if n != int(maxKeys) {
						t.Fatalf("%s page %d: %d items on a truncated page", name, page, n)
					}
					token = out.NextContinuationToken
					if aws.ToString(token) == "" {
						t.Fatalf("%s page %d: truncated without NextContinuationToken", name, page)
					}
				}
				if !slices.Equal(got, want) {
					t.Fatalf("%s:\n got %q\nwant %q", name, got, want)
				}
			}
		}
	}

	// The SDK paginator walks the same listing.
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: aws.String("paging"), MaxKeys: aws.Int32(13)})
	var got []string
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range out.Contents {
			got = append(got, aws.ToString(o.Key))
		}
	}
	if want := slices.Sorted(slices.Values(keys)); !slices.Equal(got, want) {
		t.Fatalf("paginator: got %d keys, want %d", len(got), len(want))
	}
}

func TestAWSListObjectsV2StartAfter(t *testing.T) {
	_, c := itest.StartBucket(t, "after")
	keys := awsPagingKeys()
	itest.PutMany(t, c, "after", keys, 8, true)

	for _, tc := range []struct{ after, delim, prefix string }{
		{"k050", "", ""},
		{"k0505", "", ""},    // between keys
		{"dir03/f2", "", ""}, // inside a directory
		{"dir03/", "/", ""},  // a common prefix: skip all of it
		{"dir05/", "/", "dir05"},
		{"~", "", ""},  // before the last key
		{"~~", "", ""}, // after everything
		{"", "", ""},
		{"a", "/", "k"},  // before the prefix
		{"zzz", "", "k"}, // after the prefix
	} {
		want := awsExpectListing(keys, tc.prefix, tc.delim, tc.after)
		// Page through with a small page size; StartAfter only on the first.
		in := &s3.ListObjectsV2Input{Bucket: aws.String("after"), MaxKeys: aws.Int32(4), StartAfter: aws.String(tc.after),
			Delimiter: aws.String(tc.delim), Prefix: aws.String(tc.prefix)}
		var got []string
		for {
			l, out := awsListV2(t, c, in)
			if aws.ToString(out.StartAfter) != tc.after {
				t.Errorf("StartAfter echoed %q, want %q", aws.ToString(out.StartAfter), tc.after)
			}
			items := append(l.keys, l.prefixes...)
			slices.Sort(items)
			got = append(got, items...)
			if !l.truncated {
				break
			}
			in.ContinuationToken = out.NextContinuationToken
		}
		if !slices.Equal(got, want) {
			t.Errorf("start-after %q delimiter %q prefix %q:\n got %q\nwant %q", tc.after, tc.delim, tc.prefix, got, want)
		}
	}
}

func TestAWSListObjectsV2FetchOwner(t *testing.T) {
	_, c := itest.StartBucket(t, "owner")
	itest.Put(t, c, "owner", "k", []byte("x"))
	ctx := context.Background()
	for _, fetch := range []*bool{nil, aws.Bool(false)} {
		out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("owner"), FetchOwner: fetch})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Contents) != 1 || out.Contents[0].Owner != nil {
			t.Errorf("FetchOwner %v: owner %+v present", fetch, out.Contents[0].Owner)
		}
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("owner"), FetchOwner: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 1 || out.Contents[0].Owner == nil || aws.ToString(out.Contents[0].Owner.ID) == "" ||
		aws.ToString(out.Contents[0].Owner.DisplayName) != testutil.AccessKey {
		t.Fatalf("FetchOwner true: owner %+v", out.Contents[0].Owner)
	}
	// The owner is the same as ListBuckets reports.
	lb, err := c.ListBuckets(ctx, &s3.ListBucketsInput{})
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(lb.Owner.ID) != aws.ToString(out.Contents[0].Owner.ID) {
		t.Errorf("owner ID %q differs from ListBuckets owner %q", aws.ToString(out.Contents[0].Owner.ID), aws.ToString(lb.Owner.ID))
	}
	// ListObjects (V1) always includes the owner.
	v1, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("owner")})
	if err != nil {
		t.Fatal(err)
	}
	if len(v1.Contents) != 1 || v1.Contents[0].Owner == nil || aws.ToString(v1.Contents[0].Owner.ID) != aws.ToString(lb.Owner.ID) {
		t.Errorf("V1 owner %+v", v1.Contents[0].Owner)
	}
}

func TestAWSListObjectsMaxKeysCap(t *testing.T) {
	srv, _ := itest.Start(t, testutil.WithoutFsync())
	c := itest.PooledAWSClient(t, srv, 16)
	itest.CreateBucket(t, c, "cap")
	var keys []string
	for i := range 1005 {
		keys = append(keys, fmt.Sprintf("key-%05d", i))
	}
	itest.PutMany(t, c, "cap", keys, 16, true)

	for _, mk := range []*int32{nil, aws.Int32(1000), aws.Int32(1001), aws.Int32(5000), aws.Int32(1 << 30)} {
		l, out := awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("cap"), MaxKeys: mk})
		if len(l.keys) != 1000 || !l.truncated || l.keyCount != 1000 || aws.ToInt32(out.MaxKeys) != 1000 {
			t.Fatalf("max-keys %v: %d keys, truncated %v, KeyCount %d, MaxKeys %d; want 1000 keys, truncated",
				mk, len(l.keys), l.truncated, l.keyCount, aws.ToInt32(out.MaxKeys))
		}
		if !slices.Equal(l.keys, keys[:1000]) {
			t.Fatal("first page is not the first 1000 keys")
		}
		l, _ = awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("cap"), MaxKeys: mk, ContinuationToken: out.NextContinuationToken})
		if !slices.Equal(l.keys, keys[1000:]) || l.truncated {
			t.Fatalf("max-keys %v second page: %q truncated %v", mk, l.keys, l.truncated)
		}
	}
	v1, err := c.ListObjects(context.Background(), &s3.ListObjectsInput{Bucket: aws.String("cap"), MaxKeys: aws.Int32(2000)})
	if err != nil {
		t.Fatal(err)
	}
	if len(v1.Contents) != 1000 || !aws.ToBool(v1.IsTruncated) {
		t.Fatalf("V1 max-keys 2000: %d keys truncated %v", len(v1.Contents), aws.ToBool(v1.IsTruncated))
	}
}

func TestAWSListObjectsInvalidArguments(t *testing.T) {
	_, c := itest.StartBucket(t, "badargs")
	itest.Put(t, c, "badargs", "k", []byte("x"))
	ctx := context.Background()
	for _, tok := range []string{"garbage!!", "AA", "bm90LWEtdG9rZW4", "%%%"} {
		_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("badargs"), ContinuationToken: aws.String(tok)})
		itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	}
	_, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("badargs"), MaxKeys: aws.Int32(-1)})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
	_, err = c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("badargs"), MaxKeys: aws.Int32(-1)})
	itest.WantErr(t, err, http.StatusBadRequest, "InvalidArgument")
}

func TestAWSListObjectsV1Paging(t *testing.T) {
	_, c := itest.StartBucket(t, "vone")
	keys := awsPagingKeys()
	itest.PutMany(t, c, "vone", keys, 8, true)
	ctx := context.Background()

	for _, delim := range []string{"", "/"} {
		want := awsExpectListing(keys, "", delim, "")
		for maxKeys := int32(1); maxKeys <= 7; maxKeys++ {
			name := fmt.Sprintf("V1 delimiter %q max-keys %d", delim, maxKeys)
			var got []string
			marker := ""
			for page := 0; ; page++ {
				if page > len(want)+1 {
					t.Fatalf("%s: paging does not end", name)
				}
				in := &s3.ListObjectsInput{Bucket: aws.String("vone"), MaxKeys: aws.Int32(maxKeys), Marker: aws.String(marker)}
				if delim != "" {
					in.Delimiter = aws.String(delim)
				}
				out, err := c.ListObjects(ctx, in)
				if err != nil {
					t.Fatal(err)
				}
				if aws.ToString(out.Marker) != marker {
					t.Fatalf("%s: Marker echoed %q, sent %q", name, aws.ToString(out.Marker), marker)
				}
				var items []string
				for _, o := range out.Contents {
					items = append(items, aws.ToString(o.Key))
				}
				for _, p := range out.CommonPrefixes {
					items = append(items, aws.ToString(p.Prefix))
				}
				slices.Sort(items)
				got = append(got, items...)
				if !aws.ToBool(out.IsTruncated) {
					if len(got) != len(want) {
						t.Fatalf("%s: not truncated after %d of %d", name, len(got), len(want))
					}
					break
				}
				if len(items) != int(maxKeys) {
					t.Fatalf("%s page %d: %d items on a truncated page", name, page, len(items))
				}
				// NextMarker is the last key or common prefix returned.
				if nm := aws.ToString(out.NextMarker); nm != items[len(items)-1] {
					t.Fatalf("%s page %d: NextMarker %q, want %q", name, page, nm, items[len(items)-1])
				}
				marker = aws.ToString(out.NextMarker)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s:\n got %q\nwant %q", name, got, want)
			}
		}
	}
	// A marker that is not a key starts after it.
	out, err := c.ListObjects(ctx, &s3.ListObjectsInput{Bucket: aws.String("vone"), Marker: aws.String("k1195"), MaxKeys: aws.Int32(2)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Contents) != 2 || aws.ToString(out.Contents[0].Key) != "zz/" || aws.ToString(out.Contents[1].Key) != "zz/a" {
		t.Errorf("marker k1195: %v", out.Contents)
	}
}

// Prefixes are matched byte for byte: "%" and "_" are not wildcards and
// case matters.
func TestAWSListPrefixIsLiteral(t *testing.T) {
	_, c := itest.StartBucket(t, "literal")
	keys := []string{"a_b", "aXb", "A_b", "a%c", "a%", "abc", "a", "a\\b", "a.b", "a*b", "a[b]", "p+q&r=s t", "p q"}
	itest.PutMany(t, c, "literal", keys, 4, false)
	for prefix, want := range map[string][]string{
		"a_":       {"a_b"},
		"a%":       {"a%", "a%c"},
		"A":        {"A_b"},
		"a\\":      {"a\\b"},
		"a.":       {"a.b"},
		"a*":       {"a*b"},
		"a[":       {"a[b]"},
		"ab":       {"abc"},
		"p+q&r=s ": {"p+q&r=s t"}, // query-string metacharacters in the prefix
		"p ":       {"p q"},
		"a":        {"a", "a%", "a%c", "a*b", "a.b", "aXb", "a[b]", "a\\b", "a_b", "abc"},
	} {
		l, _ := awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("literal"), Prefix: aws.String(prefix)})
		if !slices.Equal(l.keys, want) {
			t.Errorf("prefix %q: %q, want %q", prefix, l.keys, want)
		}
	}
	// A delimiter is literal too.
	l, _ := awsListV2(t, c, &s3.ListObjectsV2Input{Bucket: aws.String("literal"), Delimiter: aws.String("_")})
	if !slices.Equal(l.prefixes, []string{"A_", "a_"}) {
		t.Errorf("delimiter _: prefixes %q", l.prefixes)
	}
}

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
	_, c, bucket := itest.StartMinio(t, testutil.WithoutFsync())
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
			info, err := c.PutObject(ctx, bucket, k, strings.NewReader(string(body)), int64(len(body)), itest.MinioPutOpts())
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
