// Package tagging owns S3's tag sets: the Tagging document of
// Put/GetObjectTagging and Put/GetBucketTagging (ParseXML, Set), the
// x-amz-tagging header's URL-encoded form (ParseQuery, Set.Query), and
// S3's limits on both (Validate): 10 tags on an object, 50 on a bucket,
// unique keys of 1 to 128 Unicode characters not starting with aws:,
// values of up to 256, made of letters, digits, spaces and + - = . _ : / @.
package tagging

import (
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits of S3 (PutObjectTagging, PutBucketTagging; "Tag restrictions" of
// the Billing user guide).
const (
	MaxObjectTags = 10
	MaxBucketTags = 50
	maxKey        = 128 // Unicode characters
	maxValue      = 256
	// reservedPrefix starts the tag keys AWS reserves for itself.
	reservedPrefix = "aws:"
	// MaxDocument bounds the Tagging document read from a request.
	MaxDocument = 64 << 10
)

var (
	// ErrMalformed reports a document that is not a Tagging document.
	ErrMalformed = errors.New("malformed Tagging document")
	// ErrNoTagSet is GetBucketTagging on a bucket without tags.
	ErrNoTagSet = errors.New("the TagSet does not exist")
)

// Error is a tag set S3 refuses, with S3's code (InvalidTag, BadRequest)
// and message.
type Error struct{ Code, Msg string }

func (e *Error) Error() string { return e.Msg }

// S3Error is what a client is told (s3api.ClientError).
func (e *Error) S3Error() (code string, status int, message string) {
	return e.Code, http.StatusBadRequest, e.Msg
}

// Tag is one key and value.
type Tag struct {
	Key   string `xml:"Key" json:"k"`
	Value string `xml:"Value" json:"v"`
}

// Set is a tag set, in the order given.
type Set []Tag

// Tagging is the document of Put/Get*Tagging.
type Tagging struct {
	XMLName xml.Name `xml:"Tagging"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	TagSet  struct {
		Tags Set `xml:"Tag"`
	} `xml:"TagSet"`
}

// Document returns s as a Tagging document (an empty TagSet for none).
func (s Set) Document() Tagging {
	var t Tagging
	t.TagSet.Tags = s
	if t.TagSet.Tags == nil {
		t.TagSet.Tags = Set{}
	}
	return t
}

// ParseXML reads a Tagging document and validates it against max tags.
func ParseXML(body []byte, max int) (Set, error) {
	var t struct {
		XMLName xml.Name `xml:"Tagging"`
		TagSet  *struct {
			Tags []struct {
				Key   *string `xml:"Key"`
				Value *string `xml:"Value"`
			} `xml:"Tag"`
		} `xml:"TagSet"`
	}
	if err := xml.Unmarshal(body, &t); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if t.TagSet == nil {
		return nil, fmt.Errorf("%w: no TagSet", ErrMalformed)
	}
	s := make(Set, 0, len(t.TagSet.Tags))
	for _, tag := range t.TagSet.Tags {
		if tag.Key == nil || tag.Value == nil {
			return nil, fmt.Errorf("%w: a Tag needs a Key and a Value", ErrMalformed)
		}
		s = append(s, Tag{*tag.Key, *tag.Value})
	}
	return s, s.Validate(max)
}

// ParseQuery reads the x-amz-tagging header ("k1=v1&k2=v2") and validates
// it as an object's tag set. An empty header is no tags. A malformed
// escape or a key given twice is S3's InvalidArgument on the header.
func ParseQuery(h string) (Set, error) {
	if h == "" {
		return nil, nil
	}
	var s Set
	for _, part := range strings.Split(h, "&") {
		k, v, _ := strings.Cut(part, "=")
		key, err1 := url.QueryUnescape(k)
		value, err2 := url.QueryUnescape(v)
		if err1 != nil || err2 != nil || s.hasKey(key) {
			return nil, &Error{"InvalidArgument", "The header 'x-amz-tagging' shall be encoded as UTF-8 then URLEncoded URL query parameters without tag name duplicates."}
		}
		s = append(s, Tag{key, value})
	}
	return s, s.Validate(MaxObjectTags)
}

func (s Set) hasKey(key string) bool {
	for _, t := range s {
		if t.Key == key {
			return true
		}
	}
	return false
}

// Validate checks s against S3's limits with at most max tags.
func (s Set) Validate(max int) error {
	if len(s) > max {
		what := "Object tags"
		if max == MaxBucketTags {
			what = "Bucket tags"
		}
		return &Error{"BadRequest", fmt.Sprintf("%s cannot be greater than %d", what, max)}
	}
	seen := make(map[string]bool, len(s))
	for _, t := range s {
		if n := utf8.RuneCountInString(t.Key); n == 0 || n > maxKey || !allowed(t.Key) {
			return &Error{"InvalidTag", "The TagKey you have provided is invalid"}
		}
		// The aws: prefix (in any case) is AWS's own: users cannot set it.
		if len(t.Key) >= len(reservedPrefix) && strings.EqualFold(t.Key[:len(reservedPrefix)], reservedPrefix) {
			return &Error{"InvalidTag", "Your TagKey cannot be prefixed with aws:"}
		}
		if utf8.RuneCountInString(t.Value) > maxValue || !allowed(t.Value) {
			return &Error{"InvalidTag", "The TagValue you have provided is invalid"}
		}
		if seen[t.Key] {
			return &Error{"InvalidTag", "Cannot provide multiple Tags with the same key"}
		}
		seen[t.Key] = true
	}
	return nil
}

// allowed reports whether s holds only letters, digits, spaces and
// + - = . _ : / @ (S3's tag character set).
func allowed(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r), unicode.IsNumber(r), unicode.Is(unicode.Z, r):
		case strings.ContainsRune("+-=._:/@", r):
		default:
			return false
		}
	}
	return true
}

// Query returns s in the x-amz-tagging form, keys sorted.
func (s Set) Query() string {
	v := make(url.Values, len(s))
	for _, t := range s {
		v.Set(t.Key, t.Value)
	}
	return v.Encode()
}

// ParseStored reads tags stored in the x-amz-tagging form (as Set.Query
// writes them) back into a Set; an empty string is no tags.
func ParseStored(stored string) Set {
	set := Set{}
	for _, part := range strings.Split(stored, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, _ := url.QueryUnescape(k)
		value, _ := url.QueryUnescape(v)
		set = append(set, Tag{Key: key, Value: value})
	}
	return set
}

// Map returns s as a map of key to value (nil when s is empty).
func (s Set) Map() map[string]string {
	if len(s) == 0 {
		return nil
	}
	m := make(map[string]string, len(s))
	for _, t := range s {
		m[t.Key] = t.Value
	}
	return m
}

// Has reports whether s holds key with value.
func (s Set) Has(key, value string) bool {
	for _, t := range s {
		if t.Key == key {
			return t.Value == value
		}
	}
	return false
}
