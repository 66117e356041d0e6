package s3api

import (
	"net/http"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// checkConditions evaluates If-Match, If-Unmodified-Since, If-None-Match and
// If-Modified-Since against an object, in RFC 7232 order as S3 does: a
// passing If-Match overrides a failing If-Unmodified-Since, and a present
// If-None-Match makes If-Modified-Since irrelevant. The header names come
// from names so CopyObject can reuse it for x-amz-copy-source-if-*;
// notModified is the error for a 304 outcome.
func checkConditions(h http.Header, names condHeaders, o meta.Object, notModified error) error {
	modified := o.LastModified.Truncate(time.Second)
	if v := h.Get(names.ifMatch); v != "" {
		if !etagMatches(v, o.ETag) {
			return errPrecondition
		}
	} else if t, ok := parseHTTPTime(h.Get(names.ifUnmodifiedSince)); ok && modified.After(t) {
		return errPrecondition
	}
	if v := h.Get(names.ifNoneMatch); v != "" {
		if etagMatches(v, o.ETag) {
			return notModified
		}
	} else if t, ok := parseHTTPTime(h.Get(names.ifModifiedSince)); ok && !modified.After(t) {
		return notModified
	}
	return nil
}

type condHeaders struct{ ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince string }

var (
	getConditions  = condHeaders{"If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since"}
	copyConditions = condHeaders{"X-Amz-Copy-Source-If-Match", "X-Amz-Copy-Source-If-None-Match",
		"X-Amz-Copy-Source-If-Modified-Since", "X-Amz-Copy-Source-If-Unmodified-Since"}
)

// etagMatches reports whether a header's ETag list (or "*") names etag.
func etagMatches(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimSpace(v)
		v = strings.TrimPrefix(v, "W/")
		if v == "*" || strings.Trim(v, `"`) == etag {
			return true
		}
	}
	return false
}

func parseHTTPTime(v string) (time.Time, bool) {
	if v == "" {
		return time.Time{}, false
	}
	t, err := http.ParseTime(v)
	return t, err == nil
}

// writeCondition reads the conditional-write headers of PUT, copy and
// delete: If-None-Match (only "*") and If-Match.
func writeCondition(h http.Header) (meta.Condition, error) {
	var c meta.Condition
	if v := h.Get("If-None-Match"); v != "" {
		if strings.TrimSpace(v) != "*" {
			return c, apiErr(http.StatusNotImplemented, "NotImplemented",
				"If-None-Match on writes supports only the value '*'")
		}
		c.IfNoneMatchAny = true
	}
	if v := h.Get("If-Match"); v != "" {
		c.IfMatch = strings.Trim(strings.TrimSpace(v), `"`)
	}
	return c, nil
}
