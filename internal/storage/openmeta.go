package storage

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/meta"
)

// OpenMeta opens only the metadata store cfg names, for a tool that moves
// metadata and leaves the blobs alone (jog migrate). It takes no lock: the
// caller holds the data dir's. With existing it opens only a store that is
// there (as Options.Existing), else it creates one as a server would. log
// may be nil.
func OpenMeta(ctx context.Context, cfg config.Config, log *slog.Logger, existing bool) (meta.Store, error) {
	mb, ok := metaBackends[config.MetaBackend(cfg.Meta)]
	if !ok {
		return nil, fmt.Errorf("%q: unknown metadata backend", config.RedactMeta(cfg.Meta))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if existing {
		if err := mb.check(ctx, cfg); err != nil {
			return nil, err
		}
	}
	m, _, err := mb.open(ctx, cfg, log)
	return m, err
}
