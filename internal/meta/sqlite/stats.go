package sqlite

import (
	"encoding/binary"
	"io"
	"os"

	"github.com/jogstore/jog/internal/meta"
)

var _ meta.CommitReporter = (*Store)(nil) // internal/metrics finds it by type assertion

// CommitStats reads the committer's histograms, the WAL's size and its
// header.
func (s *Store) CommitStats() meta.CommitStats {
	st := meta.CommitStats{Batches: s.gc.batches.Snapshot(), Commits: s.gc.commits.Snapshot()}
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
