package cp

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"hash"
	"strconv"
	"strings"

	"github.com/jogstore/jog/internal/checksum"
)

// algorithms are the checksums a download can verify, in the order their
// headers are looked for.
var algorithms = checksum.Algorithms

// md5ETag names the MD5 of an ETag as a verification algorithm: a plain
// object's ETag is its MD5, a multipart object's the MD5 of its parts'
// MD5s with "-N".
const md5ETag = "MD5"

// expectation is how a download is checked: the digest the whole object
// must have and how it is made from what the ranges hashed.
type expectation struct {
	alg  string // a checksum.Algorithm, or md5ETag; "" when nothing can be checked
	want []byte
	// composite: the digest is alg over the parts' digests, in order, and
	// the object is downloaded part by part (GET partNumber=n).
	composite bool
	parts     int
	// combinable: a FULL_OBJECT CRC, combined from the ranges' CRCs.
	combinable bool
}

// expect returns how to verify an object HEAD described: its stored
// checksum when it has one (FULL_OBJECT or COMPOSITE), else its MD5 ETag.
// An object with neither (an ETag that is not an MD5, as S3 gives SSE-C
// and SSE-KMS objects) yields an empty expectation.
func expect(info ObjectInfo) (expectation, error) {
	if info.Checksum != "" {
		a, err := checksum.ParseAlgorithm(info.Algorithm)
		if err != nil {
			return expectation{}, err
		}
		value, n, composite := strings.Cut(info.Checksum, "-")
		composite = composite || strings.EqualFold(info.ChecksumType, "COMPOSITE")
		want, err := a.Decode(value)
		if err != nil {
			return expectation{}, fmt.Errorf("the object's %s: %w", a.HeaderName(), err)
		}
		e := expectation{alg: string(a), want: want, composite: composite, combinable: !composite && a.IsCRC()}
		if composite {
			if e.parts, err = strconv.Atoi(n); err != nil || e.parts < 1 {
				return expectation{}, fmt.Errorf("the object's %s %q names no part count", a.HeaderName(), info.Checksum)
			}
		}
		return e, nil
	}
	if info.Encryption == "aws:kms" || info.Encryption == "SSE-C" {
		// S3 (and JOG) give these objects an ETag that is not their MD5.
		return expectation{}, nil
	}
	value, n, composite := strings.Cut(info.ETag, "-")
	want, err := hex.DecodeString(value)
	if err != nil || len(want) != md5.Size {
		return expectation{}, nil
	}
	e := expectation{alg: md5ETag, want: want, composite: composite}
	if composite {
		if e.parts, err = strconv.Atoi(n); err != nil || e.parts < 1 {
			return expectation{}, nil
		}
	}
	return e, nil
}

// newHash returns a fresh hash of alg (a checksum.Algorithm or md5ETag).
func newHash(alg string) hash.Hash {
	if alg == md5ETag {
		return md5.New()
	}
	return checksum.Algorithm(alg).New()
}

// MismatchError reports a download whose bytes do not have the object's
// checksum: nothing was written to the destination.
type MismatchError struct {
	Key, Algorithm string
	Want, Got      []byte
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("%s: %s of the downloaded bytes %s does not match the object's %s",
		e.Key, e.Algorithm, checksum.Encode(e.Got), checksum.Encode(e.Want))
}

// wholeSum returns the object's digest from the ranges' digests (sums, of
// ranges of sizes, in order), and false when they cannot make it: a
// non-CRC digest of an object downloaded in more than one range, which the
// caller hashes again from the file.
func (e expectation) wholeSum(sums [][]byte, sizes []int64) ([]byte, bool, error) {
	switch {
	case e.composite:
		if len(sums) != e.parts {
			return nil, false, fmt.Errorf("downloaded %d parts of %d", len(sums), e.parts)
		}
		h := newHash(e.alg)
		for _, s := range sums {
			h.Write(s)
		}
		return h.Sum(nil), true, nil
	case len(sums) == 1:
		return sums[0], true, nil
	case e.combinable:
		acc := sums[0]
		for i := 1; i < len(sums); i++ {
			var err error
			if acc, err = checksum.CombineCRC(checksum.Algorithm(e.alg), acc, sums[i], sizes[i]); err != nil {
				return nil, false, err
			}
		}
		return acc, true, nil
	}
	return nil, false, nil
}

// check compares the whole object's digest with the expected one.
func (e expectation) check(key string, got []byte) error {
	if !bytes.Equal(got, e.want) {
		return &MismatchError{Key: key, Algorithm: e.alg, Want: e.want, Got: got}
	}
	return nil
}
