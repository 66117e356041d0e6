package sched

import (
	"context"
	"io"
)

// Reader returns r with every Read charged to f: a Read asks r for at most
// one chunk and waits for the bytes it got before returning them, so the
// bytes reach the consumer (the blob store on PUT) at the scheduled rate.
// With no reservation registered a Read is r.Read plus one atomic load.
func Reader(ctx context.Context, r io.Reader, f Flow) io.Reader {
	return &reader{ctx: ctx, r: r, f: f}
}

type reader struct {
	ctx context.Context
	r   io.Reader
	f   Flow
}

func (r *reader) Read(p []byte) (int, error) {
	if !r.f.Scheduled() {
		return r.r.Read(p)
	}
	if c := r.f.d.Chunk(); len(p) > c {
		p = p[:c]
	}
	n, err := r.r.Read(p)
	if n > 0 {
		if werr := r.f.Wait(r.ctx, n); werr != nil {
			return 0, werr
		}
	}
	return n, err
}

// Writer returns w with every Write charged to f: each chunk is written
// after it is granted (the socket on GET). With no reservation registered a
// Write is w.Write plus one atomic load.
func Writer(ctx context.Context, w io.Writer, f Flow) io.Writer {
	return &writer{ctx: ctx, w: w, f: f}
}

type writer struct {
	ctx context.Context
	w   io.Writer
	f   Flow
}

func (w *writer) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if !w.f.Scheduled() {
			n, err := w.w.Write(p)
			return written + n, err
		}
		k := min(len(p), w.f.d.Chunk())
		if err := w.f.Wait(w.ctx, k); err != nil {
			return written, err
		}
		n, err := w.w.Write(p[:k])
		written += n
		if err != nil {
			return written, err
		}
		p = p[k:]
	}
	return written, nil
}
