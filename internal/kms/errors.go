package kms

import (
	"fmt"
	"net/http"
	"strings"
)

// Kind says what went wrong, and so what S3 answers.
type Kind int

// The kinds of Error. The S3 codes, statuses and messages (kindCodes) are
// S3's own where S3 has one (docs/adr/0028-key-management.md cites them).
const (
	// KindNotFound: no key of that ID. S3: 400 KMS.NotFoundException.
	KindNotFound Kind = iota
	// KindInvalidKeyID: a key ID JOG's keys cannot have. S3 answers a
	// malformed ID as a missing one: 400 KMS.NotFoundException.
	KindInvalidKeyID
	// KindDisabled: the key exists and is disabled. S3: 400
	// KMS.DisabledException, on GET as on PUT.
	KindDisabled
	// KindAccessDenied: the KMS refuses this gateway the key (an external
	// KMS's permission). S3: 403 AccessDenied.
	KindAccessDenied
	// KindUnavailable: the KMS cannot be reached. S3's answer is not
	// recorded; JOG says 503 ServiceUnavailable, which SDKs retry.
	KindUnavailable
	// KindOpen: a sealed data key does not open (another key, version or
	// context, or damaged bytes). It says nothing of the key: 500.
	KindOpen
	// KindExists: Create of a key ID that exists (`jog admin kms`).
	KindExists
	// KindInvalidContext: x-amz-server-side-encryption-context is not
	// base64 of a JSON object of strings. S3: 400 InvalidArgument.
	KindInvalidContext

	// SSE-C (ParseCustomerKey, KeyCheck.Verify).

	// KindSSECAlgorithm: the customer algorithm is not AES256. S3: 400
	// InvalidEncryptionAlgorithmError.
	KindSSECAlgorithm
	// KindSSECNoAlgorithm: a key or key MD5 without the algorithm.
	KindSSECNoAlgorithm
	// KindSSECNoKey: the algorithm without a key.
	KindSSECNoKey
	// KindSSECKeyMD5: the key's MD5 is not the one sent. S3 checks it
	// before the key's length.
	KindSSECKeyMD5
	// KindSSECNoMD5: the key without its MD5. S3: 400 InvalidArgument.
	KindSSECNoMD5
	// KindSSECInvalidKey: the key is not 32 bytes of base64.
	KindSSECInvalidKey
	// KindSSECWrongKey: the key is not the one the object was written
	// with. S3: 403 AccessDenied.
	KindSSECWrongKey
	// KindSSECPartKey: an UploadPart (or UploadPartCopy) of an SSE-C
	// upload with another key than CreateMultipartUpload's. S3: 400
	// (ceph/s3-tests' test_encryption_sse_c_multipart_invalid_chunks_1),
	// not the 403 of a read with the wrong key.
	KindSSECPartKey
	// KindSSECRequired: an SSE-C object read (or copied from) without its
	// key. S3: 400 InvalidRequest.
	KindSSECRequired
	// KindSSECNotApplicable: a customer key sent for an object that was
	// not written with one. S3: 400 InvalidRequest.
	KindSSECNotApplicable
	// KindSSECInsecure: SSE-C over plain HTTP (the key would cross the
	// network in the clear). S3: 400 InvalidRequest.
	KindSSECInsecure
)

// kindCodes are the S3 code, status and message of each kind; a message
// with %s takes the key ID.
var kindCodes = [...]struct {
	code   string
	status int
	msg    string
	log    string // what Error says, when not msg (a client's msg hides it)
}{
	KindNotFound:       {"KMS.NotFoundException", http.StatusBadRequest, "Key '%s' does not exist", ""},
	KindInvalidKeyID:   {"KMS.NotFoundException", http.StatusBadRequest, "Invalid keyId '%s'", ""},
	KindDisabled:       {"KMS.DisabledException", http.StatusBadRequest, "%s is disabled.", ""},
	KindAccessDenied:   {"AccessDenied", http.StatusForbidden, "Access Denied", ""},
	KindUnavailable:    {"ServiceUnavailable", http.StatusServiceUnavailable, "The key management service is unavailable. Please try again.", "the KMS holding key '%s' cannot be reached"},
	KindOpen:           {"InternalError", http.StatusInternalServerError, "We encountered an internal error. Please try again.", "a data key sealed under key '%s' does not open (another key, version or context, or damaged bytes)"},
	KindExists:         {"KMS.AlreadyExistsException", http.StatusBadRequest, "Key '%s' already exists", ""},
	KindInvalidContext: {"InvalidArgument", http.StatusBadRequest, "The header 'x-amz-server-side-encryption-context' shall be Base64-encoded UTF-8 string holding JSON which represents a string-string map", ""},

	KindSSECAlgorithm:     {"InvalidEncryptionAlgorithmError", http.StatusBadRequest, "The Encryption request you specified is not valid. Supported value: AES256.", ""},
	KindSSECNoAlgorithm:   {"InvalidArgument", http.StatusBadRequest, "Requests specifying Server Side Encryption with Customer provided keys must provide a valid encryption algorithm.", ""},
	KindSSECNoKey:         {"InvalidArgument", http.StatusBadRequest, "Requests specifying Server Side Encryption with Customer provided keys must provide an appropriate secret key.", ""},
	KindSSECKeyMD5:        {"InvalidArgument", http.StatusBadRequest, "The calculated MD5 hash of the key did not match the hash that was provided.", ""},
	KindSSECNoMD5:         {"InvalidArgument", http.StatusBadRequest, "Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.", ""},
	KindSSECInvalidKey:    {"InvalidArgument", http.StatusBadRequest, "The secret key was invalid for the specified algorithm.", ""},
	KindSSECWrongKey:      {"AccessDenied", http.StatusForbidden, "Requests specifying Server Side Encryption with Customer provided keys must provide the correct secret key.", ""},
	KindSSECPartKey:       {"InvalidArgument", http.StatusBadRequest, "The provided encryption parameters did not match the ones used originally.", ""},
	KindSSECRequired:      {"InvalidRequest", http.StatusBadRequest, "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.", ""},
	KindSSECNotApplicable: {"InvalidRequest", http.StatusBadRequest, "The encryption parameters are not applicable to this object.", ""},
	KindSSECInsecure:      {"InvalidRequest", http.StatusBadRequest, "Requests specifying Server Side Encryption with Customer provided keys must be made over a secure connection.", ""},
}

// Error is a refusal of this package: its kind, and the key ID it is
// about when there is one. errors.Is(err, ErrDisabled) holds for any
// Error of KindDisabled, whatever its key.
type Error struct {
	Kind  Kind
	KeyID string
}

// The sentinels, one per kind, for errors.Is.
var (
	ErrNotFound       = &Error{Kind: KindNotFound}
	ErrInvalidKeyID   = &Error{Kind: KindInvalidKeyID}
	ErrDisabled       = &Error{Kind: KindDisabled}
	ErrAccessDenied   = &Error{Kind: KindAccessDenied}
	ErrUnavailable    = &Error{Kind: KindUnavailable}
	ErrOpen           = &Error{Kind: KindOpen}
	ErrExists         = &Error{Kind: KindExists}
	ErrInvalidContext = &Error{Kind: KindInvalidContext}

	ErrSSECAlgorithm     = &Error{Kind: KindSSECAlgorithm}
	ErrSSECNoAlgorithm   = &Error{Kind: KindSSECNoAlgorithm}
	ErrSSECNoKey         = &Error{Kind: KindSSECNoKey}
	ErrSSECKeyMD5        = &Error{Kind: KindSSECKeyMD5}
	ErrSSECNoMD5         = &Error{Kind: KindSSECNoMD5}
	ErrSSECInvalidKey    = &Error{Kind: KindSSECInvalidKey}
	ErrSSECWrongKey      = &Error{Kind: KindSSECWrongKey}
	ErrSSECPartKey       = &Error{Kind: KindSSECPartKey}
	ErrSSECRequired      = &Error{Kind: KindSSECRequired}
	ErrSSECNotApplicable = &Error{Kind: KindSSECNotApplicable}
	ErrSSECInsecure      = &Error{Kind: KindSSECInsecure}
)

func keyErr(k Kind, keyID string) error { return &Error{Kind: k, KeyID: keyID} }

func (e *Error) Error() string {
	if l := kindCodes[e.Kind].log; l != "" {
		return "kms: " + withKey(l, e.KeyID)
	}
	return "kms: " + e.message()
}

// Is matches e against a sentinel of its kind.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.KeyID == "" && t.Kind == e.Kind
}

// S3Error is what a client is told (s3api.ClientError).
func (e *Error) S3Error() (code string, status int, message string) {
	c := kindCodes[e.Kind]
	return c.code, c.status, e.message()
}

func (e *Error) message() string { return withKey(kindCodes[e.Kind].msg, e.KeyID) }

// withKey puts the key ID into a message that takes one.
func withKey(m, keyID string) string {
	if strings.Contains(m, "%s") {
		return fmt.Sprintf(m, keyID)
	}
	return m
}
