package bench

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jogstore/jog/internal/s3client"
)

// Clock is the time source of a Schedule; tests use a fake one.
type Clock interface {
	Now() time.Time
	// Sleep waits d or until ctx is done.
	Sleep(ctx context.Context, d time.Duration) error
}

type realClock struct{}

func (realClock) Now() time.Time { return time.Now() }

func (realClock) Sleep(ctx context.Context, d time.Duration) error { return s3client.Sleep(ctx, d) }

// Schedule paces requests at a target rate, open-loop: request i has a fixed
// start time on the schedule, whatever happened to the requests before it.
// A worker that asks for its next slot after that time starts late: the
// request has queued behind the server. The rate is constant, or ramps
// linearly from From to To over Span and stays at To after it, so a ramp
// finds the rate at which the server stops keeping up.
//
// A token bucket (golang.org/x/time/rate) would smooth the rate but forget
// how far behind the schedule requests are; that lag is what we report.
type Schedule struct {
	clock     Clock
	start     time.Time
	from, to  float64 // req/s
	span      time.Duration
	threshold time.Duration

	next atomic.Int64 // next slot to hand out
	late atomic.Int64 // requests that started more than threshold late

	mu    sync.Mutex
	onset *QueueOnset
}

// QueueOnset is the first request that started more than the threshold
// behind its scheduled time.
type QueueOnset struct {
	Elapsed    float64 `json:"elapsed_s"`   // its scheduled time, from the start of the run
	TargetRate float64 `json:"target_rate"` // the target rate then, req/s
	Lag        float64 `json:"lag_ms"`      // how late it started
}

// NewSchedule starts a schedule at clock.Now(). to ≤ from or span 0 means a
// constant rate of from.
func NewSchedule(clock Clock, from, to float64, span, threshold time.Duration) *Schedule {
	if to <= from || span <= 0 {
		to, span = from, 0
	}
	return &Schedule{clock: clock, start: clock.Now(), from: from, to: to, span: span, threshold: threshold}
}

// At returns the scheduled start of request i (0-based), from the start.
func (s *Schedule) At(i int64) time.Duration {
	n := float64(i)
	if s.span == 0 {
		return secs(n / s.from)
	}
	T := s.span.Seconds()
	k := (s.to - s.from) / T // acceleration, req/s²
	if inRamp := s.from*T + k*T*T/2; n > inRamp {
		return secs(T + (n-inRamp)/s.to)
	}
	// n = from·t + k·t²/2, solved for t.
	return secs((-s.from + math.Sqrt(s.from*s.from+2*k*n)) / k)
}

// RateAt is the target rate at offset d from the start.
func (s *Schedule) RateAt(d time.Duration) float64 {
	if s.span == 0 || d >= s.span {
		return s.to
	}
	return s.from + (s.to-s.from)*d.Seconds()/s.span.Seconds()
}

func secs(f float64) time.Duration { return time.Duration(f * float64(time.Second)) }

// Wait takes the next slot, sleeps until its time, and returns how late
// past its scheduled time the request starts (0 when on time).
func (s *Schedule) Wait(ctx context.Context) (time.Duration, error) {
	i := s.next.Add(1) - 1
	at := s.At(i)
	lag := s.clock.Now().Sub(s.start) - at
	if lag < 0 {
		return 0, s.clock.Sleep(ctx, -lag)
	}
	if lag > s.threshold {
		s.late.Add(1)
		s.mu.Lock()
		if s.onset == nil {
			s.onset = &QueueOnset{Elapsed: at.Seconds(), TargetRate: s.RateAt(at), Lag: ms(lag)}
		}
		s.mu.Unlock()
	}
	return lag, ctx.Err()
}

// Onset returns the first queued request, or nil if none queued.
func (s *Schedule) Onset() *QueueOnset {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onset
}

// Late is the number of requests that started more than the threshold late.
func (s *Schedule) Late() int64 { return s.late.Load() }
