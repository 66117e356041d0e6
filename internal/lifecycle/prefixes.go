package lifecycle

import (
	"slices"
	"strings"
)

// The key prefixes a pass must scan to find everything a kind of rule can
// select: sorted, none a prefix of another (a nested or repeated prefix is
// covered by the shorter one), [""] when a rule names no prefix (the whole
// bucket), none when no enabled rule has the action. Keys outside them are
// never selected, so a pass need not read them.

// ObjectPrefixes are the prefixes of the enabled Expiration (Days, Date)
// rules.
func (rs *Rules) ObjectPrefixes() []string {
	if rs == nil {
		return nil
	}
	return scanPrefixes(rs.expire)
}

// UploadPrefixes are the prefixes of the enabled
// AbortIncompleteMultipartUpload rules.
func (rs *Rules) UploadPrefixes() []string {
	if rs == nil {
		return nil
	}
	return scanPrefixes(rs.abort)
}

// VersionPrefixes are the prefixes of the enabled rules that remove
// versions or delete markers: NoncurrentVersionExpiration,
// ExpiredObjectDeleteMarker, and Expiration with Days (which removes
// expired object delete markers too: MarkerExpiry).
func (rs *Rules) VersionPrefixes() []string {
	if rs == nil {
		return nil
	}
	var days []compiled
	for _, c := range rs.expire {
		if c.r.Expiration.Days != nil {
			days = append(days, c)
		}
	}
	return scanPrefixes(rs.noncurrent, rs.markers, days)
}

func scanPrefixes(sets ...[]compiled) []string {
	var ps []string
	for _, cs := range sets {
		for _, c := range cs {
			ps = append(ps, c.prefix)
		}
	}
	slices.Sort(ps)
	// The strings that start with p are one interval of the sort order: a
	// prefix covered by an earlier one is covered by the last one kept.
	out := ps[:0]
	for _, p := range ps {
		if len(out) > 0 && strings.HasPrefix(p, out[len(out)-1]) {
			continue
		}
		out = append(out, p)
	}
	return out
}
