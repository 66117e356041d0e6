// Package format is JOG's encryption-at-rest format: how an object's (or a
// multipart part's) bytes are sealed under its data key, so that a PUT
// encrypts while the body streams and a ranged GET decrypts and
// authenticates only the packages its range covers (docs/adr/0027).
//
// The package knows nothing of keys beyond the 32-byte data key its caller
// gives it, nor of where the bytes live: key management (SSE-S3, SSE-C,
// SSE-KMS) wraps and unwraps data keys elsewhere, and the caller binds the
// object's identity (bucket, key, version, part number) through the
// additional authenticated data (aad) it passes to both directions.
//
// # Layout
//
// A sealed object is a 16-byte header followed by packages:
//
//	header  = "JOGE" | version (1) | suite (1) | log2(PackageSize) (1) | 0 (1) | prefix (8)
//	package = AEAD(key, nonce(seq, final), payload, header || aad)   // payload + 16-byte tag
//	nonce   = prefix (8) | big-endian uint32(seq | final<<31)
//
// prefix is random per object. Every package holds PackageSize bytes of
// plaintext except the last, which holds 1 to PackageSize bytes (0 only for
// an empty object, which is one empty package, so that an empty object is
// authenticated too). The last package alone has the final bit in its
// nonce, so cutting packages off the end, or appending, fails
// authentication; the sequence number in the nonce makes packages that are
// moved, swapped or copied from elsewhere in the object fail; the header in
// the AAD binds version, suite and prefix; the caller's aad binds the
// object's identity, so bytes copied from another object with the same key
// fail too.
//
// Sizes follow from the plaintext size alone (CiphertextSize,
// PlaintextSize): 16 bytes per 64 KiB package plus the header, 0.024 %.
package format
