package worker

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// BenchmarkPassScan measures a pass's cost per object or version scanned
// when nothing is due (the usual pass): ns/scanned is the figure
// BENCHMARKS-HISTORY quotes. The bucket holds 2,000 keys of two versions
// each (one noncurrent).
func BenchmarkPassScan(b *testing.B) {
	for _, bc := range []struct{ name, rule string }{
		{"objects", `<Expiration><Days>1000</Days></Expiration>`},
		{"versions", `<NoncurrentVersionExpiration><NoncurrentDays>1000</NoncurrentDays></NoncurrentVersionExpiration>`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			svc, _ := openService(b, b.TempDir())
			setup(b, svc, `<Rule><ID>r</ID><Filter/><Status>Enabled</Status>`+bc.rule+`</Rule>`)
			ctx := context.Background()
			if err := svc.PutBucketVersioning(ctx, "bkt", meta.VersioningEnabled); err != nil {
				b.Fatal(err)
			}
			for i := range 2000 {
				for range 2 {
					k := fmt.Sprintf("k/%05d", i)
					if _, err := svc.PutObject(ctx, service.PutInput{Bucket: "bkt", Key: k, Body: strings.NewReader(k), Size: int64(len(k))}); err != nil {
						b.Fatal(err)
					}
				}
			}
			w := New(svc, quiet, Options{})
			scanned := 0
			b.ResetTimer()
			for b.Loop() {
				rep, err := w.Pass(ctx)
				if err != nil || rep.Noncurrent+rep.Expired != 0 {
					b.Fatalf("%+v %v", rep, err)
				}
				scanned += rep.Scanned
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(scanned), "ns/scanned")
		})
	}
}
