package metatest

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

func testObjectsRoundTrip(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o := meta.Object{
		Bucket:       "b",
		Key:          "dir/obj.txt",
		BlobID:       newBlob(),
		Size:         1<<40 + 7,
		ETag:         "9b2cf535f27731c974343645a3985328-12",
		LastModified: time.Date(2023, 12, 31, 23, 59, 59, 999_000_000, time.UTC),
		StorageClass: "REDUCED_REDUNDANCY",
		Owner:        "AKIAEXAMPLE",
		Headers: meta.ContentHeaders{
			ContentType:        "text/plain; charset=utf-8",
			ContentEncoding:    "gzip",
			ContentDisposition: `attachment; filename="a \"b\".txt"`,
			ContentLanguage:    "de-CH",
			CacheControl:       "max-age=3600, must-revalidate",
			Expires:            "Thu, 01 Dec 2094 16:00:00 GMT",
		},
		UserMeta: map[string]string{
			"color":  "blue",
			"empty":  "",
			"utf8":   "日本語 é",
			"quotes": `"'\`,
			"json":   `{"a":[1,2]}`,
		},
	}
	if freed := put(t, s, o); len(freed) != 0 {
		t.Errorf("first put freed %q", freed)
	}
	got := get(t, s, "b", o.Key)
	checkObject(t, got, o)
	byVersion, err := s.GetObject(ctx, "b", o.Key, meta.NullVersion)
	if err != nil {
		t.Fatalf("GetObject(version null): %v", err)
	}
	checkObject(t, byVersion, o)

	// A non-UTC timestamp is the same instant.
	o2 := object("b", "zone", newBlob())
	o2.LastModified = time.Date(2020, 2, 29, 12, 0, 0, 5_000_000, time.FixedZone("X", -7*3600))
	put(t, s, o2)
	checkObject(t, get(t, s, "b", "zone"), o2)

	// Missing keys are ErrObjectNotFound, including near misses.
	for _, k := range []string{"dir/obj.tx", "dir/obj.txt ", "dir/", "DIR/obj.txt"} {
		wantMissing(t, s, "b", k)
	}
	_, err = s.GetObject(ctx, "b", o.Key, "no-such-version")
	wantErr(t, "GetObject(missing version)", err, meta.ErrObjectNotFound)
}

func testObjectsUserMetaEmpty(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	for _, um := range []map[string]string{nil, {}, {"k": ""}} {
		o := object("b", fmt.Sprintf("k%d", len(um)), newBlob())
		o.UserMeta = um
		put(t, s, o)
		checkObject(t, get(t, s, "b", o.Key), o)
	}
	// Overwriting with no metadata drops the old metadata.
	o := object("b", "meta", newBlob())
	o.UserMeta = map[string]string{"a": "1"}
	o.Headers.ContentType = "image/png"
	put(t, s, o)
	o = object("b", "meta", newBlob())
	put(t, s, o)
	checkObject(t, get(t, s, "b", "meta"), o)
}

func testObjectsOverwrite(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	o1 := object("b", "k", newBlob())
	o1.Headers.ContentType = "text/plain"
	o1.UserMeta = map[string]string{"v": "1"}
	wantFreed(t, "first put", put(t, s, o1))

	o2 := object("b", "k", newBlob())
	o2.Size, o2.ETag, o2.LastModified = 99, "etag2", t0.Add(time.Second)
	o2.UserMeta = map[string]string{"v": "2", "w": "x"}
	wantFreed(t, "overwrite", put(t, s, o2), o1.BlobID)
	checkObject(t, get(t, s, "b", "k"), o2)

	o3 := object("b", "k", newBlob())
	wantFreed(t, "second overwrite", put(t, s, o3), o2.BlobID)
	checkObject(t, get(t, s, "b", "k"), o3)

	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Objects) != 1 || page.Objects[0].ETag != o3.ETag {
		t.Errorf("listing after overwrites = %+v, want the one latest version", page.Objects)
	}
	unref, err := s.UnreferencedBlobs(ctx, []string{o1.BlobID, o2.BlobID, o3.BlobID})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "UnreferencedBlobs after overwrites", unref, o1.BlobID, o2.BlobID)
}

func testObjectsZeroByte(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	empty := object("b", "k", "")
	empty.Size, empty.ETag = 0, "d41d8cd98f00b204e9800998ecf8427e"
	wantFreed(t, "put empty", put(t, s, empty))
	checkObject(t, get(t, s, "b", "k"), empty)
	wantFreed(t, "overwrite empty with empty", put(t, s, empty))

	full := object("b", "k", newBlob())
	wantFreed(t, "overwrite empty with data", put(t, s, full))
	checkObject(t, get(t, s, "b", "k"), full)
	wantFreed(t, "overwrite data with empty", put(t, s, empty), full.BlobID)
	checkObject(t, get(t, s, "b", "k"), empty)
	wantFreed(t, "delete empty", del(t, s, "b", "k"))
	wantMissing(t, s, "b", "k")
}

func testObjectsDelete(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	a, b := object("b", "a", newBlob()), object("b", "a/b", newBlob())
	put(t, s, a)
	put(t, s, b)
	wantFreed(t, "delete", del(t, s, "b", "a"), a.BlobID)
	wantMissing(t, s, "b", "a")
	checkObject(t, get(t, s, "b", "a/b"), b)
	wantFreed(t, "delete again", del(t, s, "b", "a"))
	wantFreed(t, "delete never-written key", del(t, s, "b", "never"))
	wantFreed(t, "delete a prefix of a key", del(t, s, "b", "a/"))
	checkObject(t, get(t, s, "b", "a/b"), b)
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if keys := summaryKeys(page.Objects); !slices.Equal(keys, []string{"a/b"}) {
		t.Errorf("listing after delete = %q, want [a/b]", keys)
	}
	// A deleted key can be written again.
	a2 := object("b", "a", newBlob())
	wantFreed(t, "put after delete", put(t, s, a2))
	checkObject(t, get(t, s, "b", "a"), a2)
}

// testObjectsSharedBlob pins the Store contract that freed lists only blobs
// no longer referenced after the commit.
func testObjectsSharedBlob(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	blob := newBlob()
	x, y := object("b", "x", blob), object("b", "y", blob)
	put(t, s, x)
	put(t, s, y)
	// Rewriting a key with the blob it already has frees nothing.
	wantFreed(t, "overwrite with the same blob", put(t, s, x))
	checkObject(t, get(t, s, "b", "x"), x)
	wantFreed(t, "delete one of two sharers", del(t, s, "b", "x"))
	checkObject(t, get(t, s, "b", "y"), y)
	wantFreed(t, "delete the last sharer", del(t, s, "b", "y"), blob)
}

func testObjectsVersions(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	v1 := object("b", "k", newBlob())
	v1.VersionID = "v1"
	v2 := object("b", "k", newBlob())
	v2.VersionID, v2.LastModified, v2.Size = "v2", t0.Add(time.Second), 2
	wantFreed(t, "put v1", put(t, s, v1))
	wantFreed(t, "put v2 keeps v1", put(t, s, v2))
	checkObject(t, get(t, s, "b", "k"), v2)
	got, err := s.GetObject(ctx, "b", "k", "v1")
	if err != nil {
		t.Fatalf("GetObject(v1): %v", err)
	}
	checkObject(t, got, v1)
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Objects) != 1 || page.Objects[0].Size != 2 {
		t.Errorf("listing = %+v, want only the latest version", page.Objects)
	}
	unref, err := s.UnreferencedBlobs(ctx, []string{v1.BlobID, v2.BlobID})
	if err != nil || len(unref) != 0 {
		t.Errorf("UnreferencedBlobs = %q, %v; noncurrent versions still reference their blobs", unref, err)
	}
	wantErr(t, "DeleteBucket with versions", errOnly(s.DeleteBucket(ctx, "b")), meta.ErrBucketNotEmpty)
	freed, err := s.DeleteObject(ctx, "b", "k", "v1", meta.Condition{})
	if err != nil {
		t.Fatal(err)
	}
	wantFreed(t, "delete v1", freed, v1.BlobID)
	checkObject(t, get(t, s, "b", "k"), v2)
	_, err = s.GetObject(ctx, "b", "k", "v1")
	wantErr(t, "GetObject(deleted v1)", err, meta.ErrObjectNotFound)
	freed, err = s.DeleteObject(ctx, "b", "k", "v1", meta.Condition{})
	if err != nil {
		t.Errorf("delete missing version: %v", err)
	}
	wantFreed(t, "delete missing version", freed)
}

// oddKeys are keys that naive implementations alias, fold, escape, or sort
// wrongly. None may contain NUL (not valid in S3 keys); all are valid UTF-8.
var oddKeys = []string{
	"a//b", "a/b", "a/b/", "a", "a/", "/a", "//", "/",
	"../x", "./x", "x", "x/..", "dir/", "dir/x", "dir", ".tmp", ".", "..",
	"%", "_", "a%b", "a_b", "axb", "a%", "a_", "%%", "__", `\`, `a\b`, `a\%b`, `a\_b`,
	"*", "?", "[", "]", "a*b", "a?b", "a[b]", "a[!b]", "a^b", "{a,b}",
	"A", "AB", "aB", "Ab", "ab", "I", "i", "İ", "ı", "ß", "SS", "ss",
	"é", "e\u0301", "E\u0301", "É", "ﬁ", "fi",
	"日本語/ファイル", "日本語/ファイル2", "日本語", "😀", "😀/x",
	"\x7f", "a\x7fb", "\x01", "\t", "a\tb", "a\nb", "\r\n", " ", "a b", "a  b", "a ", " a",
	"\uFFFD", "\uFFFF", "\uE000", "\U00010000", "\U0010FFFF", "a\U0010FFFF", "a\uFFFF",
	"'", `"`, "a'b", "'; DROP TABLE objects; --", "+", "a+b", "a=b&c", "#frag", "~", "a:b", "a;b", "a,b", "|",
	strings.Repeat("k", 1024),
	strings.Repeat("k", 1023) + "l",
	strings.Repeat("é", 512),
	strings.Repeat("a/", 512),
}

func testObjectsOddKeys(t *testing.T, s meta.Store) {
	ctx := t.Context()
	mkBucket(t, s, "b")
	objs := make(map[string]meta.Object, len(oddKeys))
	for _, k := range oddKeys {
		if _, dup := objs[k]; dup {
			t.Fatalf("oddKeys lists %q twice", k)
		}
		o := object("b", k, newBlob())
		o.UserMeta = map[string]string{"key": k}
		wantFreed(t, fmt.Sprintf("put %q", k), put(t, s, o))
		objs[k] = o
	}
	for _, k := range oddKeys {
		checkObject(t, get(t, s, "b", k), objs[k])
	}
	want := slices.Clone(oddKeys)
	sort.Strings(want)
	page, err := s.ListObjects(ctx, "b", meta.ListOptions{Limit: len(want) + 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := summaryKeys(page.Objects); !slices.Equal(got, want) {
		t.Errorf("listing of odd keys:\n got %q\nwant %q", got, want)
	}
	if page.Truncated || len(page.CommonPrefixes) != 0 {
		t.Errorf("listing Truncated=%v CommonPrefixes=%q, want false, none", page.Truncated, page.CommonPrefixes)
	}
	// The same keys page by page, and grouped.
	walkList(t, s, "b", want, meta.ListOptions{Limit: 7})
	walkList(t, s, "b", want, meta.ListOptions{Limit: 5, Delimiter: "/"})
	walkList(t, s, "b", want, meta.ListOptions{Limit: 3, Delimiter: "%"})
	walkList(t, s, "b", want, meta.ListOptions{Limit: 3, Delimiter: "_"})

	// Deleting every other key leaves exactly the rest.
	var rest []string
	for i, k := range want {
		if i%2 == 0 {
			wantFreed(t, fmt.Sprintf("delete %q", k), del(t, s, "b", k), objs[k].BlobID)
		} else {
			rest = append(rest, k)
		}
	}
	for i, k := range want {
		if i%2 == 0 {
			wantMissing(t, s, "b", k)
		} else {
			checkObject(t, get(t, s, "b", k), objs[k])
		}
	}
	walkList(t, s, "b", rest, meta.ListOptions{Limit: 1000})
}
