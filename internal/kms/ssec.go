package kms

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
)

// SSECAlgorithm is the one algorithm SSE-C accepts.
const SSECAlgorithm = "AES256"

// ParseCustomerKey checks the values of an SSE-C request's three headers
// (x-amz-server-side-encryption-customer-algorithm, -key, -key-MD5, or
// their x-amz-copy-source- twins) in S3's order, and returns the 32-byte
// customer key; nil and no error when none of the three was sent. The
// key's MD5 is checked when sent, before the key's length, as S3 does;
// a missing MD5 is refused, as S3 refuses it (ceph/s3-tests'
// test_encryption_sse_c_no_md5; docs/adr/0028-key-management.md).
func ParseCustomerKey(algorithm, key, keyMD5 string) ([]byte, error) {
	switch {
	case algorithm == "" && key == "" && keyMD5 == "":
		return nil, nil
	case algorithm == "":
		return nil, ErrSSECNoAlgorithm
	case algorithm != SSECAlgorithm:
		return nil, ErrSSECAlgorithm
	case key == "":
		return nil, ErrSSECNoKey
	}
	raw, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return nil, ErrSSECInvalidKey
	}
	if keyMD5 == "" {
		return nil, ErrSSECNoMD5
	}
	if subtle.ConstantTimeCompare([]byte(KeyMD5(raw)), []byte(keyMD5)) != 1 {
		return nil, ErrSSECKeyMD5
	}
	if len(raw) != DataKeySize {
		return nil, ErrSSECInvalidKey
	}
	return raw, nil
}

// KeyMD5 is the base64 MD5 of a customer key, as the key-MD5 header
// carries it (and responses echo it).
func KeyMD5(key []byte) string {
	sum := md5.Sum(key)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// KeyCheck recognises a customer key without holding it: a format byte,
// a random salt, and HMAC-SHA256 of the salt under the key. It is what an
// SSE-C object keeps of its key (S3 keeps "a randomly salted HMAC").
type KeyCheck []byte

const (
	keyCheckFormat = 1
	keyCheckSalt   = 16
	keyCheckLen    = 1 + keyCheckSalt + sha256.Size
)

// NewKeyCheck returns the check of key, with a fresh salt.
func NewKeyCheck(key []byte) KeyCheck {
	c := make([]byte, 1+keyCheckSalt, keyCheckLen)
	c[0] = keyCheckFormat
	rand.Read(c[1:])
	return keyCheckMAC(c, key)
}

// Verify says whether key is the key c was made from: nil, or
// ErrSSECWrongKey (S3's 403 for the wrong key).
func (c KeyCheck) Verify(key []byte) error {
	if len(c) != keyCheckLen || c[0] != keyCheckFormat {
		return ErrSSECWrongKey
	}
	want := keyCheckMAC(c[:1+keyCheckSalt:1+keyCheckSalt], key)
	if !hmac.Equal(want, c) {
		return ErrSSECWrongKey
	}
	return nil
}

// keyCheckMAC appends to prefix (format and salt) the HMAC of them under
// key.
func keyCheckMAC(prefix, key []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("jog-sse-c-key-check\x00"))
	m.Write(prefix)
	return m.Sum(prefix)
}
