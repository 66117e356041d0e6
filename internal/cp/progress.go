package cp

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/units"
)

// Progress draws one line on a terminal, rewritten in place: bytes done of
// the total, a bar, the rate since the start and the time left at that
// rate. A nil *Progress counts nothing and draws nothing.
type Progress struct {
	out   io.Writer
	now   func() time.Time
	start time.Time
	total atomic.Int64
	done  atomic.Int64
	// skipped are bytes that needed no transfer (parts a resumed upload
	// kept): counted as done, left out of the rate.
	skipped atomic.Int64
	stop    chan struct{}
	wg      sync.WaitGroup
}

// NewProgress starts drawing to out every interval until Finish.
func NewProgress(out io.Writer, interval time.Duration) *Progress {
	p := &Progress{out: out, now: time.Now, stop: make(chan struct{})}
	p.start = p.now()
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				fmt.Fprint(p.out, "\r\x1b[K"+p.line())
			}
		}
	}()
	return p
}

// AddTotal grows the number of bytes to transfer.
func (p *Progress) AddTotal(n int64) {
	if p != nil {
		p.total.Add(n)
	}
}

func (p *Progress) add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

func (p *Progress) skip(n int64) {
	if p != nil {
		p.done.Add(n)
		p.skipped.Add(n)
	}
}

// Finish draws the last line and ends it.
func (p *Progress) Finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	fmt.Fprintln(p.out, "\r\x1b[K"+p.line())
}

const barWidth = 24

// line renders the progress as of now.
func (p *Progress) line() string {
	done, total := p.done.Load(), p.total.Load()
	secs := p.now().Sub(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(done-p.skipped.Load()) / secs
	}
	frac := 1.0
	if total > 0 {
		frac = min(float64(done)/float64(total), 1)
	}
	fill := int(frac * barWidth)
	eta := "--"
	if rate > 0 {
		eta = time.Duration(float64(total-done) / rate * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%s / %s  [%s%s] %3.0f%%  %s/s  ETA %s", units.Human(float64(done)), units.Human(float64(total)),
		strings.Repeat("=", fill), strings.Repeat(" ", barWidth-fill), frac*100, units.Human(rate), eta)
}
