package server

import (
	"context"
	"errors"
)

// stack undoes a server's start: whatever New opens or starts pushes
// what closes or stops it, and unwind runs those last-in-first-out. A
// start that fails part-way unwinds what it did; Close unwinds all of it,
// the background components first (in the reverse of the order start
// started them), the stores last.
type stack []func() error

// push adds the undoing of what was just opened or started.
func (st *stack) push(undo func() error) { *st = append(*st, undo) }

// run starts f in the background under a context of its own, derived
// from parent, and pushes its stop: cancel that context, wait for f.
func (st *stack) run(parent context.Context, f func(context.Context)) {
	ctx, cancel := context.WithCancel(parent)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	st.push(func() error {
		cancel()
		<-done
		return nil
	})
}

// unwind runs every undo, the last pushed first, and empties the stack:
// a second unwind does nothing.
func (st *stack) unwind() error {
	var errs []error
	for i := len(*st) - 1; i >= 0; i-- {
		errs = append(errs, (*st)[i]())
	}
	*st = nil
	return errors.Join(errs...)
}
