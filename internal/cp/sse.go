package cp

import (
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
)

// Encryption is the server-side encryption a copy asks for, as the AWS
// CLI's --sse, --sse-kms-key-id, --sse-c and --sse-c-copy-source ask.
type Encryption struct {
	// SSE is "AES256" (SSE-S3) or "aws:kms" (SSE-KMS) for the objects a
	// copy writes; "" leaves it to the bucket's default.
	SSE string
	// KMSKeyID is the SSE-KMS key ("" with aws:kms: the server's default
	// key).
	KMSKeyID string
	// CustomerKey is the SSE-C key (32 bytes) of the objects a copy
	// writes, and of the objects a download reads.
	CustomerKey []byte
	// SourceCustomerKey is the SSE-C key of a server-side copy's source.
	SourceCustomerKey []byte
}

// The SSE-C headers: sent on every request that writes or reads an SSE-C
// object (PUT, CreateMultipartUpload, UploadPart, ListParts,
// CompleteMultipartUpload, HEAD, GET), and with the copy-source prefix for
// the source of CopyObject and UploadPartCopy.
const (
	sseHeader       = "X-Amz-Server-Side-Encryption"
	sseKMSKeyHeader = "X-Amz-Server-Side-Encryption-Aws-Kms-Key-Id"
	ssecPrefix      = "X-Amz-Server-Side-Encryption-Customer-"
	ssecCopyPrefix  = "X-Amz-Copy-Source-Server-Side-Encryption-Customer-"
)

// Check refuses settings S3 would refuse: an unknown --sse, a KMS key
// without aws:kms, --sse with --sse-c.
func (e Encryption) Check() error {
	switch e.SSE {
	case "", "AES256", "aws:kms":
	default:
		return fmt.Errorf("--sse %q: want AES256 or aws:kms", e.SSE)
	}
	if e.KMSKeyID != "" && e.SSE != "aws:kms" {
		return errors.New("--sse-kms-key-id needs --sse aws:kms")
	}
	if e.SSE != "" && e.CustomerKey != nil {
		return errors.New("--sse and --sse-c exclude each other: an object has one encryption")
	}
	return nil
}

// create sets the headers of a request that makes an object (PUT,
// CreateMultipartUpload, CopyObject's destination).
func (e Encryption) create(h http.Header) {
	if e.SSE != "" {
		h.Set(sseHeader, e.SSE)
	}
	if e.KMSKeyID != "" {
		h.Set(sseKMSKeyHeader, e.KMSKeyID)
	}
	customerHeaders(h, ssecPrefix, e.CustomerKey)
}

// customerHeaders sets the SSE-C headers under prefix for key (none when
// key is nil).
func customerHeaders(h http.Header, prefix string, key []byte) {
	if key == nil {
		return
	}
	sum := md5.Sum(key)
	h.Set(prefix+"Algorithm", "AES256")
	h.Set(prefix+"Key", base64.StdEncoding.EncodeToString(key))
	h.Set(prefix+"Key-Md5", base64.StdEncoding.EncodeToString(sum[:]))
}

// CustomerKeySize is the length of an SSE-C key (AES-256).
const CustomerKeySize = 32

// ParseCustomerKey reads an SSE-C key as --sse-c takes it: the key's
// base64, or @FILE, a file holding the key's 32 bytes or their base64.
func ParseCustomerKey(v string) ([]byte, error) {
	text := v
	if name, ok := strings.CutPrefix(v, "@"); ok {
		b, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		if len(b) == CustomerKeySize {
			return b, nil
		}
		text = strings.TrimSpace(string(b))
	}
	key, err := base64.StdEncoding.DecodeString(text)
	if err != nil || len(key) != CustomerKeySize {
		return nil, fmt.Errorf("an SSE-C key is %d bytes, given as base64 or @FILE", CustomerKeySize)
	}
	return key, nil
}
