package lifecycle

import "testing"

func TestNeedsTags(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>tag</ID><Filter><And><Prefix>t/</Prefix><Tag><Key>tmp</Key><Value>yes</Value></Tag><ObjectSizeLessThan>10</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>4</Days></Expiration></Rule>`,
		`<Rule><ID>off</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Disabled</Status><Expiration><Days>4</Days></Expiration></Rule>`,
		`<Rule><ID>plain</ID><Filter><Prefix>p/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>4</Days></Expiration></Rule>`,
	), Day)
	for _, tc := range []struct {
		o    Object
		want bool
	}{
		{Object{Key: "t/a", Size: 5}, true},
		{Object{Key: "t/a", Size: 5, Tags: map[string]string{"tmp": "no"}}, true}, // tags given are ignored
		{Object{Key: "t/a", Size: 10}, false},
		{Object{Key: "x", Size: 1}, false}, // only the disabled rule has no prefix
		{Object{Key: "p/a", Size: 1}, false},
	} {
		if got := rs.NeedsTags(tc.o); got != tc.want {
			t.Errorf("NeedsTags(%+v) = %v, want %v", tc.o, got, tc.want)
		}
	}
	var none *Rules
	if none.NeedsTags(Object{Key: "t/a"}) {
		t.Error("nil rules need tags")
	}
}

// NoncurrentNeedsTags asks the NoncurrentVersionExpiration rules only, and
// NoncurrentExpiry matches a version's tags.
func TestNoncurrentNeedsTags(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>nc</ID><Filter><And><Prefix>v/</Prefix><Tag><Key>tmp</Key><Value>yes</Value></Tag></And></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>cur</ID><Filter><Tag><Key>tmp</Key><Value>yes</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>4</Days></Expiration></Rule>`,
	), Day)
	if !rs.NoncurrentNeedsTags(Object{Key: "v/a"}) || rs.NoncurrentNeedsTags(Object{Key: "w/a"}) {
		t.Error("NoncurrentNeedsTags: want v/a only (the Expiration rule does not count)")
	}
	if !rs.NeedsTags(Object{Key: "w/a"}) {
		t.Error("NeedsTags(w/a): the Expiration rule filters on tags")
	}
	since := day(2014, 1, 1, 0, 0)
	if _, _, ok := rs.NoncurrentExpiry(Object{Key: "v/a", Tags: map[string]string{"tmp": "yes"}}, since, 0); !ok {
		t.Error("a tagged noncurrent version does not expire")
	}
	if _, _, ok := rs.NoncurrentExpiry(Object{Key: "v/a"}, since, 0); ok {
		t.Error("an untagged noncurrent version expires")
	}
	var none *Rules
	if none.NoncurrentNeedsTags(Object{Key: "v/a"}) {
		t.Error("nil rules need tags")
	}
}
