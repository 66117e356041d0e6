package backend

import (
	"context"
	"io"
	"log/slog"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
	"github.com/jogstore/jog/internal/config"
)

// Blobs is the blob store as the server and jog fsck hold it: the
// blob.Store the service writes and reads through, and what the process
// around it needs of the store.
type Blobs interface {
	blob.Store
	io.Closer
	// SyncTime is the time spent so far in fsync of blob data; the server
	// sizes GOMAXPROCS by how it grows (ADR 0008).
	SyncTime() time.Duration
	// Gateway is the ID the store's writes carry (temp files, packs), for
	// logs: random at every open.
	Gateway() string
	// EmptyTrash removes for good what a shared store's deletes moved
	// aside before the given time (disk's trash.go), and returns how many.
	EmptyTrash(ctx context.Context, before time.Time) (int, error)

	// For jog fsck:

	// Path names the file that holds blob id, for reports (a packed
	// blob's pack); "" for an ID the store would never make.
	Path(id string) string
	// Exists reports whether blob id can be opened.
	Exists(ctx context.Context, id string) bool
	// WalkTemp calls fn for every file of a write in progress or left by
	// an interrupted one (datadir.TempDir); Info.ID is its name there.
	WalkTemp(ctx context.Context, fn func(blob.Info) error) error
	// RemoveTemp removes such a file by the name WalkTemp reported.
	RemoveTemp(name string) error
}

var _ Blobs = (*disk.Store)(nil)

// openBlobs opens the data dir's blob store with cfg's --fsync and
// --pack-max: as one of several gateways when shared.
func openBlobs(cfg config.Config, log *slog.Logger, shared bool) (Blobs, error) {
	open := disk.Open
	if shared {
		open = disk.OpenShared
	}
	b, err := open(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	log.Debug("blob store open", "gateway", b.Gateway(), "shared", shared)
	b.NoSync = cfg.Fsync.Off()
	b.PackMax = int64(cfg.PackMax)
	if b.Packing && b.PackMax > 0 {
		log.Debug("packing small blobs", "max", b.PackMax)
	} else if b.PackMax > 0 {
		log.Info("file system cannot punch holes: small blobs are written as files", "dir", cfg.DataDir)
	}
	return b, nil
}
