package sigv2

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/jogstore/jog/internal/sigv4"
)

// TestDateForms: a SigV2 request verifies with its time in any form S3
// accepts (in Date, or in x-amz-date), and is refused when that time is
// skewed or malformed.
func TestDateForms(t *testing.T) {
	sign := func(header, value string) *http.Request {
		r := httptest.NewRequest(http.MethodGet, "http://s3.jog.test/bucket/key", nil)
		r.Header.Set(header, value)
		Sign(r, exampleAK, exampleSecret)
		return r
	}
	v := testVerifier() // now: Mon, 04 May 2026 12:00:00 GMT
	for _, c := range []struct{ header, value string }{
		{"Date", "Mon, 04 May 2026 12:00:00 GMT"},
		{"Date", "Mon, 4 May 2026 12:00:00 GMT"},
		{"Date", "Mon, 04 May 2026 12:00:00 -0000"},
		{"Date", "Mon, 04 May 2026 14:00:00 +0200"},
		{"Date", "Monday, 04-May-26 12:00:00 GMT"},
		{"Date", "Mon May  4 12:00:00 2026"},
		{"X-Amz-Date", "Mon, 04 May 2026 12:00:00 -0000"},
		{"X-Amz-Date", "20260504T120000Z"},
		{"X-Amz-Date", "2026-05-04T12:00:00Z"},
	} {
		if _, err := v.Verify(sign(c.header, c.value)); err != nil {
			t.Errorf("%s: %s: %v", c.header, c.value, err)
		}
	}
	for _, c := range []struct {
		header, value string
		want          error
	}{
		{"Date", "Mon, 04 May 2026 12:00:00 +0200", sigv4.ErrRequestTimeTooSkewed},
		{"Date", "Mon, 04 May 2026 12:00:00 PST", sigv4.ErrMissingDate},
		{"Date", "Mon, 04 May 2026 12:00:00", sigv4.ErrMissingDate},
		{"Date", "Mon, 04 May 2026 12:00:00.5 GMT", sigv4.ErrMissingDate},
		{"X-Amz-Date", "Monday, 04-May-26 12:00:00 CET", sigv4.ErrMissingDate},
	} {
		if _, err := v.Verify(sign(c.header, c.value)); !errors.Is(err, c.want) {
			t.Errorf("%s: %s: %v, want %v", c.header, c.value, err, c.want)
		}
	}
}
