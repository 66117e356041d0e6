package sigv4

import (
	"strings"
	"time"
)

// dateLayouts are the request-time forms S3 accepts in a Date header (and,
// with SigV2, in x-amz-date): the three HTTP-date forms of RFC 9110 §5.6.7
// — RFC 1123 (with a one- or two-digit day, as RFC 822 allows), RFC 850
// and asctime — RFC 1123 with a numeric zone (Python's
// email.utils.formatdate without usegmt writes "-0000"; the S3 SigV2
// examples use "+0000"), and the X-Amz-Date form. A zone name other than
// GMT or UTC is refused: Go would read an unknown abbreviation as UTC,
// hours away from what the client meant.
var dateLayouts = []string{
	"Mon, 2 Jan 2006 15:04:05 GMT",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Monday, 02-Jan-06 15:04:05 GMT",
	"Mon Jan _2 15:04:05 2006",
	AmzDateFormat,
	"Mon, 2 Jan 2006 15:04:05 UTC",
	"Monday, 02-Jan-06 15:04:05 UTC",
}

// ParseDate parses a request date in any form of dateLayouts and returns
// it in UTC; ok is false for anything else, fractional seconds included
// (time.Parse reads them after any seconds field). The caller checks the
// skew.
func ParseDate(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil && t.Nanosecond() == 0 {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}
