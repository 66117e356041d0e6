package sigv4

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestParseDate(t *testing.T) {
	want := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{
		"Tue, 24 Nov 2026 10:00:00 GMT",   // RFC 1123 (http.TimeFormat, botocore usegmt=True)
		"Tue, 24 Nov 2026 10:00:00 -0000", // email.utils.formatdate(usegmt=False)
		"Tue, 24 Nov 2026 10:00:00 +0000", // the S3 SigV2 examples
		"Tue, 24 Nov 2026 11:30:00 +0130", // a numeric zone is applied
		"Tue, 24 Nov 2026 05:00:00 -0500",
		"Tue, 24 Nov 2026 10:00:00 UTC",
		"Tuesday, 24-Nov-26 10:00:00 GMT", // RFC 850
		"Tue Nov 24 10:00:00 2026",        // asctime
		"20261124T100000Z",                // the X-Amz-Date form
		"  Tue, 24 Nov 2026 10:00:00 GMT ",
	} {
		got, ok := ParseDate(s)
		if !ok || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	if got, ok := ParseDate("Wed, 4 Mar 2026 10:00:00 GMT"); !ok || got.Day() != 4 {
		t.Errorf("one-digit day: %v, %v", got, ok)
	}
	if got, ok := ParseDate("Wed Mar  4 10:00:00 2026"); !ok || got.Day() != 4 {
		t.Errorf("asctime with a space-padded day: %v, %v", got, ok)
	}
	for _, s := range []string{
		"", "yesterday", "0",
		"Tue, 24 Nov 2026 10:00:00",     // no zone
		"Tue, 24 Nov 2026 10:00:00 PST", // a zone name Go would read as UTC
		"Tue, 24 Nov 2026 10:00:00 EST",
		"Tue, 24 Nov 2026 10:00:00 +00", // a short offset
		"Tue, 31 Nov 2026 10:00:00 GMT", // no such day
		"Tue, 24 Nov 2026 24:00:00 GMT",
		"Tue, 24 Nov 2026 10:60:00 GMT",
		"Tue, 24 Foo 2026 10:00:00 GMT",
		"Tue, 24 Nov 2026 10:00:00 GMT extra",
		"2026-11-24T10:00:00Z", // RFC 3339 is not an HTTP date
		"20261124T100000",
		"20261124T100000.5Z",
		"Tue, 24 Nov 2026 10:00:00.5 GMT",
		"Tuesday, 24-Nov-2026 10:00:00 GMT",
	} {
		if got, ok := ParseDate(s); ok {
			t.Errorf("ParseDate(%q) = %v, want refused", s, got)
		}
	}
}

// dateSigned is a SigV4 request signed at t with no X-Amz-Date: its time
// is the Date header, set to date.
func dateSigned(t time.Time, date string) *http.Request {
	r := httptest.NewRequest(http.MethodGet, "http://s3.jog.test/bucket/key", nil)
	r.Header.Set("Date", date)
	r.Header.Set("X-Amz-Content-Sha256", EmptySHA256)
	signRequestHeaders(r, "s3", "AK", "secret", "us-east-1", t, EmptySHA256, []string{"date", "host", "x-amz-content-sha256"})
	return r
}

// TestVerifyDateHeaderForms: a request whose only time is a Date header
// verifies in every form S3 accepts, numeric zones included, and is still
// refused when that date is skewed or malformed.
func TestVerifyDateHeaderForms(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	v := &Verifier{Region: "us-east-1", Credentials: staticCreds{"AK": "secret"}, Now: fixedNow(at.Add(time.Minute))}
	for _, d := range []string{
		"Tue, 24 Nov 2026 10:00:00 GMT", "Tue, 24 Nov 2026 10:00:00 -0000", "Tue, 24 Nov 2026 12:00:00 +0200",
		"Tuesday, 24-Nov-26 10:00:00 GMT", "Tue Nov 24 10:00:00 2026",
	} {
		res, err := v.Verify(dateSigned(at, d))
		if err != nil || !res.Date.Equal(at) {
			t.Errorf("Date %q: %v, %v", d, res, err)
		}
	}
	for _, c := range []struct {
		date string
		want error
	}{
		{"Tue, 24 Nov 2026 10:00:00 +0200", ErrRequestTimeTooSkewed}, // the same clock reading, two hours off
		{"Tue, 24 Nov 2026 10:30:00 GMT", ErrRequestTimeTooSkewed},
		{"Tue, 24 Nov 2026 10:00:00 PST", ErrMissingDate},
		{"Tue, 24 Nov 2026 10:00:00", ErrMissingDate},
	} {
		if _, err := v.Verify(dateSigned(at, c.date)); !errors.Is(err, c.want) {
			t.Errorf("Date %q: %v, want %v", c.date, err, c.want)
		}
	}
}
