package lifecycle

import (
	"testing"
	"time"
)

// NoncurrentDays counts from when the version became noncurrent (its
// successor's creation), not from its own creation, and rounds to the next
// midnight UTC as Expiration Days does.
func TestNoncurrentExpiryCountsFromSuccessor(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>nc</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>3</NoncurrentDays></NoncurrentVersionExpiration></Rule>`), Day)
	if len(rs.VersionPrefixes()) == 0 {
		t.Fatal("VersionPrefixes: none for a NoncurrentVersionExpiration rule")
	}
	if _, _, ok := rs.MarkerExpiry("a/k", time.Now()); ok {
		t.Fatal("a NoncurrentVersionExpiration rule alone removes delete markers")
	}
	created := day(2014, 1, 1, 10, 30)
	for _, tc := range []struct{ since, want time.Time }{
		{day(2014, 1, 1, 11, 0), day(2014, 1, 5, 0, 0)},
		{day(2014, 2, 10, 23, 59), day(2014, 2, 14, 0, 0)}, // a version superseded long after its creation
		{day(2014, 2, 10, 0, 0), day(2014, 2, 14, 0, 0)},   // exactly midnight: the next one
	} {
		at, id, ok := rs.NoncurrentExpiry(Object{Key: "a/k", LastModified: created}, tc.since, 0)
		if !ok || id != "nc" || !at.Equal(tc.want) {
			t.Errorf("noncurrent since %v: got %v %q %v, want %v", tc.since, at, id, ok, tc.want)
		}
	}
	if _, _, ok := rs.NoncurrentExpiry(Object{Key: "b/k"}, created, 0); ok {
		t.Error("a version the filter does not select expires")
	}
	var none *Rules
	if _, _, ok := none.NoncurrentExpiry(Object{Key: "a/k"}, created, 5); ok || none.VersionPrefixes() != nil {
		t.Error("a nil *Rules expires versions")
	}
}

// NewerNoncurrentVersions keeps that many newest noncurrent versions
// whatever their age; of two matching rules the earliest expiry wins.
func TestNoncurrentExpiryNewerVersions(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>keep2</ID><Filter/><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays><NewerNoncurrentVersions>2</NewerNoncurrentVersions></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>late</ID><Filter><Prefix>x/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>10</NoncurrentDays></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>off</ID><Filter/><Status>Disabled</Status><NoncurrentVersionExpiration><NoncurrentDays>1</NoncurrentDays></NoncurrentVersionExpiration></Rule>`,
	), time.Second)
	since := time.Date(2026, 5, 1, 12, 0, 0, 300e6, time.UTC)
	for newer, want := range []bool{false, false, true, true} {
		at, id, ok := rs.NoncurrentExpiry(Object{Key: "k"}, since, newer)
		if ok != want {
			t.Errorf("%d newer noncurrent versions: expires %v, want %v", newer, ok, want)
		}
		if ok && (id != "keep2" || !at.Equal(time.Date(2026, 5, 1, 12, 0, 2, 0, time.UTC))) {
			t.Errorf("%d newer: %v %q", newer, at, id)
		}
	}
	// Under x/ the second rule, without NewerNoncurrentVersions, expires the
	// newest noncurrent version too, later.
	at, id, ok := rs.NoncurrentExpiry(Object{Key: "x/k"}, since, 0)
	if !ok || id != "late" || !at.Equal(time.Date(2026, 5, 1, 12, 0, 11, 0, time.UTC)) {
		t.Errorf("x/k newest: %v %q %v", at, id, ok)
	}
	if at, id, _ := rs.NoncurrentExpiry(Object{Key: "x/k"}, since, 2); id != "keep2" || !at.Equal(time.Date(2026, 5, 1, 12, 0, 2, 0, time.UTC)) {
		t.Errorf("x/k third: %v %q, want keep2's earlier expiry", at, id)
	}
}

// An Expiration with Days removes a lone delete marker once the marker is
// as old as the rule's objects may be (S3: "When you specify the Days
// tag, Amazon S3 automatically performs ExpiredObjectDeleteMarker cleanup
// when the delete markers are old enough"); ExpiredObjectDeleteMarker
// removes it at once; Date, tag and minimum-size rules do not select it.
func TestMarkerExpiry(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>days</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>`+
			`<Rule><ID>edm</ID><Filter><Prefix>a/now/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`+
			`<Rule><ID>date</ID><Filter><Prefix>d/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2014-01-01T00:00:00Z</Date></Expiration></Rule>`+
			`<Rule><ID>tag</ID><Filter><Tag><Key>t</Key><Value>1</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`+
			`<Rule><ID>big</ID><Filter><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`), Day)
	modified := day(2014, 1, 1, 10, 30)
	for _, tc := range []struct {
		key  string
		at   time.Time
		rule string
		ok   bool
	}{
		{"a/k", day(2014, 1, 5, 0, 0), "days", true},
		{"a/now/k", time.Time{}, "edm", true},
		{"d/k", time.Time{}, "", false},
		{"z/k", time.Time{}, "", false},
	} {
		at, id, ok := rs.MarkerExpiry(tc.key, modified)
		if ok != tc.ok || id != tc.rule || !at.Equal(tc.at) {
			t.Errorf("MarkerExpiry(%s) = %v %q %v, want %v %q %v", tc.key, at, id, ok, tc.at, tc.rule, tc.ok)
		}
	}
	if got := rs.VersionPrefixes(); len(got) != 1 || got[0] != "" {
		t.Errorf("VersionPrefixes = %q, want the whole bucket (the tag and size rules name no prefix)", got)
	}
}
