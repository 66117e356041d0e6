package bench

import (
	"context"
	"net/http/httptest"
	"strconv"
	"testing"
)

// BenchmarkClient measures the client's cost per request against the
// in-process discarding endpoint (which shares the CPU): the per-request
// allocations reported here exclude any payload, in every signing mode
// (PUT/<mode>/<size>).
func BenchmarkClient(b *testing.B) {
	srv := httptest.NewServer(NewDiscardHandler())
	defer srv.Close()
	cfg := smokeConfig(srv.URL, "k", "s")
	ctx := context.Background()
	for _, size := range []int64{1 << 10, 1 << 20} {
		for _, mode := range SigningModes {
			benchmarkPut(ctx, b, cfg, mode, size)
		}
		c, err := NewClient(cfg, NewPayload(1), 64)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.PutObject(ctx, "bucket", "key", size); err != nil {
			b.Fatal(err)
		}
		b.Run("GET/"+FormatSize(size), func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, _, err := c.GetObject(ctx, "bucket", "key", false); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
		c.Close()
	}
}

func benchmarkPut(ctx context.Context, b *testing.B, cfg Config, mode string, size int64) {
	cfg.Signing = mode
	c, err := NewClient(cfg, NewPayload(1), 64)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.Run("PUT/"+mode+"/"+FormatSize(size), func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		b.SetParallelism(8)
		b.RunParallel(func(pb *testing.PB) {
			for i := 0; pb.Next(); i++ {
				if err := c.PutObject(ctx, "bucket", "k"+strconv.Itoa(i%64), size); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
