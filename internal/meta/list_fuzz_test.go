package meta_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
)

// Bounds on one fuzz input: a listing over at most maxFuzzKeys keys.
const (
	maxFuzzKeys     = 200
	maxFuzzKeyBytes = 4096
)

func fmtOpts(o meta.ListOptions) string {
	return fmt.Sprintf("{Prefix:%+q Delimiter:%+q After:%+q Limit:%d}", o.Prefix, o.Delimiter, o.After, o.Limit)
}

// FuzzList is a differential test of meta.List (over an in-memory ordered
// scan) against metatest.Reference, the brute-force model of S3 listing:
// random keys (newline-separated in keys), prefix, delimiter, after and
// limit. The first page must equal the reference page, and walking every
// page through NextAfter must yield exactly the reference's items, ending
// after a bounded number of pages. The scan also checks List never asks
// for an empty range or a limit below 1.
func FuzzList(f *testing.F) {
	f.Add("a\na/1\na/2\na/b/3\na_\na%\nab\nb\nb--x\nb--y--z\nc/\nc//d\nd\n\xff\n\xff/x\n\xff\xff/y\n\xff\xffz", "", "/", "", uint16(3))
	f.Add("a\na/1\na/2\na/b/3", "a", "/", "a/", uint16(100))
	f.Add("a/1\na/3\nb", "", "/", "a/2", uint16(2))
	f.Add("b\nb--x\nb--y--z", "b--", "--", "", uint16(1))
	f.Add("\xff\n\xff\xff\n\xff\xff\xff", "\xff", "\xff", "\xff\xff", uint16(1000))
	f.Add("é/x\né\né/\n\U0010FFFF", "é", "/", "", uint16(1))
	f.Add("x\x00y\nx\ny", "", "\x00", "", uint16(0))
	f.Add("k1\nk2\nk3\nk4\nk5", "k", "", "k2", uint16(1001))
	f.Fuzz(func(t *testing.T, keys, prefix, delimiter, after string, limit uint16) {
		if len(keys) > maxFuzzKeyBytes || strings.Count(keys, "\n") >= maxFuzzKeys {
			t.Skip("input over the fuzz bounds")
		}
		m := newMemScan(t, strings.Split(keys, "\n"))
		opts := meta.ListOptions{Prefix: prefix, Delimiter: delimiter, After: after, Limit: int(limit % 1002)}
		page := m.list(opts)
		if ref := metatest.Reference(m.keys, opts); !samePage(page, ref) {
			t.Fatalf("List(%s)\n got %s\nwant %s\nkeys %+q", fmtOpts(opts), fmtPage(page), fmtPage(ref), m.keys)
		}
		if n := len(page.Objects) + len(page.CommonPrefixes); n > opts.Limit {
			t.Fatalf("List(%s) returned %d items, over its limit", fmtOpts(opts), n)
		}
		if opts.Limit == 0 {
			return
		}
		want := metatest.ReferenceItems(m.keys, prefix, delimiter, after)
		var got []metatest.Item
		walk := opts
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("walk %s does not end (keys %+q)", fmtOpts(opts), m.keys)
			}
			p := m.list(walk)
			if pages > 0 {
				if ref := metatest.Reference(m.keys, walk); !samePage(p, ref) {
					t.Fatalf("List(%s)\n got %s\nwant %s\nkeys %+q", fmtOpts(walk), fmtPage(p), fmtPage(ref), m.keys)
				}
			}
			got = append(got, metatest.PageItems(p)...)
			if !p.Truncated {
				break
			}
			walk.After = p.NextAfter
		}
		if !slices.Equal(got, want) {
			t.Fatalf("walk %s\n got %+v\nwant %+v\nkeys %+q", fmtOpts(opts), got, want, m.keys)
		}
	})
}
