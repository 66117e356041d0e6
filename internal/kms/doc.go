// Package kms keeps the keys of server-side encryption (issue 39,
// docs/adr/0028-key-management.md). It owns:
//
//   - KMS, the interface a key management service implements: seal a fresh
//     32-byte data key under a named key (GenerateDataKey), open it again
//     (Decrypt), and say whether a key can be used (Status). The built-in
//     service implements it; an external one (KMIP) can later.
//   - Builtin, the built-in service: named keys (create, list, describe,
//     enable, disable), each with versions (Rotate adds one; Rewrap moves a
//     sealed data key to the newest version without changing the data
//     key), and the SSE-S3 key as a distinguished key, SSES3KeyID. The
//     versions' key material is sealed by the master key, kept like the IAM
//     server key (MasterKeyFile, mode 0600, or MasterKeyEnv), and the keys
//     live behind Store (FileStore: a file in the data dir).
//   - Context, the encryption context bound into a sealed data key as
//     associated data: S3's x-amz-server-side-encryption-context, and the
//     object's ARN, so that a sealed data key moved to another object does
//     not open.
//   - The master key's rotation (RotateMaster): every key version's
//     material re-sealed under a new master key, no object touched, in an
//     order a crash cannot break (OpenDataDir finishes or undoes it).
//   - The pure cryptography of SSE-C: the customer key's headers checked
//     (ParseCustomerKey) and a salted HMAC that recognises the key without
//     storing it (NewKeyCheck, KeyCheck.Verify).
//
// Errors are *Error values whose S3Error gives the code S3 answers (the
// s3api.ClientError shape); errors.Is matches them against the sentinels
// by kind.
//
// `jog admin kms` (internal/cli) manages the built-in KMS's keys; the
// server and the object paths use it through internal/sse.
package kms
