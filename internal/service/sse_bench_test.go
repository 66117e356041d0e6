package service

import (
	"bytes"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/sqlite"
	"github.com/jogstore/jog/internal/sse"
)

// BenchmarkPutSSE measures PutObject of 1 MiB and 16 MiB bodies stored as
// sent and sealed under SSE-S3, in process over the real stores with syncs
// off: what sealing adds to a PUT's CPU beyond the network and the disk
// (docs/BENCHMARKS.md, "Encryption at rest against unencrypted").
func BenchmarkPutSSE(b *testing.B) {
	dir := b.TempDir()
	m, err := sqlite.OpenWith(b.Context(), filepath.Join(dir, "meta.db"), sqlite.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	blobs, err := disk.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	blobs.NoSync = true
	// As internal/storage sets it: a sealed 1 MiB object is packed as its
	// plaintext twin is.
	if blobs.PackMax, err = sse.StoredSize(disk.DefaultPackMax); err != nil {
		b.Fatal(err)
	}
	k, err := kms.OpenDataDir(b.Context(), dir, "")
	if err != nil {
		b.Fatal(err)
	}
	s := NewWith(m, blobs, slog.New(slog.DiscardHandler), Options{Keys: sse.NewKeys(k)})
	if err := m.CreateBucket(b.Context(), meta.Bucket{Name: "b", Region: "r", CreatedAt: meta.Now()}); err != nil {
		b.Fatal(err)
	}
	for _, size := range []int{1 << 20, 16 << 20} {
		data := bytes.Repeat([]byte("0123456789abcdef"), size/16)
		for _, mode := range []string{"", sse.ModeS3} {
			name := "plain"
			if mode != "" {
				name = "SSE-S3"
			}
			b.Run(fmt.Sprintf("%dMiB/%s", size>>20, name), func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.PutObject(b.Context(), PutInput{Bucket: "b", Key: "k", Body: bytes.NewReader(data),
						Size: int64(size), SSE: sse.Request{Mode: mode}}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
