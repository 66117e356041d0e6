package s3api

import (
	"net/http"
	"strconv"
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
	if v := headerValue(h, names.ifMatch); v != "" {
		if !etagMatches(v, o.ETag) {
			return errPrecondition
		}
	} else if t, ok := parseHTTPTime(h.Get(names.ifUnmodifiedSince)); ok && modified.After(t) {
		return errPrecondition
	}
	if v := headerValue(h, names.ifNoneMatch); v != "" {
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

// writeCondition reads the conditional-write headers of PUT, copy,
// CompleteMultipartUpload and delete: If-None-Match (only "*") and
// If-Match (an ETag, or "*": any existing object).
func writeCondition(h http.Header) (meta.Condition, error) {
	var c meta.Condition
	if v := headerValue(h, "If-None-Match"); v != "" {
		if strings.TrimSpace(v) != "*" {
			return c, apiErr(http.StatusNotImplemented, "NotImplemented",
				"If-None-Match on writes supports only the value '*'")
		}
		c.IfNoneMatchAny = true
	}
	setIfMatch(&c, headerValue(h, "If-Match"))
	return c, nil
}

// setIfMatch puts an If-Match value (or a DeleteObjects ETag) into c: "*"
// matches any existing object, anything else one ETag.
func setIfMatch(c *meta.Condition, v string) {
	if v = strings.TrimSpace(v); v == "*" {
		c.IfMatchAny = true
	} else if v != "" {
		c.IfMatch = strings.Trim(v, `"`)
	}
}

// deleteCondition is writeCondition plus DeleteObject's
// x-amz-if-match-size (bytes) and x-amz-if-match-last-modified-time
// (parseMatchTime). A malformed value is 400 InvalidArgument.
func deleteCondition(h http.Header) (meta.Condition, error) {
	c, err := writeCondition(h)
	if err != nil {
		return c, err
	}
	if v, ok := h["X-Amz-If-Match-Size"]; ok {
		n, err := parseMatchSize(v[0])
		if err != nil {
			return c, apiErr(http.StatusBadRequest, "InvalidArgument", "x-amz-if-match-size must be a number of bytes, not %q", v[0])
		}
		c.IfMatchSize = &n
	}
	if v, ok := h["X-Amz-If-Match-Last-Modified-Time"]; ok {
		t, ok := parseMatchTime(v[0])
		if !ok {
			return c, apiErr(http.StatusBadRequest, "InvalidArgument", "x-amz-if-match-last-modified-time must be a date, not %q", v[0])
		}
		c.IfMatchLastModified = t
	}
	return c, nil
}

// parseMatchSize reads a size condition: a non-negative decimal integer.
func parseMatchSize(v string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err == nil && n < 0 {
		err = strconv.ErrRange
	}
	return n, err
}

// parseMatchTime reads a last-modified-time condition: an HTTP date, as
// the SDKs send it in both the header and DeleteObjects' XML, or ISO 8601
// ("2026-11-24T10:00:00.000Z", as listings show it).
func parseMatchTime(v string) (time.Time, bool) {
	if t, ok := parseHTTPTime(v); ok {
		return t, true
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	return t, err == nil
}
