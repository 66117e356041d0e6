// Package cp is the engine of `jog cp`: it copies files to and from any S3
// endpoint with parallel multipart uploads and parallel ranged downloads,
// end-to-end checksums (CRC64NVME per part and for the whole object on
// upload; the object's stored checksum, or its MD5 ETag, on download),
// resumable uploads and a progress bar. It talks HTTP itself (client.go)
// with JOG's SigV4 signer and UNSIGNED-PAYLOAD bodies sent from the file
// with sendfile; docs/adr/0016-jog-cp-client.md says why.
package cp
