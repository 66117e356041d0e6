package sched

import "time"

// Clock is the time source of a Direction. Production code uses the wall
// clock (SystemClock); tests inject a fake one so that what the scheduler
// grants depends on virtual time only.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has elapsed, as
	// time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is the handle AfterFunc returns.
type Timer interface {
	// Stop prevents the call if it has not happened yet; it reports
	// whether it did.
	Stop() bool
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc wraps time.AfterFunc.
func (SystemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
