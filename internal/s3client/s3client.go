// Package s3client holds what JOG's own S3 clients (jog bench's load
// generator, jog cp's transfer engine) share about S3's answers: the error
// type, reading an error answer, and the XML escaping of request documents.
package s3client

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Error is an error answer from the server.
type Error struct {
	Status  int
	Code    string // S3 error code, or "HTTP<status>" when the body had none
	Message string
}

func (e *Error) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.Status, e.Message)
	}
	return fmt.Sprintf("%s (HTTP %d)", e.Code, e.Status)
}

// ReadError reads an error answer's body (at most 16 KiB of it parsed, 1
// MiB more drained so the connection can be reused) into an *Error. The
// caller closes the body.
func ReadError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	e := &Error{Status: resp.StatusCode, Code: "HTTP" + strconv.Itoa(resp.StatusCode)}
	var x struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &x) == nil && x.Code != "" {
		e.Code, e.Message = x.Code, x.Message
	} else if resp.StatusCode == http.StatusNotFound {
		e.Code = "NotFound" // HEAD has no body
	}
	return e
}

// ErrorIn returns the *Error a 200 answer's body holds, or nil: S3 may
// answer a long CompleteMultipartUpload (or CopyObject) 200 and send an
// <Error> document once it fails.
func ErrorIn(status int, body []byte) error {
	if !bytes.Contains(body, []byte("<Error>")) {
		return nil
	}
	var x struct {
		XMLName xml.Name
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &x) != nil || x.XMLName.Local != "Error" {
		return nil
	}
	return &Error{Status: status, Code: x.Code, Message: x.Message}
}

// XMLEscape escapes s for XML character data.
func XMLEscape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

// Sleep waits d, or until ctx ends (its error then): the clients' back-off
// between retries and their pacing.
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
