package postgres

import "github.com/jogstore/jog/internal/meta"

// Capabilities internal/metrics finds by type assertion.
var (
	_ meta.PoolReporter = (*Store)(nil)
	_ meta.UsageSummer  = (*Store)(nil)
)

// PoolStats reads pgxpool's statistics.
func (s *Store) PoolStats() meta.PoolStats {
	p := s.pool.Stat()
	return meta.PoolStats{
		Total: p.TotalConns(), Idle: p.IdleConns(), Acquired: p.AcquiredConns(), Max: p.MaxConns(),
		Acquires: uint64(p.AcquireCount()), EmptyAcquires: uint64(p.EmptyAcquireCount()),
		AcquireWait: p.AcquireDuration(),
		Created:     uint64(p.NewConnsCount()),
		Destroyed:   uint64(p.MaxLifetimeDestroyCount() + p.MaxIdleDestroyCount()),
	}
}

// SumsUsageWithoutQuota implements meta.UsageSummer: a bucket without a
// quota has no usage kept (quota.go).
func (*Store) SumsUsageWithoutQuota() {}
