package s3api

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/sigv2"
	"github.com/jogstore/jog/internal/sigv4"
)

// StaticCredentials is a fixed set of access key → secret key pairs.
type StaticCredentials map[string]string

// SecretKey implements sigv4.Credentials.
func (c StaticCredentials) SecretKey(accessKey string) (string, bool) {
	s, ok := c[accessKey]
	return s, ok
}

// authenticate verifies the request's signature, sets who made it, and
// wraps its body so that the declared payload hash is verified while the
// body streams. A request with no signature at all (no Authorization
// header, no signature in the query) is anonymous: authorize serves it
// only where a bucket policy allows everyone.
func (h *Handler) authenticate(req *request) error {
	res, err := h.verify(req.Request)
	if errors.Is(err, sigv4.ErrMissingAuth) {
		req.who, req.auth = authz.Anonymous, &sigv4.Result{PayloadHash: sigv4.UnsignedPayload}
		return nil
	}
	if err != nil {
		return err
	}
	if req.who, err = h.principal(req.Request, res.AccessKey, res.Holder); err != nil {
		return err
	}
	req.auth = res
	return nil
}

// verify verifies the request's signature and wraps its body so that the
// declared payload hash is verified while the body streams.
//
// SigV2 requests (older tools) are verified by sigv2 against the same
// credentials; their payload is unsigned.
func (h *Handler) verify(r *http.Request) (*sigv4.Result, error) {
	if sigv2.IsV2(r) {
		res, err := h.verifierV2.Verify(r)
		if err != nil {
			return nil, err
		}
		return &sigv4.Result{AccessKey: res.AccessKey, Presigned: res.Presigned, PayloadHash: sigv4.UnsignedPayload, Holder: res.Holder}, nil
	}
	res, err := h.verifier.Verify(r)
	if err != nil {
		return nil, err
	}
	if names := unsignedAmzHeaders(r, res.Presigned); names != "" {
		return nil, apiErr(http.StatusForbidden, "AccessDenied",
			"There were headers present in the request which were not signed: %s", names)
	}
	switch ph := res.PayloadHash; {
	case ph == sigv4.UnsignedPayload || ph == "":
	case strings.HasPrefix(ph, "STREAMING-"):
		// Decoded by uploadBody, which verifies every chunk signature.
		if ph != sigv4.StreamingPayload && ph != sigv4.StreamingPayloadTrailer && ph != sigv4.StreamingUnsignedPayloadTrailer {
			return nil, apiErr(http.StatusNotImplemented, "NotImplemented", "%s payloads are not supported", ph)
		}
	default:
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = readCloser{sigv4.NewPayloadVerifier(r.Body, ph), r.Body}
		} else if ph != sigv4.EmptySHA256 {
			return nil, sigv4.ErrContentSHA256Mismatch
		}
	}
	return res, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// unsignedAmzHeaders lists (sorted, comma-separated) the x-amz-* headers of
// a verified SigV4 request that its signature does not cover; "" when all
// are. S3 refuses such requests with AccessDenied: otherwise whoever holds
// a captured request or a presigned URL could add x-amz-copy-source (turning
// a PUT into a copy of any object the signer can read), x-amz-meta-*,
// x-amz-storage-class and the like. x-amz-content-sha256 and x-amz-date
// need not be listed: the payload hash and the date are part of what is
// signed anyway. (SigV2 signs every x-amz-* header by construction.)
func unsignedAmzHeaders(r *http.Request, presigned bool) string {
	var list string
	if presigned {
		list = r.URL.Query().Get("X-Amz-SignedHeaders")
	} else {
		_, rest, _ := strings.Cut(r.Header.Get("Authorization"), "SignedHeaders=")
		list, _, _ = strings.Cut(rest, ",")
	}
	var missing []string
	for k := range r.Header {
		if len(k) < len("x-amz-") || !strings.EqualFold(k[:len("x-amz-")], "x-amz-") ||
			strings.EqualFold(k, "x-amz-content-sha256") || strings.EqualFold(k, "x-amz-date") || listed(list, k) {
			continue
		}
		missing = append(missing, strings.ToLower(k))
	}
	slices.Sort(missing)
	return strings.Join(missing, ",")
}

// listed reports whether name is in list, SignedHeaders' ";"-separated
// names, case aside; without allocating, as every signed request asks.
func listed(list, name string) bool {
	for list != "" {
		var n string
		n, list, _ = strings.Cut(list, ";")
		if strings.EqualFold(strings.TrimSpace(n), name) {
			return true
		}
	}
	return false
}
