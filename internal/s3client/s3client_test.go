package s3client

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestReadError(t *testing.T) {
	resp := &http.Response{StatusCode: 403, Body: io.NopCloser(strings.NewReader(
		`<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>no</Message></Error>`))}
	var e *Error
	if err := ReadError(resp); !errors.As(err, &e) || e.Code != "AccessDenied" || e.Message != "no" || e.Status != 403 {
		t.Fatalf("ReadError = %v", err)
	}
	resp = &http.Response{StatusCode: 404, Body: http.NoBody}
	if err := ReadError(resp); !errors.As(err, &e) || e.Code != "NotFound" {
		t.Fatalf("ReadError of a body-less 404 = %v", err)
	}
}

func TestErrorIn(t *testing.T) {
	if err := ErrorIn(200, []byte(`<?xml version="1.0"?>`+"\n"+`<Error><Code>InternalError</Code></Error>`)); err == nil || !strings.Contains(err.Error(), "InternalError") {
		t.Fatalf("ErrorIn of an <Error> document = %v", err)
	}
	ok := `<CompleteMultipartUploadResult><Key>&lt;Error&gt;</Key><ETag>"x"</ETag></CompleteMultipartUploadResult>`
	if err := ErrorIn(200, []byte(ok)); err != nil {
		t.Fatalf("ErrorIn of a result = %v", err)
	}
	if got := XMLEscape(`a<b>&"`); got != "a&lt;b&gt;&amp;&#34;" {
		t.Fatalf("XMLEscape = %q", got)
	}
}
