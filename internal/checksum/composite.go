package checksum

// Composite returns S3's COMPOSITE multipart checksum: the checksum, with
// algorithm a, of the concatenated raw part checksums in part order. S3
// renders it as Encode(sum) + "-" + the number of parts.
func Composite(a Algorithm, partSums [][]byte) []byte {
	h := a.New()
	for _, s := range partSums {
		h.Write(s)
	}
	return h.Sum(nil)
}
