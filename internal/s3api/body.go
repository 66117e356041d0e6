package s3api

import (
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
)

// uploadBody prepares the body of a PutObject or UploadPart: it decodes
// aws-chunked framing (verifying chunk and trailer signatures as it
// streams), takes a Transfer-Encoding: chunked body of unknown length
// (size -1), and collects the flexible checksums the client sent, in headers
// or trailers, for the service to verify when the body ends.
func (h *Handler) uploadBody(r *request) (io.Reader, int64, service.ChecksumRequest, error) {
	var ck service.ChecksumRequest
	body, size := io.Reader(r.Body), r.ContentLength
	var trailer func(string) string
	trailerNames := splitList(r.Header.Get("X-Amz-Trailer"))
	if strings.HasPrefix(r.auth.PayloadHash, "STREAMING-") {
		size = -1
		if v := r.Header.Get("X-Amz-Decoded-Content-Length"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				return nil, 0, ck, apiErr(http.StatusBadRequest, "InvalidArgument", "x-amz-decoded-content-length is not valid")
			}
			size = n
		}
		cr, err := sigv4.NewChunkedReader(r.Body, r.auth, size, trailerNames)
		if err != nil {
			return nil, 0, ck, err
		}
		body, trailer = cr, cr.Trailer
	} else if size < 0 && !chunkedTransfer(r.Request) {
		return nil, 0, ck, errMissingLength
	} else if len(trailerNames) > 0 {
		return nil, 0, ck, apiErr(http.StatusBadRequest, "InvalidRequest",
			"x-amz-trailer is only valid with an aws-chunked (STREAMING-*) payload")
	}
	ck, err := checksumRequest(r.Header, trailerNames, trailer)
	return h.scheduledUpload(r, body, size), size, ck, err
}

// checksumRequest collects the flexible checksums a write names: values in
// x-amz-checksum-* headers (or, for PostObject, form fields), algorithms
// whose values come in trailers (trailer returns them when the body ends),
// and x-amz-sdk-checksum-algorithm.
func checksumRequest(h http.Header, trailerNames []string, trailer func(string) string) (service.ChecksumRequest, error) {
	var ck service.ChecksumRequest
	headerValues := map[checksum.Algorithm]string{}
	for _, a := range checksum.Algorithms {
		if v := h.Get(a.HeaderName()); v != "" {
			if _, err := a.Decode(v); err != nil {
				return ck, apiErr(http.StatusBadRequest, "InvalidRequest", "Value for %s header is invalid.", a.HeaderName())
			}
			headerValues[a] = v
			ck.Verify = append(ck.Verify, a)
		}
	}
	for _, name := range trailerNames {
		a, err := checksum.ParseAlgorithm(strings.TrimPrefix(name, "x-amz-checksum-"))
		if !strings.HasPrefix(name, "x-amz-checksum-") || err != nil {
			return ck, apiErr(http.StatusBadRequest, "InvalidRequest", "The trailer %q is not supported.", name)
		}
		ck.Verify = append(ck.Verify, a)
	}
	if len(ck.Verify) > 1 {
		return ck, apiErr(http.StatusBadRequest, "InvalidRequest",
			"Expecting a single x-amz-checksum- header. Multiple checksum Types are not allowed.")
	}
	if v := h.Get("X-Amz-Sdk-Checksum-Algorithm"); v != "" {
		a, err := checksum.ParseAlgorithm(v)
		if err != nil {
			return ck, apiErr(http.StatusBadRequest, "InvalidRequest", "Checksum algorithm %q is not supported.", v)
		}
		ck.Algorithm = a
	}
	if len(ck.Verify) == 1 {
		if ck.Algorithm != "" && ck.Algorithm != ck.Verify[0] {
			return ck, apiErr(http.StatusBadRequest, "InvalidRequest",
				"Value for x-amz-sdk-checksum-algorithm header is invalid.")
		}
		ck.Algorithm = ck.Verify[0]
	}
	ck.Expected = func(a checksum.Algorithm) string {
		if v, ok := headerValues[a]; ok {
			return v
		}
		if trailer != nil {
			return trailer(a.HeaderName())
		}
		return ""
	}
	return ck, nil
}

// chunkedTransfer reports whether r's body came with Transfer-Encoding:
// chunked, so its length is known only at its end. Such a body is taken
// and streamed like any other, as MinIO and Ceph take it (S3 asks for a
// Content-Length): the service enforces the size limit and verifies every
// digest as the bytes arrive. A body of unknown length without that
// framing (HTTP/2 without content-length) is still MissingContentLength.
func chunkedTransfer(r *http.Request) bool {
	return len(r.TransferEncoding) > 0 && r.TransferEncoding[0] == "chunked"
}

// storedContentEncoding drops the aws-chunked token, which describes the
// transfer, not the object, and keeps every other token exactly as written
// ("deflate, gzip" stays "deflate, gzip", "GZIP" stays "GZIP"), as S3
// does. Without that token it returns v itself.
func storedContentEncoding(v string) string {
	isChunked := func(e string) bool { return strings.EqualFold(strings.TrimSpace(e), "aws-chunked") }
	found := false
	for e := range strings.SplitSeq(v, ",") {
		found = found || isChunked(e)
	}
	if !found {
		return v
	}
	var keep []string
	for e := range strings.SplitSeq(v, ",") {
		if !isChunked(e) && strings.TrimSpace(e) != "" {
			keep = append(keep, e)
		}
	}
	return strings.TrimSpace(strings.Join(keep, ","))
}

func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
			out = append(out, s)
		}
	}
	return out
}
