package bucketrepl

import "strings"

// Match returns the rule that applies to an object of key with tags (nil
// for none): among the Enabled rules whose filter the object satisfies,
// the one of highest Priority (V2), or the one whose prefix starts the
// key (V1, whose prefixes do not overlap). ok is false when none applies.
func (c Config) Match(key string, tags map[string]string) (rule Rule, ok bool) {
	for _, r := range c.Rules {
		if r.Status != Enabled || !r.matches(key, tags) {
			continue
		}
		if !r.V2() {
			return r, true
		}
		if !ok || *r.Priority > *rule.Priority {
			rule, ok = r, true
		}
	}
	return rule, ok
}

// matches reports whether the rule's filter selects the object.
func (r Rule) matches(key string, tags map[string]string) bool {
	if r.Prefix != nil {
		return strings.HasPrefix(key, *r.Prefix)
	}
	f := r.Filter
	switch {
	case f.Prefix != nil:
		return strings.HasPrefix(key, *f.Prefix)
	case f.Tag != nil:
		return hasTags(tags, []Tag{*f.Tag})
	case f.And != nil:
		return (f.And.Prefix == nil || strings.HasPrefix(key, *f.And.Prefix)) && hasTags(tags, f.And.Tags)
	}
	return true
}

func hasTags(have map[string]string, want []Tag) bool {
	for _, t := range want {
		if v, ok := have[t.Key]; !ok || v != t.Value {
			return false
		}
	}
	return true
}
