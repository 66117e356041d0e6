package metatest

import (
	"sort"
	"strings"

	"github.com/jogstore/jog/internal/meta"
)

// Reference is a brute-force model of S3 listing semantics, the oracle the
// suite (and meta's own unit tests) compare real listings against. keys may
// come in any order and may repeat.
//
// The rules: a key is considered when it starts with Prefix and sorts
// strictly after After (byte-wise). With a Delimiter, a considered key whose
// remainder after Prefix contains the delimiter rolls up into the common
// prefix ending at the first delimiter; a common prefix equal to After is
// dropped (After is then a continuation marker that names a group already
// returned). As in S3, an After strictly inside a group (for example "a/2"
// with keys "a/1", "a/3") still yields that group when some key of the group
// sorts after it. Objects and common prefixes form one byte-wise ordered
// sequence of which the page holds the first Limit items; Truncated reports
// whether more follow, and NextAfter is then the last item returned.
//
// The returned ObjectSummary values carry only Key.
func Reference(keys []string, opts meta.ListOptions) meta.ListPage {
	items := ReferenceItems(keys, opts.Prefix, opts.Delimiter, opts.After)
	var page meta.ListPage
	if opts.Limit <= 0 {
		return page
	}
	n := len(items)
	if n > opts.Limit {
		n = opts.Limit
		page.Truncated = true
	}
	for _, it := range items[:n] {
		if it.CommonPrefix {
			page.CommonPrefixes = append(page.CommonPrefixes, it.Name)
		} else {
			page.Objects = append(page.Objects, meta.ObjectSummary{Key: it.Name})
		}
		page.NextAfter = it.Name
	}
	if !page.Truncated {
		page.NextAfter = ""
	}
	return page
}

// Item is one entry of a listing: an object key or a common prefix.
type Item struct {
	Name         string
	CommonPrefix bool
}

// ReferenceItems returns every item of the listing (no Limit) in order; see
// Reference for the rules.
func ReferenceItems(keys []string, prefix, delimiter, after string) []Item {
	seen := make(map[string]bool)
	var items []Item
	for _, k := range keys {
		if !strings.HasPrefix(k, prefix) || k <= after {
			continue
		}
		it := Item{Name: k}
		if delimiter != "" {
			if i := strings.Index(k[len(prefix):], delimiter); i >= 0 {
				it = Item{Name: k[:len(prefix)+i+len(delimiter)], CommonPrefix: true}
				if it.Name == after {
					continue
				}
			}
		}
		if !seen[it.Name] {
			seen[it.Name] = true
			items = append(items, it)
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}

// PageItems flattens a page into its items in byte-wise order.
func PageItems(p meta.ListPage) []Item {
	items := make([]Item, 0, len(p.Objects)+len(p.CommonPrefixes))
	for _, o := range p.Objects {
		items = append(items, Item{Name: o.Key})
	}
	for _, cp := range p.CommonPrefixes {
		items = append(items, Item{Name: cp, CommonPrefix: true})
	}
	sort.SliceStable(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	return items
}
