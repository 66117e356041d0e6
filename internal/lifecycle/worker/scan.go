package worker

import "github.com/jogstore/jog/internal/meta"

// A phase scans only the key prefixes its rules name
// (lifecycle.Rules.ObjectPrefixes and the like: sorted, disjoint), one
// after the other, a page at a time. Its place is the cursor's: after the
// key cursor.After, or, once a prefix is done, at the start of the prefix
// cursor.Next. The prefixes are those of the rules as they are at each
// page, so a changed configuration applies from the next page on.

// nextPrefix returns the prefix of prefixes to list from a place after
// key after (exclusive) or, when next is set, at next (inclusive); ok is
// false when the scan has passed every prefix.
func nextPrefix(prefixes []string, after, next string) (prefix string, ok bool) {
	for _, p := range prefixes {
		end := meta.PrefixEnd(p) // "" for the whole bucket
		if end == "" || (next != "" && next < end) || (next == "" && after < end) {
			return p, true
		}
	}
	return "", false
}

// following returns the prefix after p in prefixes, "" when p is the
// last. A prefix is never "" unless it is the only one: the scan of the
// whole bucket has no following prefix.
func following(prefixes []string, p string) string {
	for _, q := range prefixes {
		if q > p {
			return q
		}
	}
	return ""
}

// listFrom is the key marker to list prefix p from: cursor.After, or
// nothing (the start of p) when the place is cursor.Next.
func listFrom(cur *cursor) string {
	if cur.Next != "" {
		return ""
	}
	return cur.After
}
