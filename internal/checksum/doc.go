// Package checksum implements S3's flexible checksums: the
// x-amz-checksum-{crc32,crc32c,crc64nvme,sha1,sha256} values clients send in
// headers or aws-chunked trailers, their verification while a body streams
// through, and the multipart forms (COMPOSITE checksums of part checksums and
// FULL_OBJECT CRCs combined from part CRCs).
//
// S3 transmits every checksum as standard base64 of the big-endian digest
// bytes; Encode and Algorithm.Decode convert between the two.
package checksum
