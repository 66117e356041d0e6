package sqlite

import (
	"encoding/binary"
	"io"
	"os"

	"github.com/jogstore/jog/internal/hist"
)

// Stats is what the store has done since it opened and the state of its
// write-ahead log, for metrics (internal/metrics reads it at scrape time).
type Stats struct {
	// Batches is the number of writes each group commit carried; Commits
	// the time each took, from BEGIN to COMMIT, in nanoseconds (a
	// checkpoint the commit triggered included: ADR 0015).
	Batches, Commits hist.Snapshot
	// WALBytes is the size of the -wal file (0 when there is none).
	WALBytes int64
	// WALResets is the checkpoint sequence number of the WAL's header:
	// how many times the WAL has restarted from its beginning after a
	// complete checkpoint since the file was created (0 when none).
	WALResets uint32
}

// Stats reads the committer's histograms, the WAL's size and its header.
func (s *Store) Stats() Stats {
	st := Stats{Batches: s.gc.batches.Snapshot(), Commits: s.gc.commits.Snapshot()}
	f, err := os.Open(s.path + "-wal")
	if err != nil {
		return st
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil {
		st.WALBytes = fi.Size()
	}
	// The WAL header (sqlite.org/fileformat2.html#walformat): magic,
	// version, page size, then the checkpoint sequence number, each a
	// 32-bit big-endian integer.
	var hdr [16]byte
	if _, err := io.ReadFull(f, hdr[:]); err == nil {
		st.WALResets = binary.BigEndian.Uint32(hdr[12:])
	}
	return st
}
