package lifecycle

import "time"

// NoncurrentExpiry returns when the noncurrent version o expires and the
// ID of the rule that expires it (the earliest of the matching rules, the
// first on a tie). since is when o became noncurrent — the creation of the
// version that succeeded it, as S3 counts NoncurrentDays — and newer is
// how many noncurrent versions of its key are newer than o. A rule with
// NewerNoncurrentVersions n keeps the n newest noncurrent versions
// whatever their age; ok is false when no enabled rule matches o or every
// matching rule keeps it. o expires once the time returned is not after
// now.
func (rs *Rules) NoncurrentExpiry(o Object, since time.Time, newer int) (at time.Time, ruleID string, ok bool) {
	if rs == nil {
		return time.Time{}, "", false
	}
	for _, c := range rs.noncurrent {
		nve := c.r.NoncurrentVersionExpiration
		if !c.matches(o) || (nve.NewerNoncurrentVersions != nil && newer < *nve.NewerNoncurrentVersions) {
			continue
		}
		t := rs.after(since, nve.NoncurrentDays)
		if !ok || t.Before(at) {
			at, ruleID, ok = t, c.r.ID, true
		}
	}
	return at, ruleID, ok
}
