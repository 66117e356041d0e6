package lifecycle

import (
	"testing"
	"time"
)

func mustParse(t *testing.T, rules ...string) Config {
	t.Helper()
	c, err := ParseXML(doc(rules...))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func day(y int, m time.Month, d, h, mi int) time.Time {
	return time.Date(y, m, d, h, mi, 0, 0, time.UTC)
}

// TestExpiryDaysRoundsToMidnight follows S3's documented example: an
// object created on January 1, 2014 10:30 UTC under a 3-day rule expires on
// January 5, 2014 00:00 UTC (3 days later, rounded to the next midnight).
func TestExpiryDaysRoundsToMidnight(t *testing.T) {
	rs := Compile(mustParse(t, `<Rule><ID>three</ID><Filter/><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>`), Day)
	cases := []struct{ modified, want time.Time }{
		{day(2014, 1, 1, 10, 30), day(2014, 1, 5, 0, 0)},
		{day(2014, 1, 1, 23, 59), day(2014, 1, 5, 0, 0)},
		{day(2014, 1, 1, 0, 0), day(2014, 1, 5, 0, 0)}, // exactly midnight: the next one, as MinIO
		{day(2014, 12, 30, 12, 0), day(2015, 1, 3, 0, 0)},
		// Another zone's wall clock is the same instant.
		{time.Date(2014, 1, 1, 11, 30, 0, 0, time.FixedZone("CET", 3600)), day(2014, 1, 5, 0, 0)},
	}
	for _, tc := range cases {
		at, id, ok := rs.Expiry(Object{Key: "k", LastModified: tc.modified})
		if !ok || id != "three" || !at.Equal(tc.want) {
			t.Errorf("modified %v: got %v %q %v, want %v", tc.modified, at, id, ok, tc.want)
		}
	}
}

// A short lifecycle day rounds to its own boundaries.
func TestExpiryShortDay(t *testing.T) {
	rs := Compile(mustParse(t, `<Rule><ID>r</ID><Filter/><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`), time.Second)
	mod := time.Date(2026, 5, 1, 12, 0, 0, 300e6, time.UTC)
	at, _, ok := rs.Expiry(Object{Key: "k", LastModified: mod})
	if want := time.Date(2026, 5, 1, 12, 0, 3, 0, time.UTC); !ok || !at.Equal(want) {
		t.Errorf("got %v, want %v", at, want)
	}
}

func TestExpiryDateAndEarliestRule(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>long</ID><Filter/><Status>Enabled</Status><Expiration><Days>100</Days></Expiration></Rule>`,
		`<Rule><ID>date</ID><Filter><Prefix>d/</Prefix></Filter><Status>Enabled</Status><Expiration><Date>2020-06-01T00:00:00Z</Date></Expiration></Rule>`,
		`<Rule><ID>off</ID><Filter/><Status>Disabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
	), Day)
	mod := day(2020, 5, 1, 8, 0)
	if at, id, _ := rs.Expiry(Object{Key: "d/x", LastModified: mod}); id != "date" || !at.Equal(day(2020, 6, 1, 0, 0)) {
		t.Errorf("d/x: %v %q, want the Date rule", at, id)
	}
	// A Date already past still expires objects made after it.
	if at, id, _ := rs.Expiry(Object{Key: "d/y", LastModified: day(2021, 1, 1, 0, 0)}); id != "date" || !at.Equal(day(2020, 6, 1, 0, 0)) {
		t.Errorf("d/y: %v %q", at, id)
	}
	if at, id, _ := rs.Expiry(Object{Key: "e/x", LastModified: mod}); id != "long" || !at.Equal(day(2020, 8, 10, 0, 0)) {
		t.Errorf("e/x: %v %q, want the 100-day rule (the disabled one never applies)", at, id)
	}
}

func TestFilters(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>legacy</ID><Prefix>old/</Prefix><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
		`<Rule><ID>big</ID><Filter><ObjectSizeGreaterThan>100</ObjectSizeGreaterThan></Filter><Status>Enabled</Status><Expiration><Days>2</Days></Expiration></Rule>`,
		`<Rule><ID>and</ID><Filter><And><Prefix>logs/</Prefix><ObjectSizeGreaterThan>10</ObjectSizeGreaterThan><ObjectSizeLessThan>20</ObjectSizeLessThan></And></Filter><Status>Enabled</Status><Expiration><Days>3</Days></Expiration></Rule>`,
		`<Rule><ID>tag</ID><Filter><Tag><Key>tmp</Key><Value>yes</Value></Tag></Filter><Status>Enabled</Status><Expiration><Days>4</Days></Expiration></Rule>`,
	), Day)
	cases := []struct {
		o    Object
		want string // "" = no rule
	}{
		{Object{Key: "old/a", Size: 500}, "legacy"},
		{Object{Key: "new/a", Size: 101}, "big"},
		{Object{Key: "new/a", Size: 100}, ""}, // greater than, strictly
		{Object{Key: "logs/a", Size: 15}, "and"},
		{Object{Key: "logs/a", Size: 20}, ""}, // less than, strictly
		{Object{Key: "logs/a", Size: 10}, ""},
		{Object{Key: "x", Size: 1}, ""},
		{Object{Key: "x", Size: 1, Tags: map[string]string{"tmp": "yes"}}, "tag"},
		{Object{Key: "x", Size: 1, Tags: map[string]string{"tmp": "no"}}, ""},
	}
	for _, tc := range cases {
		_, id, ok := rs.Expiry(tc.o)
		if id != tc.want || ok != (tc.want != "") {
			t.Errorf("%+v: rule %q, want %q", tc.o, id, tc.want)
		}
	}
}

func TestAbortDue(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>tmp</ID><Filter><Prefix>tmp/</Prefix></Filter><Status>Enabled</Status><AbortIncompleteMultipartUpload><DaysAfterInitiation>1</DaysAfterInitiation></AbortIncompleteMultipartUpload></Rule>`,
		`<Rule><ID>exp</ID><Filter/><Status>Enabled</Status><Expiration><Days>1</Days></Expiration></Rule>`,
	), Day)
	if len(rs.UploadPrefixes()) == 0 || !rs.ExpiresObjects() || rs.Empty() {
		t.Fatal("rules not compiled")
	}
	at, id, ok := rs.AbortDue("tmp/x", day(2024, 2, 28, 9, 0))
	if !ok || id != "tmp" || !at.Equal(day(2024, 3, 1, 0, 0)) {
		t.Errorf("got %v %q %v", at, id, ok)
	}
	if _, _, ok := rs.AbortDue("keep/x", day(2024, 2, 28, 9, 0)); ok {
		t.Error("an upload outside the prefix is due")
	}
	var none *Rules
	if !none.Empty() || none.ExpiresObjects() || none.UploadPrefixes() != nil {
		t.Error("a nil *Rules has rules")
	}
	if _, _, ok := none.Expiry(Object{Key: "k"}); ok {
		t.Error("a nil *Rules expires objects")
	}
}

func TestVersionHooks(t *testing.T) {
	rs := Compile(mustParse(t,
		`<Rule><ID>nc</ID><Filter><Prefix>a/</Prefix></Filter><Status>Enabled</Status><NoncurrentVersionExpiration><NoncurrentDays>2</NoncurrentDays></NoncurrentVersionExpiration></Rule>`,
		`<Rule><ID>dm</ID><Filter><Prefix>b/</Prefix></Filter><Status>Enabled</Status><Expiration><ExpiredObjectDeleteMarker>true</ExpiredObjectDeleteMarker></Expiration></Rule>`,
	), Day)
	if rs.ExpiresObjects() || rs.Empty() {
		t.Error("version-only rules: ExpiresObjects true or Empty")
	}
	// NoncurrentExpiry alone decides which noncurrent versions a rule
	// selects (the worker asks nothing else).
	if _, id, ok := rs.NoncurrentExpiry(Object{Key: "a/x"}, time.Now(), 0); !ok || id != "nc" {
		t.Errorf("NoncurrentExpiry(a/x) = %q %v", id, ok)
	}
	if _, id, ok := rs.NoncurrentExpiry(Object{Key: "b/x"}, time.Now(), 0); ok {
		t.Errorf("NoncurrentExpiry(b/x) = %q %v", id, ok)
	}
	if _, _, ok := rs.MarkerExpiry("b/x", time.Now()); !ok {
		t.Error("MarkerExpiry(b/x): not removed")
	}
	if _, _, ok := rs.MarkerExpiry("a/x", time.Now()); ok {
		t.Error("MarkerExpiry(a/x): removed")
	}
}
