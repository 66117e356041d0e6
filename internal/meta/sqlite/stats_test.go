package sqlite

import (
	"fmt"
	"sync"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

func TestStats(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	before := s.CommitStats()
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			if err := s.CreateBucket(t.Context(), meta.Bucket{Name: fmt.Sprintf("b%02d", i), Region: "us-east-1"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st := s.CommitStats()
	// 20 writes in some number of batches: every write counted once.
	if got := st.Batches.Sum - before.Batches.Sum; got != 20 {
		t.Errorf("batches carried %d writes, want 20", got)
	}
	batches := st.Batches.Count() - before.Batches.Count()
	if batches < 1 || batches > 20 || st.Commits.Count()-before.Commits.Count() != batches {
		t.Errorf("%d batches, %d commits timed", batches, st.Commits.Count()-before.Commits.Count())
	}
	if st.WALBytes <= 0 {
		t.Errorf("WAL size %d, want > 0 after writes", st.WALBytes)
	}
}
