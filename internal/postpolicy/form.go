package postpolicy

import (
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"strings"
)

// MaxPreData bounds the fields before the file part, names and values
// together: S3 refuses more than 20480 bytes before the file with
// MaxPostPreDataLengthExceeded (its error document names
// MaxPostPreDataLengthBytes 20480). It bounds what a form makes the server
// hold in memory; the file itself is streamed.
const MaxPreData = 20 << 10

// MaxPreBytes bounds the bytes read before the file part, whatever they
// hold: MaxPreData of names and values, and room for their multipart
// framing (boundaries, part headers, a preamble) and the reader's
// read-ahead into the file. The fields are read before the form's
// signature is checked: without this bound, part headers (up to 10 MiB
// each in mime/multipart) and a preamble would be read unbounded.
const MaxPreBytes = MaxPreData + 64<<10

// Form is a POST upload's fields and its file part, still unread.
type Form struct {
	fields map[string]string // by lower-case name
	names  []string          // lower-case, in form order
	// File is the file part's content: read it only after the checks.
	File io.Reader
	// FileName is the file part's filename (its base name), for ${filename}.
	FileName string
}

// ReadForm reads a multipart/form-data body (contentType is the request's
// Content-Type) up to and including the header of its file part, the
// field named "file". Field names are case-insensitive; a field given
// twice, or a form without a file, is refused. Whatever follows the file
// part is never read: S3 ignores fields after the file.
func ReadForm(body io.Reader, contentType string) (*Form, error) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return nil, errorf(Malformed, "The body of your POST request is not well-formed multipart/form-data.")
	}
	pre := &preBound{r: body, left: MaxPreBytes}
	mr := multipart.NewReader(pre, params["boundary"])
	f := &Form{fields: map[string]string{}}
	budget := MaxPreData
	// S3's words, spelling included.
	tooLarge := errorf(PreDataTooLarge, "Your POST request fields preceeding the upload file was too large.")
	for {
		p, err := mr.NextPart()
		if pre.hit {
			return nil, tooLarge
		}
		if err == io.EOF {
			return nil, errorf(Missing, "POST requires exactly one file upload per request.")
		}
		if err != nil {
			return nil, &Error{Kind: Malformed, Msg: "The body of your POST request is not well-formed multipart/form-data.", Err: err}
		}
		name := strings.ToLower(p.FormName())
		if name == "" {
			return nil, errorf(Malformed, "The body of your POST request is not well-formed multipart/form-data.")
		}
		if name == "file" {
			pre.left = -1 // the file streams, bounded by the policy
			f.File, f.FileName = p, p.FileName()
			return f, nil
		}
		budget -= len(name)
		value, err := io.ReadAll(io.LimitReader(p, int64(max(budget, 0))+1))
		if pre.hit {
			return nil, tooLarge
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, &Error{Kind: Malformed, Msg: "The body of your POST request is not well-formed multipart/form-data.", Err: err}
		}
		if budget -= len(value); budget < 0 {
			return nil, tooLarge
		}
		if _, dup := f.fields[name]; dup {
			return nil, errorf(Missing, "The form field %s appears more than once: POST takes one value per field.", name)
		}
		f.fields[name] = string(value)
		f.names = append(f.names, name)
	}
}

// Get returns the value of the field (any case), "" when absent.
func (f *Form) Get(name string) string { return f.fields[strings.ToLower(name)] }

// Has reports whether the form has the field (any case).
func (f *Form) Has(name string) bool { _, ok := f.fields[strings.ToLower(name)]; return ok }

// Names lists the fields before the file, lower case, in form order.
func (f *Form) Names() []string { return f.names }

// Key is the object key: the key field with every ${filename} replaced by
// the file's name, as S3 does before checking the policy.
func (f *Form) Key() string {
	return strings.ReplaceAll(f.Get("key"), "${filename}", f.FileName)
}

// errPreBytes ends the reads of a form past MaxPreBytes before its file.
var errPreBytes = errors.New("postpolicy: more than MaxPreBytes before the file")

// preBound reads at most left bytes of r (no bound once left is -1), and
// notes whether a read went past them.
type preBound struct {
	r    io.Reader
	left int
	hit  bool
}

func (b *preBound) Read(p []byte) (int, error) {
	if b.left < 0 {
		return b.r.Read(p)
	}
	if b.left == 0 {
		b.hit = true
		return 0, errPreBytes
	}
	n, err := b.r.Read(p[:min(len(p), b.left)])
	b.left -= n
	return n, err
}
