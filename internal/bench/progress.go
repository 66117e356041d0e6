package bench

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress samples the workers' live counters every second: a line
// rewritten in place on a terminal, a plain line every plainEvery
// otherwise. Every sample is kept as the result's timeline.
type progress struct {
	out     io.Writer
	tty     bool
	workers []*Worker
	start   time.Time
	done    chan struct{}
	wg      sync.WaitGroup

	mu    sync.Mutex
	last  Tick // cumulative at the last sample
	ticks []Tick
}

const plainEvery = 5 * time.Second

func newProgress(out io.Writer, tty bool, workers []*Worker, start time.Time) *progress {
	p := &progress{out: out, tty: tty, workers: workers, start: start, done: make(chan struct{})}
	p.wg.Add(1)
	return p
}

func (p *progress) run() {
	defer p.wg.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	var sincePrint time.Duration
	for {
		select {
		case <-p.done:
			return
		case now := <-t.C:
			tick := p.sample(now)
			sincePrint += time.Second
			if p.out == nil || (!p.tty && sincePrint < plainEvery) {
				continue
			}
			sincePrint = 0
			p.print(tick)
		}
	}
}

// sample records the interval since the last sample and returns it.
func (p *progress) sample(now time.Time) Tick {
	var cum Tick
	for _, w := range p.workers {
		cum.Ops += w.live.ops.Load()
		cum.Bytes += w.live.bytes.Load()
		cum.Errors += w.live.errs.Load()
	}
	cum.Second = now.Sub(p.start).Seconds()
	p.mu.Lock()
	defer p.mu.Unlock()
	d := Tick{Second: cum.Second, Ops: cum.Ops - p.last.Ops, Bytes: cum.Bytes - p.last.Bytes, Errors: cum.Errors - p.last.Errors}
	p.last = cum
	p.ticks = append(p.ticks, d)
	return d
}

func (p *progress) print(d Tick) {
	p.mu.Lock()
	prev := 0.0
	if n := len(p.ticks); n > 1 {
		prev = p.ticks[n-2].Second
	}
	total := p.last
	p.mu.Unlock()
	secs := d.Second - prev
	if !p.tty {
		// A plain line covers everything since the run started.
		d, secs = total, total.Second
	}
	if secs <= 0 {
		return
	}
	line := fmt.Sprintf("%6.0fs  %9.1f ops/s  %9.2f MiB/s  %d errors", total.Second,
		float64(d.Ops)/secs, float64(d.Bytes)/secs/(1<<20), total.Errors)
	if p.tty {
		fmt.Fprint(p.out, "\r\x1b[K"+line)
	} else {
		fmt.Fprintln(p.out, line)
	}
}

// finish stops the sampler, records the last partial interval and returns
// the timeline.
func (p *progress) finish() []Tick {
	close(p.done)
	p.wg.Wait()
	p.sample(time.Now())
	if p.out != nil && p.tty {
		fmt.Fprintln(p.out)
	}
	return p.ticks
}
