package sched

import (
	"context"
	"io"
)

// unscheduledSlice is how much Writer.ReadFrom hands the underlying writer
// at a time while nothing is reserved (the most sendfile moves per call
// anyway): a reservation that starts during a copy applies within a slice.
const unscheduledSlice = 4 << 20

// Reader returns r with every Read charged to f: a Read asks r for at most
// one chunk and waits for the bytes it got before returning them, so the
// bytes reach the consumer (the blob store on PUT) at the scheduled rate.
// With no reservation registered a Read is r.Read plus one atomic load.
func Reader(ctx context.Context, r io.Reader, f Flow) io.Reader {
	return &reader{ctx: ctx, r: r, f: f}
}

type reader struct {
	ctx  context.Context
	r    io.Reader
	f    Flow
	done int64 // bytes charged so far (Spec.Head)
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
		if werr := r.f.d.wait(r.ctx, r.f, r.done, int64(n)); werr != nil {
			return 0, werr
		}
		r.done += int64(n)
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
	ctx  context.Context
	w    io.Writer
	f    Flow
	done int64 // bytes charged so far (Spec.Head)
}

// wait charges the next n bytes of the flow, which is scheduled.
func (w *writer) wait(n int) error {
	if err := w.f.d.wait(w.ctx, w.f, w.done, int64(n)); err != nil {
		return err
	}
	w.done += int64(n)
	return nil
}

func (w *writer) Write(p []byte) (int, error) {
	written := 0
	for len(p) > 0 {
		if !w.f.Scheduled() {
			n, err := w.w.Write(p)
			return written + n, err
		}
		k := min(len(p), w.f.d.Chunk())
		if err := w.wait(k); err != nil {
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

// ReadFrom keeps io.Copy and io.CopyN from a file on the sendfile path: the
// copy is handed to the underlying writer's ReadFrom in slices, each an
// *io.LimitedReader directly over the source — one granted chunk at a time
// while scheduled, unscheduledSlice otherwise. A source of unknown length
// (not an *io.LimitedReader) is copied through Write while scheduled, so
// that no more than what moved is charged.
func (w *writer) ReadFrom(src io.Reader) (int64, error) {
	rf, ok := w.w.(io.ReaderFrom)
	if !ok {
		return io.Copy(writeOnly{w}, src)
	}
	outer, sized := src.(*io.LimitedReader)
	lr := &io.LimitedReader{R: src}
	if sized {
		lr.R = outer.R // one level, as sendfile expects
	}
	var total int64
	for {
		limit := int64(unscheduledSlice)
		scheduled := w.f.Scheduled()
		switch {
		case scheduled && !sized:
			n, err := io.Copy(writeOnly{w}, src)
			return total + n, err
		case scheduled:
			limit = int64(w.f.d.Chunk())
		}
		if sized {
			if limit = min(limit, outer.N); limit <= 0 {
				return total, nil
			}
		}
		if scheduled {
			if err := w.wait(int(limit)); err != nil {
				return total, err
			}
		}
		lr.N = limit
		n, err := rf.ReadFrom(lr)
		total += n
		if sized {
			outer.N -= n
		}
		if err != nil || n < limit {
			return total, err
		}
	}
}

// writeOnly hides ReadFrom so that io.Copy does not loop back into it.
type writeOnly struct{ w io.Writer }

func (w writeOnly) Write(p []byte) (int, error) { return w.w.Write(p) }
