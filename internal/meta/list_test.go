package meta_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/metatest"
)

// memScan is a meta.ScanFunc over an in-memory key set. It counts calls and
// rows returned, and checks its arguments.
type memScan struct {
	t     *testing.T
	keys  []string // sorted, unique
	calls int
	rows  int
}

func newMemScan(t *testing.T, keys []string) *memScan {
	k := slices.Clone(keys)
	sort.Strings(k)
	return &memScan{t: t, keys: slices.Compact(k)}
}

func (m *memScan) scan(_ context.Context, start string, inclusive bool, end string, limit int) ([]meta.ObjectSummary, error) {
	m.calls++
	if limit < 1 {
		m.t.Fatalf("scan called with limit %d", limit)
	}
	if end != "" && start >= end {
		m.t.Errorf("scan called with an empty range [%q, %q)", start, end)
	}
	i := sort.SearchStrings(m.keys, start)
	if !inclusive && i < len(m.keys) && m.keys[i] == start {
		i++
	}
	var out []meta.ObjectSummary
	for ; i < len(m.keys) && len(out) < limit; i++ {
		if end != "" && m.keys[i] >= end {
			break
		}
		out = append(out, meta.ObjectSummary{Key: m.keys[i], Size: int64(len(m.keys[i]))})
	}
	m.rows += len(out)
	return out, nil
}

func (m *memScan) list(opts meta.ListOptions) meta.ListPage {
	m.t.Helper()
	page, err := meta.List(context.Background(), m.scan, opts)
	if err != nil {
		m.t.Fatalf("List %+v: %v", opts, err)
	}
	return page
}

func keysOf(objs []meta.ObjectSummary) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.Key
	}
	return out
}

// samePage compares the keys, prefixes, Truncated and (when truncated)
// NextAfter of two pages.
func samePage(got, want meta.ListPage) bool {
	return slices.Equal(keysOf(got.Objects), keysOf(want.Objects)) &&
		slices.Equal(got.CommonPrefixes, want.CommonPrefixes) &&
		got.Truncated == want.Truncated &&
		(!got.Truncated || got.NextAfter == want.NextAfter)
}

func fmtPage(p meta.ListPage) string {
	return fmt.Sprintf("{Objects:%+q CommonPrefixes:%+q Truncated:%v NextAfter:%+q}",
		keysOf(p.Objects), p.CommonPrefixes, p.Truncated, p.NextAfter)
}

func TestPrefixEnd(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"a", "b"},
		{"abc", "abd"},
		{"a\xff", "b"},
		{"a\xff\xff", "b"},
		{"\xff", ""},
		{"\xff\xff", ""},
		{"\xffa", "\xffb"},
		{"a/", "a0"},
		{"z", "{"},
		{"\x00", "\x01"},
		{"\x7f", "\x80"},
		{"é", "\xc3\xaa"},                  // é is C3 A9
		{"\U0010FFFF", "\xf4\x8f\xbf\xc0"}, // F4 8F BF BF
		{"a\u00ff", "a\xc3\xc0"},           // ÿ is C3 BF
	} {
		if got := meta.PrefixEnd(c.in); got != c.want {
			t.Errorf("PrefixEnd(%+q) = %+q, want %+q", c.in, got, c.want)
		}
	}
	// The defining property, on a few probes.
	for _, p := range []string{"a", "a\xff", "ab\xfe", "\xfe\xff", "é/"} {
		end := meta.PrefixEnd(p)
		for _, k := range []string{p, p + "\x00", p + "\xff", p + "\xff\xff\xff", p + "zz"} {
			if !(k < end) {
				t.Errorf("PrefixEnd(%+q) = %+q is not above %+q", p, end, k)
			}
		}
		if strings.HasPrefix(end, p) || end <= p {
			t.Errorf("PrefixEnd(%+q) = %+q is not the first string past the prefix", p, end)
		}
	}
}

func TestListTable(t *testing.T) {
	keys := []string{
		"a", "a/1", "a/2", "a/b/3", "a_", "a%", "ab", "b", "b--x", "b--y--z", "c/", "c//d", "d",
		"\xff", "\xff/x", "\xff\xff/y", "\xff\xffz",
	}
	type page struct {
		objects, prefixes []string
		truncated         bool
		nextAfter         string
	}
	for _, c := range []struct {
		name string
		opts meta.ListOptions
		want page
	}{
		{"all", meta.ListOptions{Limit: 100},
			page{objects: sortedCopy(keys)}},
		{"limit zero", meta.ListOptions{Limit: 0}, page{}},
		{"limit negative", meta.ListOptions{Limit: -1}, page{}},
		{"prefix underscore", meta.ListOptions{Prefix: "a_", Limit: 100}, page{objects: []string{"a_"}}},
		{"prefix percent", meta.ListOptions{Prefix: "a%", Limit: 100}, page{objects: []string{"a%"}}},
		{"delimiter", meta.ListOptions{Delimiter: "/", Limit: 100},
			page{objects: []string{"a", "a_", "a%", "ab", "b", "b--x", "b--y--z", "d", "\xff", "\xff\xffz"},
				prefixes: []string{"a/", "c/", "\xff/", "\xff\xff/"}}},
		{"delimiter limit", meta.ListOptions{Delimiter: "/", Limit: 3},
			page{objects: []string{"a", "a%"}, prefixes: []string{"a/"}, truncated: true, nextAfter: "a/"}},
		{"delimiter after group", meta.ListOptions{Delimiter: "/", Limit: 3, After: "a/"},
			page{objects: []string{"a_", "ab", "b"}, truncated: true, nextAfter: "b"}},
		{"after inside group", meta.ListOptions{Delimiter: "/", Limit: 2, After: "a/1"},
			page{objects: []string{"a_"}, prefixes: []string{"a/"}, truncated: true, nextAfter: "a_"}},
		{"after last of group", meta.ListOptions{Delimiter: "/", Limit: 2, After: "a/b/3"},
			page{objects: []string{"a_", "ab"}, truncated: true, nextAfter: "ab"}},
		{"prefix delimiter", meta.ListOptions{Prefix: "a/", Delimiter: "/", Limit: 100},
			page{objects: []string{"a/1", "a/2"}, prefixes: []string{"a/b/"}}},
		{"prefix is group", meta.ListOptions{Prefix: "a", Delimiter: "/", Limit: 100},
			page{objects: []string{"a", "a_", "a%", "ab"}, prefixes: []string{"a/"}}},
		{"prefix group after", meta.ListOptions{Prefix: "a", Delimiter: "/", After: "a/", Limit: 100},
			page{objects: []string{"a_", "ab"}}},
		{"multi-char delimiter", meta.ListOptions{Prefix: "b", Delimiter: "--", Limit: 100},
			page{objects: []string{"b"}, prefixes: []string{"b--"}}},
		{"multi-char delimiter prefix", meta.ListOptions{Prefix: "b--", Delimiter: "--", Limit: 100},
			page{objects: []string{"b--x"}, prefixes: []string{"b--y--"}}},
		{"double slash", meta.ListOptions{Prefix: "c/", Delimiter: "/", Limit: 100},
			page{objects: []string{"c/"}, prefixes: []string{"c//"}}},
		{"after before prefix", meta.ListOptions{Prefix: "b", After: "a", Limit: 100},
			page{objects: []string{"b", "b--x", "b--y--z"}}},
		{"after past prefix", meta.ListOptions{Prefix: "b", After: "c", Limit: 100}, page{}},
		{"after equals prefix", meta.ListOptions{Prefix: "b", After: "b", Limit: 100},
			page{objects: []string{"b--x", "b--y--z"}}},
		{"exact limit", meta.ListOptions{Prefix: "b", Limit: 3},
			page{objects: []string{"b", "b--x", "b--y--z"}}},
		{"one short", meta.ListOptions{Prefix: "b", Limit: 2},
			page{objects: []string{"b", "b--x"}, truncated: true, nextAfter: "b--x"}},
		{"high prefix", meta.ListOptions{Prefix: "\xff", Limit: 100},
			page{objects: []string{"\xff", "\xff/x", "\xff\xff/y", "\xff\xffz"}}},
		{"high prefix delimiter", meta.ListOptions{Prefix: "\xff", Delimiter: "/", Limit: 100},
			page{objects: []string{"\xff", "\xff\xffz"}, prefixes: []string{"\xff/", "\xff\xff/"}}},
		{"high delimiter", meta.ListOptions{Delimiter: "\xff", Limit: 100},
			page{objects: []string{"a", "a/1", "a/2", "a/b/3", "a_", "a%", "ab", "b", "b--x", "b--y--z", "c/", "c//d", "d"},
				prefixes: []string{"\xff"}}},
		{"high delimiter after group", meta.ListOptions{Delimiter: "\xff", After: "\xff", Limit: 100}, page{}},
		{"high prefix high delimiter after group",
			meta.ListOptions{Prefix: "\xff", Delimiter: "\xff", After: "\xff\xff", Limit: 100}, page{}},
		{"after all", meta.ListOptions{After: "\xff\xff\xff", Limit: 100}, page{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := newMemScan(t, keys).list(c.opts)
			want := meta.ListPage{CommonPrefixes: c.want.prefixes, Truncated: c.want.truncated, NextAfter: c.want.nextAfter}
			for _, k := range c.want.objects {
				want.Objects = append(want.Objects, meta.ObjectSummary{Key: k})
			}
			sort.Slice(want.Objects, func(i, j int) bool { return want.Objects[i].Key < want.Objects[j].Key })
			if !samePage(got, want) {
				t.Errorf("List(%+v)\n got %s\nwant %s", c.opts, fmtPage(got), fmtPage(want))
			}
			if ref := metatest.Reference(keys, c.opts); !samePage(ref, want) {
				t.Errorf("Reference(%+v)\n got %s\nwant %s", c.opts, fmtPage(ref), fmtPage(want))
			}
		})
	}
}

func TestListPassesSummaries(t *testing.T) {
	m := newMemScan(t, []string{"abc", "d/e"})
	page := m.list(meta.ListOptions{Delimiter: "/", Limit: 10})
	if len(page.Objects) != 1 || page.Objects[0].Size != 3 {
		t.Errorf("objects = %+v, want the scanned summary of abc", page.Objects)
	}
}

func TestListScanError(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	scan := func(ctx context.Context, start string, inclusive bool, end string, limit int) ([]meta.ObjectSummary, error) {
		calls++
		if calls == 2 {
			return nil, boom
		}
		return []meta.ObjectSummary{{Key: fmt.Sprintf("g%d/x", calls)}}, nil
	}
	page, err := meta.List(context.Background(), scan, meta.ListOptions{Delimiter: "/", Limit: 10})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if len(page.Objects) != 0 || len(page.CommonPrefixes) != 0 || page.Truncated {
		t.Errorf("page on error = %s, want empty", fmtPage(page))
	}
}

// TestListSkipsGroupsCheaply checks that a big common prefix costs a
// bounded number of scanned rows, not one per key in it.
func TestListSkipsGroupsCheaply(t *testing.T) {
	var keys []string
	for g := range 50 {
		for i := range 2000 {
			keys = append(keys, fmt.Sprintf("g%02d/%04d", g, i))
		}
	}
	keys = append(keys, "top")
	m := newMemScan(t, keys)
	page := m.list(meta.ListOptions{Delimiter: "/", Limit: 1000})
	if len(page.CommonPrefixes) != 50 || len(page.Objects) != 1 || page.Truncated {
		t.Fatalf("page = %d prefixes, %d objects, truncated %v", len(page.CommonPrefixes), len(page.Objects), page.Truncated)
	}
	if m.rows > 1000 {
		t.Errorf("listing 51 items scanned %d rows in %d calls", m.rows, m.calls)
	}
	t.Logf("%d calls, %d rows", m.calls, m.rows)

	// Without a delimiter a page is a few large scans.
	m.calls, m.rows = 0, 0
	page = m.list(meta.ListOptions{Limit: 5000})
	if len(page.Objects) != 5000 || !page.Truncated {
		t.Fatalf("page = %d objects, truncated %v", len(page.Objects), page.Truncated)
	}
	if m.calls > 10 || m.rows > 5010 {
		t.Errorf("listing 5000 keys took %d calls, %d rows", m.calls, m.rows)
	}
}

// randomKey draws from an alphabet rich in delimiter-like and boundary bytes,
// including 0xff (never valid UTF-8, but meta.List works on bytes).
func randomKey(rng *rand.Rand, maxLen int) string {
	alphabet := []string{"a", "b", "/", "-", "--", "_", "%", "\xff", "\xfe", "é", "\U0010FFFF", "\x00", "~"}
	var sb strings.Builder
	for range 1 + rng.IntN(maxLen) {
		sb.WriteString(alphabet[rng.IntN(len(alphabet))])
	}
	return sb.String()
}

// TestListRandom compares meta.List with the brute-force reference on random
// key sets, options and page walks.
func TestListRandom(t *testing.T) {
	iterations := 3000
	if testing.Short() {
		iterations = 300
	}
	rng := rand.New(rand.NewPCG(7, 11))
	delims := []string{"", "/", "-", "--", "\xff", "a", "é", "\U0010FFFF", "/-", "ab"}
	for it := range iterations {
		var keys []string
		for range rng.IntN(60) {
			keys = append(keys, randomKey(rng, 5))
		}
		m := newMemScan(t, keys)
		pick := func() string { // a prefix/after candidate
			switch rng.IntN(5) {
			case 0:
				return ""
			case 1:
				if len(m.keys) > 0 {
					k := m.keys[rng.IntN(len(m.keys))]
					return k[:rng.IntN(len(k)+1)]
				}
			case 2:
				if len(m.keys) > 0 {
					return m.keys[rng.IntN(len(m.keys))]
				}
			}
			return randomKey(rng, 3)
		}
		opts := meta.ListOptions{
			Prefix:    pick(),
			Delimiter: delims[rng.IntN(len(delims))],
			Limit:     1 + rng.IntN(8),
		}
		if rng.IntN(3) == 0 {
			opts.Prefix = ""
		}
		if rng.IntN(2) == 0 {
			opts.After = pick()
		}
		if rng.IntN(4) == 0 && opts.Delimiter != "" && len(m.keys) > 0 {
			// After names a common prefix, as a continuation would.
			k := m.keys[rng.IntN(len(m.keys))]
			if strings.HasPrefix(k, opts.Prefix) {
				if i := strings.Index(k[len(opts.Prefix):], opts.Delimiter); i >= 0 {
					opts.After = k[:len(opts.Prefix)+i+len(opts.Delimiter)]
				}
			}
		}
		if rng.IntN(10) == 0 {
			opts.Limit = 1000 + rng.IntN(2)
		}

		want := metatest.ReferenceItems(m.keys, opts.Prefix, opts.Delimiter, opts.After)
		var got []metatest.Item
		walk := opts
		for pages := 0; ; pages++ {
			if pages > len(want)+1 {
				t.Fatalf("iteration %d: walk %+v does not end (keys %+q)", it, opts, m.keys)
			}
			page := m.list(walk)
			if ref := metatest.Reference(m.keys, walk); !samePage(page, ref) {
				t.Fatalf("iteration %d: List(%+v)\n got %s\nwant %s\nkeys %+q", it, walk, fmtPage(page), fmtPage(ref), m.keys)
			}
			got = append(got, metatest.PageItems(page)...)
			if !page.Truncated {
				break
			}
			walk.After = page.NextAfter
		}
		if !slices.Equal(got, want) {
			t.Fatalf("iteration %d: walk %+v\n got %+v\nwant %+v", it, opts, got, want)
		}
	}
}

func sortedCopy(keys []string) []string {
	out := slices.Clone(keys)
	sort.Strings(out)
	return out
}
