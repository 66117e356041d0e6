package lifecycle

import (
	"slices"
	"testing"
)

func TestScanPrefixes(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>b</ID><Filter><Prefix>logs/b/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>tag</ID><Filter><Tag><Key>k</Key><Value>v</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>9</Days></Expiration></Rule>`,
	), Day)
	// The tag-only Expiration rule names no prefix: the whole bucket.
	if got := rs.ObjectPrefixes(); !slices.Equal(got, []string{""}) {
		t.Errorf("ObjectPrefixes = %q, want the whole bucket", got)
	}
	rs = Compile(mustParse(t,
		`<Rule><ID>b</ID><Filter><Prefix>logs/b/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>a</ID><Filter><And><Prefix>logs/</Prefix><ObjectSizeLessThan>10</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>logs2</ID><Prefix>logs2</Prefix><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`,
		`<Rule><ID>dup</ID><Filter><Prefix>logs/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>5</Days></Expiration></Rule>`,
		`<Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
		`<Rule><ID>off</ID><Filter><Prefix>z/</Prefix></Filter><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>nc</ID><Filter><Prefix>v/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>dm</ID><Filter><Prefix>m/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`,
	), Day)
	for _, tc := range []struct {
		name      string
		got, want []string
	}{
		// logs/b/ and the repeated logs/ are within logs/; logs2 is not.
		{"ObjectPrefixes", rs.ObjectPrefixes(), []string{"logs/", "logs2"}},
		{"UploadPrefixes", rs.UploadPrefixes(), []string{"tmp/"}},
		// Expiration Days removes expired delete markers too.
		{"VersionPrefixes", rs.VersionPrefixes(), []string{"logs/", "logs2", "m/", "v/"}},
	} {
		if !slices.Equal(tc.got, tc.want) {
			t.Errorf("%s = %q, want %q", tc.name, tc.got, tc.want)
		}
	}
	var none *Rules
	if none.ObjectPrefixes() != nil || none.UploadPrefixes() != nil || none.VersionPrefixes() != nil {
		t.Error("nil rules name prefixes")
	}
}
