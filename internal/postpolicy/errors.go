package postpolicy

import (
	"fmt"
	"net/http"
)

// Kind is what is wrong with a form, in the terms of the S3 error it
// becomes.
type Kind int

const (
	// Malformed: not multipart/form-data S3 can read (MalformedPOSTRequest).
	Malformed Kind = iota
	// Missing: a required field is absent or a field repeats (InvalidArgument).
	Missing
	// PreDataTooLarge: the fields before the file exceed MaxPreData
	// (MaxPostPreDataLengthExceeded).
	PreDataTooLarge
	// BadPolicy: the policy is not base64 JSON of the documented shape
	// (InvalidPolicyDocument).
	BadPolicy
	// Denied: the policy has expired, a condition failed, or a field is
	// not covered by any condition (AccessDenied, "Invalid according to
	// Policy: ...").
	Denied
	// TooLarge and TooSmall: the file is outside content-length-range
	// (EntityTooLarge, EntityTooSmall).
	TooLarge
	TooSmall
)

// Error is a form or policy refused. Msg is S3's message for it.
type Error struct {
	Kind Kind
	Msg  string
	Err  error // the underlying read error, if any
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Msg + ": " + e.Err.Error()
	}
	return e.Msg
}

// S3Error is what a client is told (s3api.ClientError): the S3 code of
// the kind and S3's message, never the underlying read error's text.
func (e *Error) S3Error() (code string, status int, message string) {
	c := kindCodes[e.Kind]
	return c.code, c.status, e.Msg
}

// kindCodes are the S3 codes and statuses of the kinds.
var kindCodes = [...]struct {
	code   string
	status int
}{
	Malformed:       {"MalformedPOSTRequest", http.StatusBadRequest},
	Missing:         {"InvalidArgument", http.StatusBadRequest},
	PreDataTooLarge: {"MaxPostPreDataLengthExceeded", http.StatusBadRequest},
	BadPolicy:       {"InvalidPolicyDocument", http.StatusBadRequest},
	Denied:          {"AccessDenied", http.StatusForbidden},
	TooLarge:        {"EntityTooLarge", http.StatusBadRequest},
	TooSmall:        {"EntityTooSmall", http.StatusBadRequest},
}

func (e *Error) Unwrap() error { return e.Err }

func errorf(k Kind, format string, args ...any) *Error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// denied is a policy refusal, worded as S3 words them.
func denied(format string, args ...any) *Error {
	return errorf(Denied, "Invalid according to Policy: "+format, args...)
}
