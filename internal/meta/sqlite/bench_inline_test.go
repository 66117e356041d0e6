package sqlite

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/jogstore/jog/internal/meta"
)

// BenchmarkPutObjectInline16 measures what warp's PUT 1 KiB asks of the
// metadata store: 16 writers putting new random keys with 1 KiB of inline
// data at once, synchronous=FULL, so the group commit batches them. Besides
// wall time per PUT it reports the process's CPU per PUT (cpu-µs/op), the
// figure to compare between builds on a shared machine.
func BenchmarkPutObjectInline16(b *testing.B) {
	s, _ := openTemp(b)
	defer s.Close()
	ctx := context.Background()
	if err := s.CreateBucket(ctx, meta.Bucket{Name: "b", CreatedAt: meta.Now()}); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 1024)
	b.SetParallelism(8) // × GOMAXPROCS 2: warp's 16
	cpu0 := cpuTime(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		prefix := fmt.Sprintf("p%08x", rand.Uint32())
		for pb.Next() {
			o := meta.Object{Bucket: "b", Key: fmt.Sprintf("%s/%016x.rnd", prefix, rand.Uint64()), Size: int64(len(data)),
				ETag: "d41d8cd98f00b204e9800998ecf8427e", LastModified: meta.Now(), Inline: data,
				Headers: meta.ContentHeaders{ContentType: "application/octet-stream"}}
			if _, err := s.PutObject(ctx, o, meta.Condition{}); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(cpuTime(b)-cpu0)/1e3/float64(b.N), "cpu-µs/op")
	if bs := s.CommitStats().Batches; bs.Count() > 0 {
		b.ReportMetric(float64(bs.Sum)/float64(bs.Count()), "writes/commit")
	}
}

// cpuTime is the process's user and system CPU time so far, in ns.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
