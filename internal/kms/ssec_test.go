package kms

import (
	"bytes"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"
)

// botocore's serialization of the key b"a"*32 (its sse_md5 handler).
const (
	keyA    = "YWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWFhYWE="
	keyAMD5 = "Xsqb0+sHwAbNQ65I395/0w=="
)

func TestParseCustomerKey(t *testing.T) {
	key, err := ParseCustomerKey("AES256", keyA, keyAMD5)
	if err != nil || !bytes.Equal(key, bytes.Repeat([]byte{'a'}, 32)) {
		t.Fatalf("ParseCustomerKey = %q, %v", key, err)
	}
	if KeyMD5(key) != keyAMD5 {
		t.Errorf("KeyMD5 = %s; want %s", KeyMD5(key), keyAMD5)
	}
	if key, err := ParseCustomerKey("", "", ""); key != nil || err != nil {
		t.Errorf("no SSE-C: %q, %v; want nothing", key, err)
	}

	short := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{'a'}, 24))
	cases := []struct {
		name                string
		algorithm, key, md5 string
		want                error
		code                string
		status              int
	}{
		{"MD5 of another key", "AES256", keyA, KeyMD5([]byte("another key")), ErrSSECKeyMD5, "InvalidArgument", http.StatusBadRequest},
		{"MD5 not base64", "AES256", keyA, "not-an-md5", ErrSSECKeyMD5, "InvalidArgument", http.StatusBadRequest},
		// S3 checks the MD5 before the length: a 24-byte key with a
		// wrong MD5 is an MD5 mismatch.
		{"short key, wrong MD5", "AES256", short, keyAMD5, ErrSSECKeyMD5, "InvalidArgument", http.StatusBadRequest},
		{"short key, its MD5", "AES256", short, KeyMD5(bytes.Repeat([]byte{'a'}, 24)), ErrSSECInvalidKey, "InvalidArgument", http.StatusBadRequest},
		{"key not base64", "AES256", "!!!", "", ErrSSECInvalidKey, "InvalidArgument", http.StatusBadRequest},
		{"algorithm not AES256", "aws:kms", keyA, keyAMD5, ErrSSECAlgorithm, "InvalidEncryptionAlgorithmError", http.StatusBadRequest},
		{"key without algorithm", "", keyA, keyAMD5, ErrSSECNoAlgorithm, "InvalidArgument", http.StatusBadRequest},
		{"MD5 alone", "", "", keyAMD5, ErrSSECNoAlgorithm, "InvalidArgument", http.StatusBadRequest},
		{"key without its MD5", "AES256", keyA, "", ErrSSECNoMD5, "InvalidArgument", http.StatusBadRequest},
		{"algorithm without key", "AES256", "", keyAMD5, ErrSSECNoKey, "InvalidArgument", http.StatusBadRequest},
	}
	for _, c := range cases {
		key, err := ParseCustomerKey(c.algorithm, c.key, c.md5)
		if !errors.Is(err, c.want) || key != nil {
			t.Errorf("%s: %q, %v; want %v", c.name, key, err, c.want)
			continue
		}
		wantS3(t, err, c.code, c.status, "")
	}
}

func TestKeyCheck(t *testing.T) {
	key := bytes.Repeat([]byte{'a'}, 32)
	c := NewKeyCheck(key)
	if err := c.Verify(key); err != nil {
		t.Fatalf("Verify of its own key: %v", err)
	}
	if bytes.Contains(c, key) || bytes.Contains(c, key[:8]) {
		t.Error("the check holds the key")
	}
	if again := NewKeyCheck(key); bytes.Equal(again, c) {
		t.Error("two checks of one key are equal: the salt is not fresh")
	}
	other := bytes.Clone(key)
	other[31] ^= 1
	err := c.Verify(other)
	if !errors.Is(err, ErrSSECWrongKey) {
		t.Fatalf("Verify of another key = %v; want ErrSSECWrongKey", err)
	}
	wantS3(t, err, "AccessDenied", http.StatusForbidden, "Requests specifying Server Side Encryption with Customer provided keys must provide the correct secret key.")
	tampered := bytes.Clone(c)
	tampered[5] ^= 1 // the salt
	for name, bad := range map[string]KeyCheck{"tampered salt": tampered, "truncated": c[:len(c)-1], "empty": nil, "unknown format": append(KeyCheck{9}, c[1:]...)} {
		if err := bad.Verify(key); !errors.Is(err, ErrSSECWrongKey) {
			t.Errorf("%s: Verify = %v; want ErrSSECWrongKey", name, err)
		}
	}
}
