package storage

import (
	"context"
	"crypto/rand"
	"log/slog"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/sse"
)

// openBlobs opens the data dir's blob store with cfg's --fsync and
// --pack-max: as one of several gateways when shared. It returns the store
// and how to close it.
func openBlobs(cfg config.Config, log *slog.Logger, shared bool) (blob.Store, func() error, error) {
	open := disk.Open
	if shared {
		open = disk.OpenShared
	}
	b, err := open(cfg.DataDir)
	if err != nil {
		return nil, nil, err
	}
	log.Debug("blob store open", "gateway", b.Gateway(), "shared", shared)
	b.NoSync = cfg.Fsync.Off()
	// --pack-max counts an object's bytes: an encrypted one's blob is
	// its sealed form, a few bytes longer (sse.StoredSize), and is packed
	// alike (a 1 MiB object sealed is 1 MiB + 32 bytes).
	b.PackMax = int64(cfg.PackMax)
	if sealed, err := sse.StoredSize(b.PackMax); err == nil && b.PackMax > 0 {
		b.PackMax = sealed
	}
	if b.Packing && b.PackMax > 0 {
		log.Debug("packing small blobs", "max", b.PackMax)
	} else if b.PackMax > 0 {
		log.Info("file system cannot punch holes: small blobs are written as files", "dir", cfg.DataDir)
	}
	return b, b.Close, nil
}

// gatewayOf is the gateway ID of blobs (blob.GatewayNamer), or, for a
// store that has none, a random ID of this open's own.
func gatewayOf(blobs blob.Store) string {
	if g, ok := blobs.(blob.GatewayNamer); ok {
		return g.Gateway()
	}
	return rand.Text()
}

// EmptyTrash removes for good what the blob store's deletes set aside
// before the given time (blob.TrashEmptier) and returns how many blobs
// went. A store without a trash deletes at once: it has nothing to empty.
func (s *Stores) EmptyTrash(ctx context.Context, before time.Time) (int, error) {
	if t, ok := s.Blobs.(blob.TrashEmptier); ok {
		return t.EmptyTrash(ctx, before)
	}
	return 0, nil
}
