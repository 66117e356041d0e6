package sigv4

import (
	"bytes"
	"crypto/hmac"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Bounds on the trailer section: S3 trailers are a checksum or two.
const (
	maxTrailers     = 16
	maxTrailerLines = 64 // including blank lines
)

// Trailer is one trailing header of an aws-chunked body.
type Trailer struct {
	Name, Value string
}

// readTrailers reads the trailer section that follows the final chunk, up to
// and including x-amz-trailer-signature in the signed mode, checks it against
// the announced names and, in the signed mode, verifies its signature.
func (c *ChunkedReader) readTrailers() (map[string]string, error) {
	var got []Trailer
	var sig string
	haveSig := false
lines:
	for range maxTrailerLines {
		l, err := readLine(c.br)
		switch {
		case err == io.EOF:
			break lines
		case err != nil:
			return nil, err
		case len(l.text) == 0:
			// Blank lines may precede the trailers (the final chunk's empty
			// data and its CRLF) and, in minio-go's signed form, the
			// signature; otherwise a blank line ends the section.
			if len(got) == 0 || c.signed {
				continue
			}
			break lines
		}
		name, value, ok := strings.Cut(string(l.text), ":")
		name = strings.ToLower(strings.TrimSpace(name))
		value = trimAll(value)
		if !ok || !validHeaderName(name) {
			return nil, fmt.Errorf("%w: trailer line %q is not name:value", ErrMalformedTrailer, l.text)
		}
		if l.eof && name != trailerSignatureName {
			// A trailer cut short would pass for a shorter value; the
			// signature line needs no such care, it must verify.
			return nil, truncated("inside a trailer")
		}
		if name == trailerSignatureName {
			if !c.signed {
				return nil, fmt.Errorf("%w: %s in an unsigned payload", ErrMalformedTrailer, trailerSignatureName)
			}
			sig, haveSig = value, true
			break lines
		}
		if err := c.checkTrailer(got, name); err != nil {
			return nil, err
		}
		if value == "" { // announced, so awaited: never "nothing to check"
			return nil, fmt.Errorf("%w: %s", ErrEmptyTrailer, name)
		}
		got = append(got, Trailer{Name: name, Value: value})
	}
	for _, name := range c.announced {
		if !slices.ContainsFunc(got, func(t Trailer) bool { return t.Name == name }) {
			return nil, fmt.Errorf("%w: trailer %q announced but not sent", ErrMalformedTrailer, name)
		}
	}
	if c.signed && (haveSig || len(got) > 0) {
		if !haveSig {
			return nil, fmt.Errorf("%w: missing %s", ErrMalformedTrailer, trailerSignatureName)
		}
		if !c.trailerSignatureValid(got, sig) {
			return nil, fmt.Errorf("%w: over trailers %q", ErrTrailerSignatureMismatch, canonicalTrailers(got))
		}
	}
	values := make(map[string]string, len(got))
	for _, t := range got {
		values[t.Name] = t.Value
	}
	return values, nil
}

// checkTrailer accepts trailer name after the trailers already read.
func (c *ChunkedReader) checkTrailer(got []Trailer, name string) error {
	switch {
	case !slices.Contains(c.announced, name):
		return fmt.Errorf("%w: trailer %q was not announced in x-amz-trailer", ErrMalformedTrailer, name)
	case slices.ContainsFunc(got, func(t Trailer) bool { return t.Name == name }):
		return fmt.Errorf("%w: trailer %q sent twice", ErrMalformedTrailer, name)
	case len(got) >= maxTrailers:
		return fmt.Errorf("%w: more than %d trailers", ErrMalformedTrailer, maxTrailers)
	}
	return nil
}

// trailerSignatureValid checks sig against the trailers in the order they
// were sent, then (for several trailers) in sorted order: clients built on
// the SDKs' canonical-headers code sort them, the rest sign them as sent.
// Either way the signature covers exactly these names and values.
func (c *ChunkedReader) trailerSignatureValid(got []Trailer, sig string) bool {
	if hmac.Equal([]byte(c.signer.trailer(canonicalTrailers(got))), []byte(sig)) {
		return true
	}
	if len(got) < 2 {
		return false
	}
	sorted := slices.SortedFunc(slices.Values(got), func(a, b Trailer) int { return strings.Compare(a.Name, b.Name) })
	return hmac.Equal([]byte(c.signer.trailer(canonicalTrailers(sorted))), []byte(sig))
}

// canonicalTrailers is what the trailer signature covers: each trailer as
// "name:value\n", lowercase name and trimmed value, without the signature.
func canonicalTrailers(ts []Trailer) []byte {
	var b bytes.Buffer
	for _, t := range ts {
		b.WriteString(t.Name)
		b.WriteByte(':')
		b.WriteString(t.Value)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// validHeaderName reports whether s is a non-empty HTTP token.
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(unreserved(c) || strings.IndexByte("!#$%&'*+^`|", c) >= 0) {
			return false
		}
	}
	return true
}
