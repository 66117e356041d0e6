package bench

import (
	"strconv"
)

// Key shapes, as --keys takes them: how a run names the objects it writes.
// The shape of the names decides how much of a server's namespace work a
// PUT does (a new directory per object, a deep path, one huge directory),
// so a load generator that only ever writes one shape can flatter a server.
const (
	// KeysSeq is <prefix>w<worker>/<n>: one directory per worker, sequential
	// names (jog bench's own shape, the default).
	KeysSeq = "seq"
	// KeysWarp is MinIO warp's shape: <prefix><8 chars>/<16 chars>.rnd.
	KeysWarp = "warp"
	// KeysWarpFresh is warp's names under a fresh random directory for every
	// object: <prefix><8 chars>/<16 chars>.rnd, as if warp drew its prefix per
	// object (it draws it per worker); the worst case for a directory index.
	KeysWarpFresh = "warp-fresh"
	// KeysDeep is a backup tool's: <prefix>host-<w>/2026/11/24/vol-<k>/chunk-<n>,
	// six levels, each vol-<k> directory shared by 256 chunks.
	KeysDeep = "deep"
	// KeysFlat is one flat namespace: <prefix><20 random chars>, no '/'.
	KeysFlat = "flat"
)

// KeyShapes are the --keys values.
var KeyShapes = []string{KeysSeq, KeysWarp, KeysWarpFresh, KeysDeep, KeysFlat}

// warpAlphabet is the character set of warp's random names and prefixes:
// minio/warp pkg/generator/generator.go, asciiLetters, 64 characters
// including '(' and ')'. There randASCIIBytes fills an 8-byte prefix per
// generator.Source (cli/generator.go: prefixSize 8 unless --noprefix; the
// put benchmark makes one Source per worker, pkg/bench/put.go) and
// randomSrc.Object (pkg/generator/random.go) names each object with 16
// characters plus ".rnd". So warp writes under one random directory per
// worker, a fresh random name per object.
const warpAlphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890()"

// alnum is the flat shape's character set.
const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// deepChunksPerVolume is how many objects share a deep shape's vol-<k>.
const deepChunksPerVolume = 256

// shapedKey names object n of writer w under base (which ends in "/"),
// drawing random characters from next. Names are unique per (w, n) for
// seq and deep and random (64^16 or 62^20 values) for the others.
func shapedKey(shape, base string, w int, n int64, next func() uint64) string {
	switch shape {
	case KeysWarp, KeysWarpFresh:
		var b [8 + 1 + 16 + 4]byte
		dir := mix64(uint64(w) ^ warpDirSalt)
		if shape == KeysWarpFresh {
			dir = next()
		}
		randChars(b[:8], warpAlphabet, dir)
		b[8] = '/'
		randChars(b[9:17], warpAlphabet, next())
		randChars(b[17:25], warpAlphabet, next())
		copy(b[25:], ".rnd")
		return base + string(b[:])
	case KeysDeep:
		return base + "host-" + strconv.Itoa(w) + "/2026/11/24/vol-" +
			strconv.FormatInt(n/deepChunksPerVolume, 10) + "/chunk-" + strconv.FormatInt(n, 10)
	case KeysFlat:
		var b [20]byte
		randChars(b[:10], alnum, next())
		randChars(b[10:], alnum, next())
		return base + string(b[:])
	}
	return base + "w" + strconv.Itoa(w) + "/" + strconv.FormatInt(n, 10)
}

// warpDirSalt varies the warp shape's per-writer directory from w itself.
const warpDirSalt = 0x5bd1e9955bd1e995

// randChars fills dst (at most 10 bytes) with characters of alphabet, six
// bits of r each.
func randChars(dst []byte, alphabet string, r uint64) {
	for i := range dst {
		dst[i] = alphabet[int(r&63)%len(alphabet)]
		r >>= 6
	}
}

// mix64 is splitmix64's finaliser: a well-spread hash of x.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
