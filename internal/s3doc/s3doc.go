// Package s3doc holds what the packages of S3's bucket configuration
// documents (internal/lifecycle, internal/cors, internal/bucketrepl) share:
// the error a well-formed document gets when S3 refuses one of its rules,
// the random ID S3 gives a rule sent without one, and the reading of an
// element that may appear at most once (decoded as a list, so that a
// repeated one is refused rather than silently taking the last).
package s3doc

import (
	"crypto/rand"
	"encoding/base32"
	"fmt"
	"net/http"
)

// RuleError is a well-formed document S3 (or JOG) refuses: Code is the S3
// error code, Status the HTTP status (400 when 0), Msg the message.
type RuleError struct {
	Code   string
	Status int
	Msg    string
}

func (e *RuleError) Error() string { return e.Msg }

// S3Error is what a client is told (s3api.ClientError).
func (e *RuleError) S3Error() (code string, status int, message string) {
	if e.Status == 0 {
		return e.Code, http.StatusBadRequest, e.Msg
	}
	return e.Code, e.Status, e.Msg
}

func ruleErr(code string, status int, format string, args ...any) error {
	return &RuleError{Code: code, Status: status, Msg: fmt.Sprintf(format, args...)}
}

// InvalidArgument is S3's 400 InvalidArgument with the message.
func InvalidArgument(format string, args ...any) error {
	return ruleErr("InvalidArgument", http.StatusBadRequest, format, args...)
}

// InvalidRequest is S3's 400 InvalidRequest with the message.
func InvalidRequest(format string, args ...any) error {
	return ruleErr("InvalidRequest", http.StatusBadRequest, format, args...)
}

// NotImplemented is 501 NotImplemented: an element JOG cannot honour.
func NotImplemented(format string, args ...any) error {
	return ruleErr("NotImplemented", http.StatusNotImplemented, format, args...)
}

// NewRuleID is a random rule ID, as S3 gives a rule sent without one.
func NewRuleID() string {
	var b [20]byte
	_, _ = rand.Read(b[:])
	return base32.StdEncoding.EncodeToString(b[:])
}

// Ptr is the element of s, a single-valued element decoded as a list whose
// repetition the caller has refused, or nil when it was absent.
func Ptr[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[0]
}

// Value is Ptr's element by value, T's zero value when absent.
func Value[T any](s []T) T {
	var v T
	if len(s) > 0 {
		v = s[0]
	}
	return v
}
