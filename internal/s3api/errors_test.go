package s3api

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"

	"github.com/jogstore/jog/internal/acl"
	"github.com/jogstore/jog/internal/cors"
	"github.com/jogstore/jog/internal/lifecycle"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/notify"
	"github.com/jogstore/jog/internal/postpolicy"
	"github.com/jogstore/jog/internal/qos"
	"github.com/jogstore/jog/internal/service"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/tagging"
)

// clientAddr is the socket address a failed body read names.
const clientAddr = "198.51.100.9:51234"

func connReset() error {
	addr := &net.TCPAddr{IP: net.ParseIP("198.51.100.9"), Port: 51234}
	return &net.OpError{Op: "read", Net: "tcp", Source: &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 9000}, Addr: addr, Err: syscall.ECONNRESET}
}

// A client whose connection fails mid-body gets 400 IncompleteBody with
// S3's message: the read error's text, which names the client's socket
// and the server's, stays in the log. Nothing is stored.
func TestBodyReadErrorTextStaysInternal(t *testing.T) {
	s := newFuzzServer(t)
	ctx := context.Background()
	if err := s.svc.CreateBucket(ctx, fuzzBucket, fuzzRegion, fuzzAccessKey); err != nil {
		t.Fatal(err)
	}
	r, ok := s.buildRequest(http.MethodPut, "/"+fuzzBucket+"/k", "", []byte("0123456789"), payloadUnsigned)
	if !ok {
		t.Fatal("request not built")
	}
	r.Body = failingBody{connReset()}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, r)
	var e errorResponse
	if err := xml.Unmarshal(rec.Body.Bytes(), &e); err != nil {
		t.Fatalf("%d %s: %v", rec.Code, rec.Body, err)
	}
	if rec.Code != http.StatusBadRequest || e.Code != "IncompleteBody" {
		t.Errorf("PUT with a reset body: %d %s, want 400 IncompleteBody", rec.Code, e.Code)
	}
	if strings.Contains(rec.Body.String(), "198.51.100.9") || strings.Contains(rec.Body.String(), "192.0.2.1") || e.Message != "The request body could not be read to its end." {
		t.Errorf("the error's text reached the client: Message %q", e.Message)
	}
	if _, err := s.svc.HeadObject(ctx, fuzzBucket, "k", "", false); !errors.Is(err, meta.ErrObjectNotFound) {
		t.Errorf("after a failed PUT: HeadObject = %v, want not found", err)
	}
}

// toAPIError sends an error's own text only when the error opts in: a
// ClientError's message, or detail around a sentinel whose row says so.
func TestErrorTextOptIn(t *testing.T) {
	readErr := fmt.Errorf("%w: %w", errClientRead, connReset())
	unstorable := "The metadata backend cannot store an object key with a NUL byte or invalid UTF-8."
	for _, c := range []struct {
		name   string
		err    error
		code   string
		status int
		msg    string
	}{
		{"acl", &acl.Error{Code: "InvalidArgument", Message: "Invalid id"}, "InvalidArgument", 400, "Invalid id"},
		{"lifecycle", fmt.Errorf("put lifecycle: %w", &lifecycle.RuleError{Code: "InvalidRequest", Msg: "bad rule"}), "InvalidRequest", 400, "bad rule"},
		{"tagging", &tagging.Error{Code: "InvalidTag", Msg: "bad tag"}, "InvalidTag", 400, "bad tag"},
		{"notify 400", &notify.ConfigError{Code: notify.CodeInvalidArgument, Msg: notify.MsgOverlap}, "InvalidArgument", 400, notify.MsgOverlap},
		{"notify 501", &notify.ConfigError{Code: notify.CodeNotImplemented, Msg: "no EventBridge"}, "NotImplemented", 501, "no EventBridge"},
		{"qos", &qos.Error{Kind: qos.NoCapacity, Msg: "set --capacity"}, "CapacityNotConfigured", 409, "set --capacity"},
		{"qos not yours", fmt.Errorf("present: %w", &qos.Error{Kind: qos.NotYours, Msg: "bound to alice"}), "AccessDenied", 403, "bound to alice"},
		{"form, its read error kept out", &postpolicy.Error{Kind: postpolicy.PreDataTooLarge, Msg: "too long", Err: connReset()}, "MaxPostPreDataLengthExceeded", 400, "too long"},
		{"form denied", &postpolicy.Error{Kind: postpolicy.Denied, Msg: "Policy expired."}, "AccessDenied", 403, "Policy expired."},
		{"cors rule", &cors.RuleError{Code: "InvalidRequest", Msg: "bad origin"}, "InvalidRequest", 400, "bad origin"},
		{"cors method", &cors.MethodError{Method: "BREW"}, "BadRequest", 400, "Invalid Access-Control-Request-Method: BREW"},
		{"malformed: S3's message", fmt.Errorf("%w: XML syntax error on line 1", tagging.ErrMalformed), "MalformedXML", 400, errMalformedXML.Message},
		{"opted-in detail", fmt.Errorf("%w: %q too short", service.ErrInvalidBucketName, "ab"), "InvalidBucketName", 400, `invalid bucket name: "ab" too short`},
		{"fixed row", fmt.Errorf("postgres: key %q: %w", "a\x00b", meta.ErrUnstorableKey), "InvalidArgument", 400, unstorable},
		{"body read", readErr, "IncompleteBody", 400, "The request body could not be read to its end."},
		{"body read under an opted-in sentinel", fmt.Errorf("%w: %w", sigv4.ErrMalformedTrailer, readErr), "IncompleteBody", 400, "The request body could not be read to its end."},
	} {
		ae, known := toAPIError(c.err)
		if !known || ae.Code != c.code || ae.Status != c.status || ae.Message != c.msg {
			t.Errorf("%s: toAPIError(%v) = %+v, %v; want %d %s %q", c.name, c.err, ae, known, c.status, c.code, c.msg)
		}
		if c.msg != "" && strings.Contains(ae.Message, clientAddr) {
			t.Errorf("%s: the socket address reached the message %q", c.name, ae.Message)
		}
	}
}
