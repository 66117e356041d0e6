package bench

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressTimelineAndLines(t *testing.T) {
	start := time.Unix(100, 0)
	ws := []*Worker{{}, {}}
	var out bytes.Buffer
	p := newProgress(&out, false, ws, start)
	ws[0].live.ops.Add(30)
	ws[1].live.ops.Add(70)
	ws[1].live.bytes.Add(100 << 20)
	ws[0].live.errs.Add(2)
	d := p.sample(start.Add(2 * time.Second))
	if d.Ops != 100 || d.Bytes != 100<<20 || d.Errors != 2 || d.Second != 2 {
		t.Fatalf("first tick %+v", d)
	}
	ws[0].live.ops.Add(50)
	d = p.sample(start.Add(3 * time.Second))
	if d.Ops != 50 || d.Bytes != 0 || d.Errors != 0 {
		t.Fatalf("second tick is not a delta: %+v", d)
	}
	p.print(d)
	// A plain line reports averages since the start: 150 ops in 3 s.
	if got := out.String(); !strings.Contains(got, "50.0 ops/s") || !strings.Contains(got, "33.33 MiB/s") || !strings.Contains(got, "2 errors") {
		t.Errorf("progress line %q", got)
	}
	out.Reset()
	p.tty = true
	p.print(d)
	if got := out.String(); !strings.HasPrefix(got, "\r\x1b[K") || !strings.Contains(got, "50.0 ops/s") {
		t.Errorf("terminal line %q", got)
	}
	// finish stops the sampler and adds the last partial interval.
	q := newProgress(nil, false, ws, start)
	go q.run()
	if ticks := q.finish(); len(ticks) != 1 || ticks[0].Ops != 150 {
		t.Errorf("finish: %+v", ticks)
	}
}
