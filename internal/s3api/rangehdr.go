package s3api

import (
	"strconv"
	"strings"
)

// byteRange is a satisfiable range [start, start+length).
type byteRange struct{ start, length int64 }

// parseRange interprets a Range header for an object of the given size. ok
// is false when the header is absent, malformed or asks for several ranges:
// S3 then serves the whole object. A well-formed but unsatisfiable range
// returns errInvalidRange.
func parseRange(h string, size int64) (r byteRange, ok bool, err error) {
	spec, found := strings.CutPrefix(h, "bytes=")
	if !found || strings.Contains(spec, ",") {
		return r, false, nil
	}
	first, last, found := strings.Cut(strings.TrimSpace(spec), "-")
	if !found {
		return r, false, nil
	}
	if first == "" { // suffix: the last N bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n < 0 {
			return r, false, nil
		}
		if n == 0 || size == 0 {
			return r, false, errInvalidRange
		}
		n = min(n, size)
		return byteRange{size - n, n}, true, nil
	}
	start, err1 := strconv.ParseInt(first, 10, 64)
	if err1 != nil || start < 0 {
		return r, false, nil
	}
	end := size - 1
	if last != "" {
		e, err := strconv.ParseInt(last, 10, 64)
		if err != nil || e < start {
			return r, false, nil
		}
		end = min(e, size-1)
	}
	if start >= size {
		return r, false, errInvalidRange
	}
	return byteRange{start, end - start + 1}, true, nil
}
