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
