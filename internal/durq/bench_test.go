package durq

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkEnqueue: one record per Enqueue with fsync, from GOMAXPROCS
// writers and from 64×GOMAXPROCS at once (group commit shares the
// fsyncs); nothing is delivered meanwhile (the target refuses), so this is
// the write path only.
func BenchmarkEnqueue(b *testing.B) {
	for _, p := range []int{1, 64} {
		b.Run(fmt.Sprintf("parallelism=%d", p), func(b *testing.B) {
			a := newRecorder()
			a.setFailing(true)
			q, err := Open(b.TempDir(), "g", Options{Targets: map[string]Sender{arnA: a}, MaxBytes: 1 << 40})
			if err != nil {
				b.Fatal(err)
			}
			defer q.Close()
			ds := []Record{rec(arnA, "bucket/some/key/of/a/usual/length.jpg")}
			b.SetParallelism(p)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := q.Enqueue(context.Background(), ds); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.StopTimer()
			q.mu.Lock()
			b.ReportMetric(float64(b.N)/float64(q.syncs), "enqueues/fsync")
			q.mu.Unlock()
		})
	}
}
