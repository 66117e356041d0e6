package kms

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"regexp"
	"slices"
	"unicode/utf8"
)

// DataKeySize is the length of a data key: AES-256 (or ChaCha20).
const DataKeySize = 32

// KMS seals and opens data keys under named keys. A built-in service
// (Builtin) and an external one (KMIP, next) implement it; it is safe for
// concurrent use.
type KMS interface {
	// GenerateDataKey returns a fresh random data key and the same key
	// sealed under keyID's newest version with ec bound into it. It fails
	// with ErrNotFound, ErrDisabled, ErrAccessDenied or ErrUnavailable.
	GenerateDataKey(ctx context.Context, keyID string, ec Context) (DataKey, error)
	// Decrypt opens what GenerateDataKey sealed for keyID and ec. It fails
	// as GenerateDataKey does, or with ErrOpen when sealed was not sealed
	// under keyID for ec (or is damaged): never with another key.
	Decrypt(ctx context.Context, keyID string, sealed []byte, ec Context) ([]byte, error)
	// Status says whether keyID can be used now: nil, or the error
	// GenerateDataKey would return.
	Status(ctx context.Context, keyID string) error
}

// DataKey is a data key in plain text, for the bytes of one object or
// part, and sealed, to keep beside them.
type DataKey struct {
	Plaintext []byte
	Sealed    []byte
}

// Context is an encryption context: pairs bound into a sealed data key as
// associated data, so that it opens only for the same pairs (as AWS KMS
// binds its encryption context).
type Context map[string]string

// ARNKey is the context pair S3 adds to every object's context: the
// object's ARN (arn:aws:s3:::bucket/key).
const ARNKey = "aws:s3:arn"

// ParseContextHeader decodes the value of the SSE-KMS context header
// (x-amz-server-side-encryption-context); ErrInvalidContext
// when it is not base64 of a JSON object whose values are strings.
func ParseContextHeader(v string) (Context, error) {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || !utf8.Valid(b) {
		return nil, ErrInvalidContext
	}
	var ec Context
	if err := json.Unmarshal(b, &ec); err != nil || ec == nil {
		return nil, ErrInvalidContext
	}
	return ec, nil
}

// ObjectContext is the context of an object's data key: the client's
// pairs (SSE-KMS; nil for SSE-S3) and the object's ARN, which S3 adds to
// what the client gives, so that a sealed data key copied to another
// object's metadata does not open there.
func ObjectContext(bucket, key string, client Context) Context {
	ec := make(Context, len(client)+1)
	for k, v := range client {
		ec[k] = v
	}
	ec[ARNKey] = "arn:aws:s3:::" + bucket + "/" + key
	return ec
}

// AppendContext appends ec's pairs as appendContext does: the form an
// external KMS binds into the data keys it seals.
func AppendContext(b []byte, ec Context) []byte { return appendContext(b, ec) }

// appendContext appends ec's pairs in a form that no other context shares:
// the count, then each key and value length-prefixed, keys sorted.
func appendContext(b []byte, ec Context) []byte {
	keys := make([]string, 0, len(ec))
	for k := range ec {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = appendString(b, ec[k])
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// keyIDPattern is what a key ID may be: short, and free of the '/' and ':'
// of ARNs (arn:aws:kms:region:account:key/<ID>), so that an ARN names one.
var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// ValidKeyID reports whether id can name a key.
func ValidKeyID(id string) bool { return keyIDPattern.MatchString(id) }

// Sealed data keys: a format byte, the key ID (a length byte and its
// bytes), the key version (4 bytes, big-endian), then the data key sealed
// under that version (internal/iam/keyring's token form: AES-256-GCM, a
// fresh nonce). The ID and version are in the clear so that Rewrap and
// `jog fsck` see what a key is sealed under; they are bound into the
// associated data, with the context.
const sealedFormat = 1

// SealedKey is what a sealed data key says of itself.
type SealedKey struct {
	KeyID   string
	Version uint32
	body    []byte
}

// ParseSealed reads the header of a sealed data key: ErrOpen when it is
// not one.
func ParseSealed(sealed []byte) (SealedKey, error) {
	if len(sealed) < 2 || sealed[0] != sealedFormat {
		return SealedKey{}, ErrOpen
	}
	n := int(sealed[1])
	if len(sealed) < 2+n+4 {
		return SealedKey{}, ErrOpen
	}
	return SealedKey{
		KeyID:   string(sealed[2 : 2+n]),
		Version: binary.BigEndian.Uint32(sealed[2+n:]),
		body:    sealed[2+n+4:],
	}, nil
}

// header is the clear prefix of a sealed data key.
func header(keyID string, version uint32) []byte {
	b := make([]byte, 0, 2+len(keyID)+4+80)
	b = append(b, sealedFormat, byte(len(keyID)))
	b = append(b, keyID...)
	return binary.BigEndian.AppendUint32(b, version)
}

// dataKeyAD is the associated data of a data key sealed under keyID's
// version for ec: a purpose no other seal under a key version shares.
func dataKeyAD(keyID string, version uint32, ec Context) string {
	b := []byte("jog-kms-data-key\x00")
	b = appendString(b, keyID)
	b = binary.BigEndian.AppendUint32(b, version)
	return string(appendContext(b, ec))
}
