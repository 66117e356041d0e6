package metatest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

func summaryKeys(objs []meta.ObjectSummary) []string {
	keys := make([]string, len(objs))
	for i, o := range objs {
		keys[i] = o.Key
	}
	return keys
}

// fill writes one object per key into bucket, from a few goroutines.
func fill(t *testing.T, s meta.Store, bucket string, keys []string) {
	t.Helper()
	const workers = 8
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(keys); i += workers {
				o := object(bucket, keys[i], fmt.Sprintf("blob-%s-%d", bucket, i))
				if _, err := s.PutObject(t.Context(), o, meta.Condition{}); err != nil {
					errs <- fmt.Errorf("PutObject(%q): %w", keys[i], err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

func describe(opts meta.ListOptions) string {
	return fmt.Sprintf("{Prefix:%+q Delimiter:%+q After:%+q Limit:%d}", opts.Prefix, opts.Delimiter, opts.After, opts.Limit)
}

// list runs one ListObjects call and compares it with Reference over keys,
// the bucket's full key set. It reports whether the page matched.
func list(t *testing.T, s meta.Store, bucket string, keys []string, opts meta.ListOptions) (meta.ListPage, bool) {
	t.Helper()
	got, err := s.ListObjects(t.Context(), bucket, opts)
	if err != nil {
		t.Fatalf("ListObjects %s: %v", describe(opts), err)
	}
	return got, checkPage(t, describe(opts), got, Reference(keys, opts), opts)
}

// checkPage compares got with want (a Reference page) and checks the
// invariants of a page on their own, so that a broken Reference cannot hide a
// broken store.
func checkPage(t *testing.T, what string, got, want meta.ListPage, opts meta.ListOptions) bool {
	t.Helper()
	ok := true
	gotKeys, wantKeys := summaryKeys(got.Objects), summaryKeys(want.Objects)
	if !slices.Equal(gotKeys, wantKeys) {
		t.Errorf("%s: Objects\n got %+q\nwant %+q", what, gotKeys, wantKeys)
		ok = false
	}
	if !slices.Equal(got.CommonPrefixes, want.CommonPrefixes) {
		t.Errorf("%s: CommonPrefixes\n got %+q\nwant %+q", what, got.CommonPrefixes, want.CommonPrefixes)
		ok = false
	}
	if got.Truncated != want.Truncated {
		t.Errorf("%s: Truncated = %v, want %v", what, got.Truncated, want.Truncated)
		ok = false
	} else if got.Truncated && got.NextAfter != want.NextAfter {
		t.Errorf("%s: NextAfter = %+q, want %+q", what, got.NextAfter, want.NextAfter)
		ok = false
	}

	// Invariants independent of Reference.
	n := len(got.Objects) + len(got.CommonPrefixes)
	if n > opts.Limit {
		t.Errorf("%s: %d items exceed Limit", what, n)
		ok = false
	}
	if got.Truncated && n == 0 {
		t.Errorf("%s: empty page with Truncated set", what)
		ok = false
	}
	if !sort.StringsAreSorted(gotKeys) || !sort.StringsAreSorted(got.CommonPrefixes) {
		t.Errorf("%s: page out of order", what)
		ok = false
	}
	items := PageItems(got)
	for i, it := range items {
		if !strings.HasPrefix(it.Name, opts.Prefix) {
			t.Errorf("%s: %+q lacks the prefix", what, it.Name)
			ok = false
		}
		if it.Name == opts.After || (!it.CommonPrefix && it.Name < opts.After) {
			t.Errorf("%s: %+q is not after After", what, it.Name)
			ok = false
		}
		if i > 0 && items[i-1].Name == it.Name {
			t.Errorf("%s: %+q listed twice", what, it.Name)
			ok = false
		}
		if it.CommonPrefix && (opts.Delimiter == "" || !strings.HasSuffix(it.Name, opts.Delimiter)) {
			t.Errorf("%s: common prefix %+q does not end with the delimiter", what, it.Name)
			ok = false
		}
	}
	if got.Truncated && n > 0 && got.NextAfter != items[n-1].Name {
		t.Errorf("%s: NextAfter %+q is not the last item %+q", what, got.NextAfter, items[n-1].Name)
		ok = false
	}
	return ok
}

// walkList pages through a listing from opts.After, following NextAfter,
// checks every page against Reference over keys (the bucket's full key set),
// and checks that the pages together are the whole listing, with Truncated
// false exactly on the last page. It returns the number of pages.
func walkList(t *testing.T, s meta.Store, bucket string, keys []string, opts meta.ListOptions) int {
	t.Helper()
	want := ReferenceItems(keys, opts.Prefix, opts.Delimiter, opts.After)
	maxPages := len(want)/opts.Limit + 2
	var got []Item
	pages := 0
	for {
		pages++
		if pages > maxPages {
			t.Errorf("walk %s: more than %d pages, want %d items", describe(opts), maxPages, len(want))
			return pages
		}
		page, ok := list(t, s, bucket, keys, opts)
		got = append(got, PageItems(page)...)
		if !ok {
			return pages
		}
		if !page.Truncated {
			break
		}
		opts.After = page.NextAfter
	}
	if !slices.Equal(got, want) {
		t.Errorf("walk %s: %d items in %d pages, want %d items", describe(opts), len(got), pages, len(want))
	}
	return pages
}

// expectPage checks a page against a hand-written expectation (objects,
// common prefixes, truncated) as well as against Reference.
func expectPage(t *testing.T, s meta.Store, bucket string, keys []string, opts meta.ListOptions,
	objects, prefixes []string, truncated bool) meta.ListPage {
	t.Helper()
	page, _ := list(t, s, bucket, keys, opts)
	if got := summaryKeys(page.Objects); !slices.Equal(got, objects) {
		t.Errorf("%s: Objects = %+q, want (by hand) %+q", describe(opts), got, objects)
	}
	if !slices.Equal(page.CommonPrefixes, prefixes) {
		t.Errorf("%s: CommonPrefixes = %+q, want (by hand) %+q", describe(opts), page.CommonPrefixes, prefixes)
	}
	if page.Truncated != truncated {
		t.Errorf("%s: Truncated = %v, want (by hand) %v", describe(opts), page.Truncated, truncated)
	}
	return page
}

func testListEmpty(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	for _, opts := range []meta.ListOptions{
		{Limit: 1}, {Limit: 1000}, {Prefix: "a", Limit: 1}, {Delimiter: "/", Limit: 1},
		{After: "a", Limit: 5}, {Prefix: "a/", Delimiter: "/", After: "a/b", Limit: 2},
	} {
		expectPage(t, s, "b", nil, opts, nil, nil, false)
	}
	keys := []string{"x/1", "y"}
	fill(t, s, "b", keys)
	for _, opts := range []meta.ListOptions{
		{Prefix: "a", Limit: 1}, {Prefix: "x/2", Limit: 1}, {Prefix: "y/", Delimiter: "/", Limit: 1},
		{After: "y", Limit: 1}, {After: "\U0010FFFF", Limit: 1}, {Prefix: "x", After: "x0", Limit: 3},
	} {
		expectPage(t, s, "b", keys, opts, nil, nil, false)
	}
}

func testListPrefixExact(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{
		"a", "ab", "aXb", "a_", "a_b", "a%", "a%b", "A", "Ab", "AB", `a\`, `a\b`, `a\_`,
		"a*", "a*b", "a?", "a[b]", "a[", "a.b", "a/", "a/_", "b", "e", "é", "é/x", "e\u0301", "e\u0301/y",
	}
	fill(t, s, "b", keys)
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"a_", []string{"a_", "a_b"}},
		{"a%", []string{"a%", "a%b"}},
		{"A", []string{"A", "AB", "Ab"}},
		{"AB", []string{"AB"}},
		{"ab", []string{"ab"}},
		{`a\`, []string{`a\`, `a\_`, `a\b`}},
		{`a\_`, []string{`a\_`}},
		{"a*", []string{"a*", "a*b"}},
		{"a?", []string{"a?"}},
		{"a[", []string{"a[", "a[b]"}},
		{"a.", []string{"a.b"}},
		{"a/_", []string{"a/_"}},
		{"e", []string{"e", "e\u0301", "e\u0301/y"}},
		{"é", []string{"é", "é/x"}},
		{"e\u0301", []string{"e\u0301", "e\u0301/y"}},
		{"_", nil},
		{"%", nil},
		{"B", nil},
		{"abc", nil},
	} {
		expectPage(t, s, "b", keys, meta.ListOptions{Prefix: c.prefix, Limit: 1000}, c.want, nil, false)
		walkList(t, s, "b", keys, meta.ListOptions{Prefix: c.prefix, Limit: 1})
	}
	var lower []string
	for _, k := range keys {
		if strings.HasPrefix(k, "a") {
			lower = append(lower, k)
		}
	}
	sort.Strings(lower)
	expectPage(t, s, "b", keys, meta.ListOptions{Prefix: "a", Limit: 1000}, lower, nil, false)
	all := slices.Clone(keys)
	sort.Strings(all)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 1000}, all, nil, false)
}

func testListDelimiter(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{"a", "b/1", "b/2", "b/c/3", "c", "d/", "d//x", "e/f", "f//", "/g", "/"}
	fill(t, s, "b", keys)
	d := func(limit int, after string) meta.ListOptions {
		return meta.ListOptions{Delimiter: "/", Limit: limit, After: after}
	}
	expectPage(t, s, "b", keys, d(100, ""), []string{"a", "c"}, []string{"/", "b/", "d/", "e/", "f/"}, false)
	// Common prefixes count toward Limit.
	p := expectPage(t, s, "b", keys, d(3, ""), []string{"a"}, []string{"/", "b/"}, true)
	if p.NextAfter != "b/" {
		t.Errorf("NextAfter = %q, want b/", p.NextAfter)
	}
	p = expectPage(t, s, "b", keys, d(3, p.NextAfter), []string{"c"}, []string{"d/", "e/"}, true)
	if p.NextAfter != "e/" {
		t.Errorf("NextAfter = %q, want e/", p.NextAfter)
	}
	expectPage(t, s, "b", keys, d(3, p.NextAfter), nil, []string{"f/"}, false)
	// Exactly as many items as Limit: not truncated.
	expectPage(t, s, "b", keys, d(7, ""), []string{"a", "c"}, []string{"/", "b/", "d/", "e/", "f/"}, false)
	expectPage(t, s, "b", keys, d(6, ""), []string{"a", "c"}, []string{"/", "b/", "d/", "e/"}, true)
	// A delimiter that occurs in no key groups nothing.
	expectPage(t, s, "b", keys, meta.ListOptions{Delimiter: "#", Limit: 100}, sorted(keys), nil, false)
	for limit := 1; limit <= 8; limit++ {
		walkList(t, s, "b", keys, d(limit, ""))
	}
	for _, delim := range []string{"b", "1", "//", "c/"} {
		walkList(t, s, "b", keys, meta.ListOptions{Delimiter: delim, Limit: 1})
		walkList(t, s, "b", keys, meta.ListOptions{Delimiter: delim, Limit: 100})
	}
}

func testListDelimiterWithPrefix(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{
		"photos/2006/jan/1.jpg", "photos/2006/feb/2.jpg", "photos/2006/feb/3.jpg", "photos/2006/index.html",
		"photos/2007/x", "photos/", "photosX", "photos", "photos//y", "photos/2006/", "video/a",
	}
	fill(t, s, "b", keys)
	opt := func(prefix string, limit int) meta.ListOptions {
		return meta.ListOptions{Prefix: prefix, Delimiter: "/", Limit: limit}
	}
	expectPage(t, s, "b", keys, opt("photos/2006/", 100),
		[]string{"photos/2006/", "photos/2006/index.html"}, []string{"photos/2006/feb/", "photos/2006/jan/"}, false)
	expectPage(t, s, "b", keys, opt("photos/", 100),
		[]string{"photos/"}, []string{"photos//", "photos/2006/", "photos/2007/"}, false)
	expectPage(t, s, "b", keys, opt("photos", 100), []string{"photos", "photosX"}, []string{"photos/"}, false)
	expectPage(t, s, "b", keys, opt("photos/2006/feb", 100), nil, []string{"photos/2006/feb/"}, false)
	expectPage(t, s, "b", keys, opt("photos/2006/feb/", 100),
		[]string{"photos/2006/feb/2.jpg", "photos/2006/feb/3.jpg"}, nil, false)
	expectPage(t, s, "b", keys, opt("", 100), []string{"photos", "photosX"}, []string{"photos/", "video/"}, false)
	expectPage(t, s, "b", keys, opt("photos/", 2), []string{"photos/"}, []string{"photos//"}, true)
	for _, prefix := range []string{"", "p", "photos", "photos/", "photos/2006", "photos/2006/", "photos/2006/f", "v", "x"} {
		for _, limit := range []int{1, 2, 3} {
			walkList(t, s, "b", keys, opt(prefix, limit))
		}
	}
}

func testListMultiCharDelimiter(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{"a--b", "a--c--d", "a-b", "a-", "b--", "c---d", "--x", "a---", "x-y-z", "a--b--", "-"}
	fill(t, s, "b", keys)
	opt := func(prefix string, limit int) meta.ListOptions {
		return meta.ListOptions{Prefix: prefix, Delimiter: "--", Limit: limit}
	}
	expectPage(t, s, "b", keys, opt("", 100),
		[]string{"-", "a-", "a-b", "x-y-z"}, []string{"--", "a--", "b--", "c--"}, false)
	expectPage(t, s, "b", keys, opt("a-", 100),
		[]string{"a-", "a--b", "a-b"}, []string{"a---", "a--b--", "a--c--"}, false)
	expectPage(t, s, "b", keys, opt("a--", 100),
		[]string{"a---", "a--b"}, []string{"a--b--", "a--c--"}, false)
	p := expectPage(t, s, "b", keys, meta.ListOptions{Delimiter: "--", Limit: 2, After: "-"},
		[]string{"a-"}, []string{"--"}, true)
	expectPage(t, s, "b", keys, meta.ListOptions{Delimiter: "--", Limit: 2, After: p.NextAfter},
		[]string{"a-b"}, []string{"a--"}, true)
	for _, prefix := range []string{"", "-", "--", "a", "a-", "a--", "c-", "x"} {
		for _, delim := range []string{"--", "-", "---", "-b", "--d"} {
			walkList(t, s, "b", keys, meta.ListOptions{Prefix: prefix, Delimiter: delim, Limit: 1})
			walkList(t, s, "b", keys, meta.ListOptions{Prefix: prefix, Delimiter: delim, Limit: 3})
		}
	}
}

func testListAfter(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{"a/1", "a/2", "a/3", "b", "c/1", "c/2", "d"}
	fill(t, s, "b", keys)
	for _, c := range []struct {
		prefix, after     string
		objects, prefixes []string
	}{
		{"", "", []string{"b", "d"}, []string{"a/", "c/"}},
		{"", "a", []string{"b", "d"}, []string{"a/", "c/"}},
		// After equal to a common prefix skips the whole group...
		{"", "a/", []string{"b", "d"}, []string{"c/"}},
		{"", "c/", []string{"d"}, nil},
		// ...while an After inside a group still yields the group when keys
		// of it follow (as S3 does), and not when none do.
		{"", "a/2", []string{"b", "d"}, []string{"a/", "c/"}},
		{"", "a/1x", []string{"b", "d"}, []string{"a/", "c/"}},
		{"", "a/3", []string{"b", "d"}, []string{"c/"}},
		{"", "a/9", []string{"b", "d"}, []string{"c/"}},
		{"", "a0", []string{"b", "d"}, []string{"c/"}},
		{"", "b", []string{"d"}, []string{"c/"}},
		{"", "c", []string{"d"}, []string{"c/"}},
		{"", "d", nil, nil},
		{"", "\U0010FFFF", nil, nil},
		{"c", "", nil, []string{"c/"}},
		{"c", "c", nil, []string{"c/"}},
		{"c", "c/", nil, nil},
		{"c", "b", nil, []string{"c/"}},
		{"c/", "a", []string{"c/1", "c/2"}, nil},
		{"c/", "c/", []string{"c/1", "c/2"}, nil},
		{"c/", "c/1", []string{"c/2"}, nil},
		{"c/", "c/2", nil, nil},
		{"c/", "d", nil, nil},
	} {
		opts := meta.ListOptions{Prefix: c.prefix, Delimiter: "/", After: c.after, Limit: 100}
		expectPage(t, s, "b", keys, opts, c.objects, c.prefixes, false)
		opts.Limit = 1
		walkList(t, s, "b", keys, opts)
	}
	expectPage(t, s, "b", keys, meta.ListOptions{After: "a/2", Limit: 100},
		[]string{"a/3", "b", "c/1", "c/2", "d"}, nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{After: "a/", Limit: 100},
		[]string{"a/1", "a/2", "a/3", "b", "c/1", "c/2", "d"}, nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{After: "c/1", Limit: 2}, []string{"c/2", "d"}, nil, false)
	for _, after := range []string{"", "a", "a/", "a/1", "a/2", "a/3", "a/4", "b", "b/", "c", "c/", "c/1", "c/3", "d", "e"} {
		for _, prefix := range []string{"", "a", "a/", "c", "c/", "b"} {
			for _, delim := range []string{"", "/", "1"} {
				walkList(t, s, "b", keys, meta.ListOptions{Prefix: prefix, Delimiter: delim, After: after, Limit: 1})
				walkList(t, s, "b", keys, meta.ListOptions{Prefix: prefix, Delimiter: delim, After: after, Limit: 2})
			}
		}
	}
}

func testListLimits(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	var keys []string
	for i := range 10 {
		keys = append(keys, fmt.Sprintf("k%d", i))
	}
	fill(t, s, "b", keys)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 10}, keys, nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 11}, keys, nil, false)
	p := expectPage(t, s, "b", keys, meta.ListOptions{Limit: 9}, keys[:9], nil, true)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 9, After: p.NextAfter}, keys[9:], nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 5, After: "k4"}, keys[5:], nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 4, After: "k4"}, keys[5:9], nil, true)

	// A group larger than any scan batch, last on its page.
	mkBucket(t, s, "g")
	gkeys := []string{"a", "c"}
	for i := range 2500 {
		gkeys = append(gkeys, fmt.Sprintf("b/%04d", i))
	}
	fill(t, s, "g", gkeys)
	d := meta.ListOptions{Delimiter: "/", Limit: 2}
	p = expectPage(t, s, "g", gkeys, d, []string{"a"}, []string{"b/"}, true)
	d.After = p.NextAfter
	expectPage(t, s, "g", gkeys, d, []string{"c"}, nil, false)
	expectPage(t, s, "g", gkeys, meta.ListOptions{Delimiter: "/", Limit: 3}, []string{"a", "c"}, []string{"b/"}, false)
	expectPage(t, s, "g", gkeys, meta.ListOptions{Delimiter: "/", Limit: 1, After: "a"}, nil, []string{"b/"}, true)
	expectPage(t, s, "g", gkeys, meta.ListOptions{Delimiter: "/", Limit: 1, After: "b/1234"}, nil, []string{"b/"}, true)
	expectPage(t, s, "g", gkeys, meta.ListOptions{Delimiter: "/", Limit: 1, After: "b/2499"}, []string{"c"}, nil, false)
	expectPage(t, s, "g", gkeys, meta.ListOptions{Prefix: "b/", Delimiter: "/", Limit: 1, After: "b/2498"},
		[]string{"b/2499"}, nil, false)
	for _, limit := range []int{1, 2, 3, 999, 1000, 1001, 2501, 2502, 2503, 5000} {
		walkList(t, s, "g", gkeys, meta.ListOptions{Limit: limit})
		walkList(t, s, "g", gkeys, meta.ListOptions{Limit: limit, Delimiter: "/"})
	}
	walkList(t, s, "g", gkeys, meta.ListOptions{Limit: 1000, Prefix: "b/", After: "b/0999"})
	// The last group has no key after it: a group that ends a listing exactly
	// at the Limit leaves it untruncated.
	mkBucket(t, s, "h")
	hkeys := []string{"a/1", "a/2", "b/1"}
	fill(t, s, "h", hkeys)
	expectPage(t, s, "h", hkeys, meta.ListOptions{Delimiter: "/", Limit: 2}, nil, []string{"a/", "b/"}, false)
	p = expectPage(t, s, "h", hkeys, meta.ListOptions{Delimiter: "/", Limit: 1}, nil, []string{"a/"}, true)
	expectPage(t, s, "h", hkeys, meta.ListOptions{Delimiter: "/", Limit: 1, After: p.NextAfter}, nil, []string{"b/"}, false)
}

// testListPagination walks a pseudo-random key set under many combinations
// of options, comparing every page with Reference.
func testListPagination(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "/", "-", "_", "%", "é", "\U0010FFFF", "A"}
	seen := map[string]bool{}
	var keys []string
	for len(keys) < 150 {
		var sb strings.Builder
		for range 1 + rng.IntN(6) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if k := sb.String(); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	fill(t, s, "b", keys)
	prefixes := []string{"", "a", "a/", "b", "é", "a/b", "_", "\U0010FFFF", "zz"}
	delims := []string{"", "/", "-", "/-", "é", "a", "\U0010FFFF"}
	for _, prefix := range prefixes {
		for _, delim := range delims {
			afters := []string{"", prefix, prefix + "/", keys[rng.IntN(len(keys))]}
			for _, after := range afters {
				for _, limit := range []int{1, 4, 1000} {
					opts := meta.ListOptions{Prefix: prefix, Delimiter: delim, After: after, Limit: limit}
					walkList(t, s, "b", keys, opts)
					if t.Failed() {
						t.FailNow()
					}
				}
			}
		}
	}
}

func testListHighCodePoints(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	keys := []string{
		"a", "a\u00ff", "a\u00ffb", "a\u00ff/x", "a\u0100", "a\u00fe", "a\uFFFF", "a\uFFFFz",
		"a\U0010FFFF", "a\U0010FFFFz", "a\U0010FFFF/\U0010FFFF", "a\U0010FFFF\U0010FFFF", "a\U0010FFFE",
		"b", "\U0010FFFF", "\U0010FFFF\U0010FFFF", "\U0010FFFF/a", "ÿ", "ÿ/", "ÿÿ", "\uE000", "\U00010000",
		"a\x7f", "a\x7f/",
	}
	fill(t, s, "b", keys)
	for _, c := range []struct {
		prefix string
		want   []string
	}{
		{"a\u00ff", []string{"a\u00ff", "a\u00ff/x", "a\u00ffb"}},
		{"a\U0010FFFF", []string{"a\U0010FFFF", "a\U0010FFFF/\U0010FFFF", "a\U0010FFFFz", "a\U0010FFFF\U0010FFFF"}},
		{"\U0010FFFF", []string{"\U0010FFFF", "\U0010FFFF/a", "\U0010FFFF\U0010FFFF"}},
		{"a\uFFFF", []string{"a\uFFFF", "a\uFFFFz"}},
		{"ÿ", []string{"ÿ", "ÿ/", "ÿÿ"}},
		{"a\x7f", []string{"a\x7f", "a\x7f/"}},
	} {
		expectPage(t, s, "b", keys, meta.ListOptions{Prefix: c.prefix, Limit: 100}, c.want, nil, false)
	}
	// Byte-wise order puts U+10000 after U+E000 (UTF-16 order would not).
	all := sorted(keys)
	expectPage(t, s, "b", keys, meta.ListOptions{Limit: 100}, all, nil, false)
	expectPage(t, s, "b", keys, meta.ListOptions{Prefix: "a\U0010FFFF", Delimiter: "/", Limit: 100},
		[]string{"a\U0010FFFF", "a\U0010FFFFz", "a\U0010FFFF\U0010FFFF"}, []string{"a\U0010FFFF/"}, false)
	expectPage(t, s, "b", keys, meta.ListOptions{Prefix: "a", Delimiter: "\U0010FFFF", Limit: 100},
		[]string{"a", "a\x7f", "a\x7f/", "a\u00fe", "a\u00ff", "a\u00ff/x", "a\u00ffb", "a\u0100", "a\uFFFF", "a\uFFFFz", "a\U0010FFFE"},
		[]string{"a\U0010FFFF"}, false)
	for _, prefix := range []string{"", "a", "a\u00ff", "a\U0010FFFF", "\U0010FFFF", "ÿ", "a\uFFFF"} {
		for _, delim := range []string{"", "/", "\u00ff", "\U0010FFFF", "\uFFFF", "z"} {
			for _, after := range []string{"", prefix, prefix + "\U0010FFFF", prefix + "\u00ff"} {
				for _, limit := range []int{1, 3, 100} {
					walkList(t, s, "b", keys, meta.ListOptions{Prefix: prefix, Delimiter: delim, After: after, Limit: limit})
				}
			}
		}
	}
}

func testListSummary(t *testing.T, s meta.Store) {
	mkBucket(t, s, "b")
	want := map[string]meta.Object{}
	for i, k := range []string{"x", "y/z", "zero"} {
		o := object("b", k, newBlob())
		o.Size = int64(1000 * i)
		o.ETag = fmt.Sprintf("etag%d-%d", i, i+1)
		o.LastModified = t0.Add(time.Duration(i) * 1500 * time.Millisecond)
		o.StorageClass = []string{"", "STANDARD_IA", "GLACIER"}[i]
		o.Owner = fmt.Sprintf("owner%d", i)
		o.Headers.ContentType = "a/b"
		o.UserMeta = map[string]string{"m": "v"}
		if k == "zero" {
			o.BlobID, o.Size = "", 0
		}
		put(t, s, o)
		want[k] = o
	}
	// With a delimiter, a backend may read the rows by another path (the
	// SQLite skip scan): the objects beside a common prefix keep their fields.
	for _, delim := range []string{"", "/"} {
		page, err := s.ListObjects(t.Context(), "b", meta.ListOptions{Limit: 10, Delimiter: delim})
		if err != nil {
			t.Fatal(err)
		}
		wantN := 3
		if delim != "" {
			wantN = 2
			if len(page.CommonPrefixes) != 1 || page.CommonPrefixes[0] != "y/" {
				t.Errorf("delimiter %q: common prefixes %q, want [y/]", delim, page.CommonPrefixes)
			}
		}
		if len(page.Objects) != wantN {
			t.Fatalf("delimiter %q: listing = %+v, want %d objects", delim, page.Objects, wantN)
		}
		for _, got := range page.Objects {
			w := want[got.Key]
			if got.Size != w.Size || got.ETag != w.ETag || !got.LastModified.Equal(w.LastModified) ||
				got.StorageClass != w.StorageClass || got.Owner != w.Owner {
				t.Errorf("delimiter %q: summary %+v does not match the object %+v", delim, got, w)
			}
		}
	}
}

// testListLarge pages through 100,000 keys in 1,000 directories.
func testListLarge(t *testing.T, s meta.Store) {
	if testing.Short() {
		t.Skip("100,000 keys: skipped in -short mode")
	}
	mkBucket(t, s, "big")
	const n = 100_000
	keys := make([]string, 0, n+20)
	for i := range n {
		keys = append(keys, fmt.Sprintf("d%03d/f%05d", i/100, i))
	}
	for i := range 20 { // top-level keys among the directories
		keys = append(keys, fmt.Sprintf("d%03d", i*50))
	}
	start := time.Now()
	fill(t, s, "big", keys)
	t.Logf("inserted %d keys in %v", len(keys), time.Since(start))

	start = time.Now()
	for _, c := range []struct {
		opts  meta.ListOptions
		pages int
	}{
		{meta.ListOptions{Limit: 1000}, 101},
		{meta.ListOptions{Limit: 1000, Delimiter: "/"}, 2},
		{meta.ListOptions{Limit: 1000, Prefix: "d5"}, 11},
		{meta.ListOptions{Limit: 1000, Prefix: "d5", Delimiter: "/"}, 1},
		{meta.ListOptions{Limit: 1000, Prefix: "d512/", Delimiter: "/"}, 1},
		{meta.ListOptions{Limit: 1000, Delimiter: "/", After: "d499/f49950"}, 1},
		{meta.ListOptions{Limit: 1000, After: "d499/f49950"}, 51},
		{meta.ListOptions{Limit: 999, Delimiter: "0"}, 0},
	} {
		pages := walkList(t, s, "big", keys, c.opts)
		if c.pages != 0 && pages != c.pages {
			t.Errorf("walk %s took %d pages, want %d", describe(c.opts), pages, c.pages)
		}
		if t.Failed() {
			t.FailNow()
		}
	}
	t.Logf("listed in %v", time.Since(start))
}

func sorted(keys []string) []string {
	out := slices.Clone(keys)
	sort.Strings(out)
	return out
}
