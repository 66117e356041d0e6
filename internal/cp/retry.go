package cp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"time"
)

// attempts is how many times a request that failed transiently is tried.
const attempts = 4

// retry runs do until it succeeds, fails for good, or has been tried
// attempts times, sleeping 250 ms, 500 ms, 1 s between tries: a server
// shedding load (503 SlowDown, as a QoS scheduler may), a dropped
// connection or a truncated body does not lose a large transfer.
func (cp *Copier) retry(ctx context.Context, do func() error) error {
	var err error
	for i := range attempts {
		if err = do(); err == nil || !retryable(err) || i == attempts-1 {
			return err
		}
		if serr := cp.sleep(ctx, 250*time.Millisecond<<i); serr != nil {
			return err
		}
	}
	return err
}

// retryable reports whether err may pass when the request is sent again:
// a 5xx, 429 or RequestTimeout answer, a network error, a body cut short.
// Not a checksum mismatch, a refusal, or the context ending.
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var mm *MismatchError
	if errors.As(err, &mm) {
		return false
	}
	var s3err *S3Error
	if errors.As(err, &s3err) {
		return s3err.Status >= 500 || s3err.Status == http.StatusTooManyRequests || s3err.Code == "RequestTimeout"
	}
	var nerr net.Error
	return errors.As(err, &nerr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, net.ErrClosed)
}
