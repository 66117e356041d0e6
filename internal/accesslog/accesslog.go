package accesslog

import (
	"math/rand/v2"

	"github.com/jogstore/jog/internal/s3api"
)

// Logger is the access log: an s3api.Observer that writes a line per
// request to its Writer. Requests answered with an error (status 400 and
// above) are always written; successful ones with probability Sample.
type Logger struct {
	w      *Writer
	format Format
	sample float64
}

var _ s3api.Observer = (*Logger)(nil)

// New returns a Logger writing lines in format f to w, successes sampled
// with probability sample (1: every request; values outside (0, 1] mean 1).
func New(w *Writer, f Format, sample float64) *Logger {
	if sample <= 0 || sample > 1 {
		sample = 1
	}
	return &Logger{w: w, format: f, sample: sample}
}

// Observe implements s3api.Observer: format, queue, return.
func (l *Logger) Observe(r *s3api.Record) {
	if !l.keep(r.Status) {
		return
	}
	l.w.AppendFunc(func(b []byte) []byte { return AppendLine(b, l.format, r) })
}

// keep decides whether a request with this status is written: errors
// always, successes by sampling.
func (l *Logger) keep(status int) bool {
	return status >= 400 || l.sample >= 1 || rand.Float64() < l.sample
}

// Writer returns the logger's writer (to Reopen it, or Close it).
func (l *Logger) Writer() *Writer { return l.w }
