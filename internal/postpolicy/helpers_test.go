package postpolicy

import (
	"bytes"
	"encoding/base64"
	"mime/multipart"
	"testing"
)

type field struct{ name, value string }

// formBody builds a multipart/form-data body: the fields in order, then
// the file part (named fileName) with content, then the trailing fields.
func formBody(t testing.TB, fields []field, fileName string, content []byte, after ...field) ([]byte, string) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for _, f := range fields {
		if err := mw.WriteField(f.name, f.value); err != nil {
			t.Fatal(err)
		}
	}
	fw, err := mw.CreateFormFile("file", fileName)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(content)
	for _, f := range after {
		_ = mw.WriteField(f.name, f.value)
	}
	mw.Close()
	return b.Bytes(), mw.FormDataContentType()
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
