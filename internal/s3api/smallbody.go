package s3api

import (
	"bytes"
	"crypto/md5"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/jogstore/jog/internal/checksum"
)

// readSmallBody reads a request body parsed whole (DeleteObjects, bucket
// configurations, XML documents) up to max bytes, and verifies the
// Content-MD5 and, with checksums, the x-amz-checksum-* headers SDKs send in
// place of it. (CompleteMultipartUpload's checksum headers name the
// object's checksum, not the body's: it reads without.)
func readSmallBody(r *http.Request, max int, checksums bool) ([]byte, error) {
	want, err := contentMD5(r.Header)
	if err != nil {
		return nil, err
	}
	var algs []checksum.Algorithm
	for _, a := range checksum.Algorithms {
		if !checksums {
			break
		}
		if v := r.Header.Get(a.HeaderName()); v != "" {
			if _, err := a.Decode(v); err != nil {
				return nil, apiErr(http.StatusBadRequest, "InvalidRequest", "Value for %s header is invalid.", a.HeaderName())
			}
			algs = append(algs, a)
		}
	}
	src := io.Reader(r.Body)
	if len(algs) > 0 {
		src = checksum.NewReader(src, algs, func(a checksum.Algorithm) string { return r.Header.Get(a.HeaderName()) })
	}
	body, err := io.ReadAll(io.LimitReader(src, int64(max)+1))
	if errors.Is(err, io.ErrUnexpectedEOF) { // a chunked body cut short: the client's doing
		return nil, fmt.Errorf("%w: %w", errClientRead, err)
	}
	if err != nil {
		return nil, err
	}
	if len(body) > max {
		return nil, apiErr(http.StatusBadRequest, "MaxMessageLengthExceeded", "Your request was too big.")
	}
	if sum := md5.Sum(body); want != nil && !bytes.Equal(want, sum[:]) {
		return nil, apiErr(http.StatusBadRequest, "BadDigest", "The Content-MD5 you specified did not match what we received.")
	}
	return body, nil
}
