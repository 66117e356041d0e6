package lifecycle

import (
	"strings"
	"time"
)

// Day is the standard length of a lifecycle day.
const Day = 24 * time.Hour

// Object is what rules are evaluated against: a current object version.
type Object struct {
	Key          string
	Size         int64
	LastModified time.Time
	// Tags are the object's tags (nil for none). Listings do not carry
	// them: NeedsTags says when they are worth reading.
	Tags map[string]string
}

// Rules is a configuration compiled for evaluation: its enabled rules only,
// with day the length of a lifecycle day. A nil *Rules has no rules.
type Rules struct {
	day        time.Duration
	expire     []compiled // rules with Expiration Days or Date
	abort      []compiled // rules with AbortIncompleteMultipartUpload
	noncurrent []compiled // rules with NoncurrentVersionExpiration
	markers    []compiled // rules with ExpiredObjectDeleteMarker true
}

type compiled struct {
	r      Rule
	prefix string
	tags   []Tag
	gt, lt *int64
}

// Compile prepares c's enabled rules for evaluation with a lifecycle day
// of day (Day in production).
func Compile(c Config, day time.Duration) *Rules {
	if day <= 0 {
		day = Day
	}
	rs := &Rules{day: day}
	for _, r := range c.Rules {
		if r.Status != Enabled {
			continue
		}
		cr := compileRule(r)
		if e := r.Expiration; e != nil && (e.Days != nil || e.Date != nil) {
			rs.expire = append(rs.expire, cr)
		}
		if e := r.Expiration; e != nil && e.ExpiredObjectDeleteMarker != nil && *e.ExpiredObjectDeleteMarker {
			rs.markers = append(rs.markers, cr)
		}
		if r.AbortIncompleteMultipartUpload != nil {
			rs.abort = append(rs.abort, cr)
		}
		if r.NoncurrentVersionExpiration != nil {
			rs.noncurrent = append(rs.noncurrent, cr)
		}
	}
	return rs
}

func compileRule(r Rule) compiled {
	cr := compiled{r: r}
	if r.Prefix != nil {
		cr.prefix = *r.Prefix
	}
	if f := r.Filter; f != nil {
		switch {
		case f.Prefix != nil:
			cr.prefix = *f.Prefix
		case f.Tag != nil:
			cr.tags = []Tag{*f.Tag}
		case f.And != nil:
			if f.And.Prefix != nil {
				cr.prefix = *f.And.Prefix
			}
			cr.tags, cr.gt, cr.lt = f.And.Tags, f.And.ObjectSizeGreaterThan, f.And.ObjectSizeLessThan
		default:
			cr.gt, cr.lt = f.ObjectSizeGreaterThan, f.ObjectSizeLessThan
		}
	}
	return cr
}

// matches reports whether the rule's filter selects o.
func (c compiled) matches(o Object) bool {
	if !strings.HasPrefix(o.Key, c.prefix) {
		return false
	}
	if (c.gt != nil && o.Size <= *c.gt) || (c.lt != nil && o.Size >= *c.lt) {
		return false
	}
	for _, t := range c.tags {
		if v, ok := o.Tags[t.Key]; !ok || v != t.Value {
			return false
		}
	}
	return true
}

// after is t plus n lifecycle days, rounded up to the next day boundary
// as S3 rounds to the next midnight UTC (an end exactly at midnight goes
// on to the next one, as in S3 and MinIO). Boundaries are whole days since
// Go's zero time, which with the standard day are midnights UTC.
func (rs *Rules) after(t time.Time, n int) time.Time {
	end := t.Add(time.Duration(n) * rs.day).UTC()
	return end.Truncate(rs.day).Add(rs.day)
}

// Empty reports whether rs holds no enabled action.
func (rs *Rules) Empty() bool {
	return rs == nil || len(rs.expire)+len(rs.abort)+len(rs.noncurrent)+len(rs.markers) == 0
}

// ExpiresObjects reports whether any enabled rule expires current objects.
func (rs *Rules) ExpiresObjects() bool { return rs != nil && len(rs.expire) > 0 }

// Expiry returns when o expires and the ID of the rule that expires it
// (the earliest of the rules that match, the first such rule on a tie);
// ok is false when no enabled Expiration rule matches o. An object expires
// once the time returned is not after now.
func (rs *Rules) Expiry(o Object) (at time.Time, ruleID string, ok bool) {
	if rs == nil {
		return time.Time{}, "", false
	}
	for _, c := range rs.expire {
		if !c.matches(o) {
			continue
		}
		var t time.Time
		if d := c.r.Expiration.Date; d != nil {
			t = d.UTC()
		} else {
			t = rs.after(o.LastModified, *c.r.Expiration.Days)
		}
		if !ok || t.Before(at) {
			at, ruleID, ok = t, c.r.ID, true
		}
	}
	return at, ruleID, ok
}

// NeedsTags reports whether o's tags could change Expiry's answer: some
// enabled Expiration rule filters on tags and matches o otherwise. Tags
// in o are ignored.
func (rs *Rules) NeedsTags(o Object) bool {
	return rs != nil && needsTags(rs.expire, o)
}

// NoncurrentNeedsTags is NeedsTags for NoncurrentExpiry: whether the tags
// of o, a noncurrent version, could change its answer.
func (rs *Rules) NoncurrentNeedsTags(o Object) bool {
	return rs != nil && needsTags(rs.noncurrent, o)
}

// needsTags reports whether one of cs filters on tags and selects o
// otherwise.
func needsTags(cs []compiled, o Object) bool {
	for _, c := range cs {
		if len(c.tags) > 0 {
			untagged := c
			untagged.tags = nil
			if untagged.matches(o) {
				return true
			}
		}
	}
	return false
}

// AbortDue returns when an upload of key initiated at initiated is to be
// aborted, and the rule's ID; ok is false when no enabled rule aborts it.
func (rs *Rules) AbortDue(key string, initiated time.Time) (at time.Time, ruleID string, ok bool) {
	if rs == nil {
		return time.Time{}, "", false
	}
	for _, c := range rs.abort {
		if !strings.HasPrefix(key, c.prefix) {
			continue
		}
		t := rs.after(initiated, c.r.AbortIncompleteMultipartUpload.DaysAfterInitiation)
		if !ok || t.Before(at) {
			at, ruleID, ok = t, c.r.ID, true
		}
	}
	return at, ruleID, ok
}

// MarkerExpiry returns when an expired object delete marker of key — a
// latest delete marker with no other version left — last modified at
// modified goes, and the ID of the rule that removes it; ok is false when
// no enabled rule does. A rule with ExpiredObjectDeleteMarker removes it
// at once (the zero time); a rule whose Expiration has Days removes it
// once it is as old as the rule's objects may be, as S3 does ("When you
// specify the Days tag, Amazon S3 automatically performs
// ExpiredObjectDeleteMarker cleanup when the delete markers are old enough
// to satisfy the age criteria"). A marker has no tags and no size: a rule
// filtering on tags or a minimum size does not select it.
func (rs *Rules) MarkerExpiry(key string, modified time.Time) (at time.Time, ruleID string, ok bool) {
	if rs == nil {
		return time.Time{}, "", false
	}
	m := Object{Key: key, LastModified: modified}
	for _, c := range rs.markers {
		if c.matches(m) {
			return time.Time{}, c.r.ID, true
		}
	}
	for _, c := range rs.expire {
		if c.r.Expiration.Days == nil || !c.matches(m) {
			continue
		}
		t := rs.after(modified, *c.r.Expiration.Days)
		if !ok || t.Before(at) {
			at, ruleID, ok = t, c.r.ID, true
		}
	}
	return at, ruleID, ok
}
