package postgres

import "time"

// Stats is the connection pool's state, for metrics (internal/metrics
// reads it at scrape time).
type Stats struct {
	Total, Idle, Acquired, Max int32 // connections now, and the pool's bound
	// Acquires counts connections taken from the pool, EmptyAcquires
	// those that had to wait for one; AcquireWait is the time spent
	// waiting in all of them.
	Acquires, EmptyAcquires uint64
	AcquireWait             time.Duration
	// Created and Destroyed count connections opened and closed.
	Created, Destroyed uint64
}

// Stats reads pgxpool's statistics.
func (s *Store) Stats() Stats {
	p := s.pool.Stat()
	return Stats{
		Total: p.TotalConns(), Idle: p.IdleConns(), Acquired: p.AcquiredConns(), Max: p.MaxConns(),
		Acquires: uint64(p.AcquireCount()), EmptyAcquires: uint64(p.EmptyAcquireCount()),
		AcquireWait: p.AcquireDuration(),
		Created:     uint64(p.NewConnsCount()),
		Destroyed:   uint64(p.MaxLifetimeDestroyCount() + p.MaxIdleDestroyCount()),
	}
}
