// Package kmip is an external key management service for SSE-KMS: a
// kms.KMS that keeps JOG's data keys sealed by symmetric keys held in a
// KMIP server (OASIS KMIP 1.4 over mutual TLS), so that the keys that
// protect the data never reach JOG's disks
// (docs/adr/0029-kmip.md).
//
// A key ID names a KMIP object by its Name attribute: the key the
// operator created (and activated) in the KMIP server under that name.
// GenerateDataKey draws 32 random bytes and has the server encrypt them
// with the named AES key in GCM mode, the encryption context bound in as
// associated data; Decrypt has the server decrypt them again, after
// checking in the same request that the key is still Active. The sealed
// form names the KMIP object (its Unique Identifier) that sealed it, so a
// data key opens under the very object that sealed it even when the name
// moves to another.
//
// Errors are *kms.Error: a name no object carries is kms.ErrNotFound, a
// key that is not Active kms.ErrDisabled, a server that cannot be
// reached (or does not answer within Config.Timeout) kms.ErrUnavailable,
// a sealed key that does not open kms.ErrOpen. None of them ever comes
// with a data key.
//
// kmiptest starts a PyKMIP server for tests.
package kmip
