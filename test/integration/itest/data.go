package itest

import (
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"math/rand/v2"
)

// ETag is the quoted hex MD5 S3 returns as the ETag of a simple object (as
// aws-sdk-go-v2 reports it).
func ETag(b []byte) string { return `"` + MD5Hex(b) + `"` }

// MD5Hex is the hex MD5 of b: a simple object's ETag as minio-go reports it
// (unquoted).
func MD5Hex(b []byte) string {
	sum := md5.Sum(b)
	return hex.EncodeToString(sum[:])
}

// SHA256Hex is the hex SHA-256 of b, as x-amz-content-sha256 carries it.
func SHA256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// RandBytes returns n deterministic pseudo-random bytes derived from seed,
// so that a body's MD5 names exactly one writer's payload.
func RandBytes(seed uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	b := make([]byte, n)
	for i := 0; i+8 <= n; i += 8 {
		v := r.Uint64()
		for j := 0; j < 8; j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	for i := n - n%8; i < n; i++ {
		b[i] = byte(r.Uint32())
	}
	return b
}

// Short is b for a failure message: at most 64 bytes of it.
func Short(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "..."
	}
	return string(b)
}
