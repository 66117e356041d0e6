package cp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"
)

func TestRetryable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&S3Error{Status: 503, Code: "SlowDown"}, true},
		{fmt.Errorf("UploadPart k #2: %w", &S3Error{Status: 500, Code: "InternalError"}), true},
		{&S3Error{Status: 400, Code: "RequestTimeout"}, true},
		{&S3Error{Status: 429, Code: "TooManyRequests"}, true},
		{&S3Error{Status: 400, Code: "BadDigest"}, false},
		{&S3Error{Status: 403, Code: "AccessDenied"}, false},
		{&S3Error{Status: 412, Code: "PreconditionFailed"}, false},
		{fmt.Errorf("GET k: %w", io.ErrUnexpectedEOF), true},
		{&net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, true},
		{&MismatchError{Key: "k"}, false},
		{fmt.Errorf("GET k: %w", context.Canceled), false},
		{errors.New("k: not a regular file"), false},
	} {
		if got := retryable(tc.err); got != tc.want {
			t.Errorf("retryable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestRetry(t *testing.T) {
	var slept []time.Duration
	cp := New(nil, Options{})
	cp.sleep = func(_ context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	tries := 0
	err := cp.retry(context.Background(), func() error {
		if tries++; tries < 3 {
			return &S3Error{Status: 503, Code: "SlowDown"}
		}
		return nil
	})
	if err != nil || tries != 3 || len(slept) != 2 || slept[1] != 2*slept[0] {
		t.Fatalf("retry: %v after %d tries, slept %v; want success on the 3rd, backing off", err, tries, slept)
	}
	tries = 0
	err = cp.retry(context.Background(), func() error { tries++; return &S3Error{Status: 503, Code: "SlowDown"} })
	if err == nil || tries != attempts {
		t.Fatalf("retry of a lasting 503: %v after %d tries, want the error after %d", err, tries, attempts)
	}
	tries = 0
	err = cp.retry(context.Background(), func() error { tries++; return &S3Error{Status: 400, Code: "BadDigest"} })
	if err == nil || tries != 1 {
		t.Fatalf("retry of BadDigest: %d tries, want 1", tries)
	}
}
