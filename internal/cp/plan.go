package cp

import (
	"fmt"

	"github.com/jogstore/jog/internal/checksum"
)

// uploadAlgorithm is the checksum every upload carries: per part, and for
// the whole object (FULL_OBJECT, combined from the parts' CRCs). CRC64NVME
// is S3's default, the fastest to compute (SIMD), and combinable, so a
// parallel download verifies it range by range too.
const uploadAlgorithm = checksum.CRC64NVME

// S3's multipart limits.
const (
	MinPartSize = 5 << 20
	MaxPartSize = 5 << 30
	MaxParts    = 10000
)

// DefaultPartSize is the part (and download range) size when none is
// given: large enough that per-request costs (a round trip, a signature,
// the server's metadata write) are well under 1% of a part's transfer at
// disk speeds, small enough that the streams of an object of a few hundred
// MiB are all busy. PapioS3 used 32 MB parts with 3 streams.
const DefaultPartSize = 16 << 20

// DefaultStreams is the number of requests in flight when none is given.
// Three streams were enough for PapioS3 on 1 GbE; on one fast disk more
// streams keep the server's disk queue full while each stream's client
// side hashes or waits for a round trip, and 8 leaves headroom without
// over-subscribing a small server.
const DefaultStreams = 8

// section is a byte range of a file or object: part number Number (1-based)
// covers [Off, Off+Size).
type section struct {
	Number    int
	Off, Size int64
}

// PartSize returns the part size for an object of size bytes: want (or
// DefaultPartSize when want is 0), grown to a whole MiB so that there are at
// most MaxParts parts, and at least MinPartSize.
func PartSize(size, want int64) (int64, error) {
	if want == 0 {
		want = DefaultPartSize
	}
	if want < MinPartSize {
		want = MinPartSize
	}
	if min := (size + MaxParts - 1) / MaxParts; want < min {
		want = (min + 1<<20 - 1) &^ (1<<20 - 1)
	}
	if want > MaxPartSize {
		return 0, fmt.Errorf("%d bytes need parts over 5 GiB: larger than S3 allows", size)
	}
	return want, nil
}

// sections splits size bytes into consecutive sections of partSize (the
// last shorter); an empty object is one empty section.
func sections(size, partSize int64) []section {
	if size == 0 {
		return []section{{Number: 1}}
	}
	out := make([]section, 0, (size+partSize-1)/partSize)
	for off := int64(0); off < size; off += partSize {
		out = append(out, section{Number: len(out) + 1, Off: off, Size: min(partSize, size-off)})
	}
	return out
}

// resumePartSize is the part size to resume an upload with: the size of
// its lowest-numbered part when that part is followed by another (so it is
// a whole part, not the last), else want. An upload's parts come from one
// plan, so its first whole part tells the plan's part size.
func resumePartSize(parts []Part, want int64) int64 {
	first := -1
	for i, p := range parts {
		if first < 0 || p.Number < parts[first].Number {
			first = i
		}
	}
	if first < 0 || len(parts) < 2 || parts[first].Size < MinPartSize {
		return want
	}
	return parts[first].Size
}

// reusable returns the ETag of the part already uploaded as s with CRC
// (base64 CRC64NVME of the local file's bytes of s), or "" when s must be
// uploaded again: a part is kept only with the same number, the same size
// and the same checksum, so a changed local file never completes with
// stale parts.
func reusable(existing map[int]Part, s section, crc string) string {
	p, ok := existing[s.Number]
	if !ok || p.Size != s.Size || p.CRC == "" || p.CRC != crc {
		return ""
	}
	return p.ETag
}
