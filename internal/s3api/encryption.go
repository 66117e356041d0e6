package s3api

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse"
)

// The encryption headers (canonical names), on requests and responses
// (docs/adr/0027, 0028; internal/sse). The wire table says which
// operations read them. The SSE-C trio (ssec…) follows a prefix: the
// object's (objectPrefix) or the copy source's (copySourcePrefix).
const (
	hdrSSE            = "X-Amz-Server-Side-Encryption"
	hdrSSEKMSKeyID    = "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"
	hdrSSEContext     = "X-Amz-Server-Side-Encryption-Context"
	hdrSSEBucketKey   = "X-Amz-Server-Side-Encryption-Bucket-Key-Enabled"
	ssecAlgorithm     = "Server-Side-Encryption-Customer-Algorithm"
	ssecKey           = "Server-Side-Encryption-Customer-Key"
	ssecKeyMD5        = "Server-Side-Encryption-Customer-Key-Md5"
	objectPrefix      = "X-Amz-"
	copySourcePrefix  = "X-Amz-Copy-Source-"
	kmsKeyARNResource = ":key/"
)

// S3's refusals of encryption headers that do not go together.
var (
	errSSEMethod = apiErr(http.StatusBadRequest, "InvalidArgument",
		"The encryption method specified is not supported")
	errSSECWithSSE = apiErr(http.StatusBadRequest, "InvalidArgument",
		"Server Side Encryption with Customer provided key is incompatible with the encryption method specified")
	errKMSKeyWithoutKMS = apiErr(http.StatusBadRequest, "InvalidArgument",
		"Server Side Encryption with AWS KMS managed key requires HTTP header x-amz-server-side-encryption : aws:kms")
	errBucketKeyValue = apiErr(http.StatusBadRequest, "InvalidArgument",
		"x-amz-server-side-encryption-bucket-key-enabled must be true or false")
)

// ssecHeaders names an SSE-C trio: the object's (objectSSEC) or a copy
// source's (copySourceSSEC), joined once rather than on every request.
type ssecHeaders struct{ alg, key, md5 string }

var (
	objectSSEC     = ssecHeaders{objectPrefix + ssecAlgorithm, objectPrefix + ssecKey, objectPrefix + ssecKeyMD5}
	copySourceSSEC = ssecHeaders{copySourcePrefix + ssecAlgorithm, copySourcePrefix + ssecKey, copySourcePrefix + ssecKeyMD5}
)

// customerKey reads the SSE-C trio names of hdr (objectSSEC for the
// object's, copySourceSSEC for a copy source's): the 32-byte key, or nil
// when none of the three was sent. A key sent over plain HTTP is refused
// (kms.ErrSSECInsecure) unless Config.AllowInsecureSSEC: it crossed the
// network in the clear.
func (h *Handler) customerKey(r *request, hdr http.Header, names ssecHeaders) ([]byte, error) {
	alg, key, md5 := hdr.Get(names.alg), hdr.Get(names.key), hdr.Get(names.md5)
	if alg == "" && key == "" && md5 == "" {
		return nil, nil
	}
	if !h.cfg.AllowInsecureSSEC && !h.authz.Secure(r.Request) {
		return nil, kms.ErrSSECInsecure
	}
	return kms.ParseCustomerKey(alg, key, md5)
}

// sseRequest reads the encryption a write asks for from hdr (the
// request's headers, or a form's fields as headers): SSE-C, SSE-S3,
// SSE-KMS with its key, context and bucket-key flag, or none (Mode "",
// which the bucket's default may fill).
func (h *Handler) sseRequest(r *request, hdr http.Header) (sse.Request, error) {
	mode := hdr.Get(hdrSSE)
	ck, err := h.customerKey(r, hdr, objectSSEC)
	switch {
	case err != nil:
		return sse.Request{}, err
	case ck != nil && mode != "":
		return sse.Request{}, errSSECWithSSE
	case ck != nil:
		return sse.Request{Mode: sse.ModeC, CustomerKey: ck}, nil
	case mode != "" && mode != sse.ModeS3 && mode != sse.ModeKMS:
		return sse.Request{}, errSSEMethod
	}
	req := sse.Request{Mode: mode}
	keyID, ctx := hdr.Get(hdrSSEKMSKeyID), hdr.Get(hdrSSEContext)
	if mode != sse.ModeKMS && (keyID != "" || ctx != "") {
		return sse.Request{}, errKMSKeyWithoutKMS
	}
	if keyID != "" {
		if req.KeyID, err = parseKMSKeyID(keyID); err != nil {
			return sse.Request{}, err
		}
	}
	if ctx != "" {
		if req.Context, err = kms.ParseContextHeader(ctx); err != nil {
			return sse.Request{}, err
		}
	}
	switch v := hdr.Get(hdrSSEBucketKey); {
	case v == "" || strings.EqualFold(v, "false"):
	case strings.EqualFold(v, "true"):
		req.BucketKey = mode == sse.ModeKMS // S3 records it for SSE-KMS alone
	default:
		return sse.Request{}, errBucketKeyValue
	}
	return req, nil
}

// parseKMSKeyID takes a key ID as S3 clients send it, bare or as the ARN
// arn:aws:kms:<region>:<account>:key/<ID>, and returns the ID
// (kms.ErrInvalidKeyID for what no key can be named: an alias among
// them).
func parseKMSKeyID(v string) (string, error) {
	id := v
	if strings.HasPrefix(v, "arn:") {
		parts := strings.SplitN(v, ":", 6)
		if len(parts) != 6 || parts[2] != "kms" || !strings.HasPrefix(parts[5], "key/") {
			return "", &kms.Error{Kind: kms.KindInvalidKeyID, KeyID: v}
		}
		id = strings.TrimPrefix(parts[5], "key/")
	}
	if !kms.ValidKeyID(id) {
		return "", &kms.Error{Kind: kms.KindInvalidKeyID, KeyID: v}
	}
	return id, nil
}

// kmsKeyARN is the ARN responses name an SSE-KMS key by, in the server's
// region and account (the account of its IAM ARNs).
func (h *Handler) kmsKeyARN(id string) string {
	return "arn:aws:kms:" + h.cfg.Region + ":" + h.account + kmsKeyARNResource + id
}

// setEncryptionHeaders names on a response how e seals the object (or
// upload, or part) it is about, as S3 does: x-amz-server-side-encryption
// (AES256, aws:kms) with the KMS key's ARN and the bucket-key flag, or
// for SSE-C the customer algorithm and the MD5 of the key the request
// sent (customerKey; nil: none). written marks the response of a write,
// which echoes the SSE-KMS context too.
func (h *Handler) setEncryptionHeaders(hdr http.Header, e meta.Encryption, customerKey []byte, written bool) {
	switch e.Mode {
	case sse.ModeS3:
		hdr.Set(hdrSSE, sse.ModeS3)
	case sse.ModeKMS:
		hdr.Set(hdrSSE, sse.ModeKMS)
		hdr.Set(hdrSSEKMSKeyID, h.kmsKeyARN(e.KeyID))
		if written && e.Context != "" {
			hdr.Set(hdrSSEContext, base64.StdEncoding.EncodeToString([]byte(e.Context)))
		}
	case sse.ModeC:
		hdr.Set(objectPrefix+ssecAlgorithm, kms.SSECAlgorithm)
		if customerKey != nil {
			hdr.Set(objectPrefix+ssecKeyMD5, kms.KeyMD5(customerKey))
		}
	}
	if e.BucketKey {
		hdr.Set(hdrSSEBucketKey, "true")
	}
}
