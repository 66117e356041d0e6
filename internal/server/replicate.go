package server

import (
	"context"
	"path/filepath"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/replicate"
)

// replicate starts streaming the SQLite metadata to --replicate-to
// (internal/replicate) when it is set. The store was opened with its
// automatic checkpoints off (config.LeaveCheckpoints): Litestream runs them.
// start starts it before every component that writes, so that Close stops
// it after the last write and before the store closes, and the replica
// ends with every acknowledged write.
func (s *Server) replicate(ctx context.Context) error {
	if s.cfg.Replicate.URL == "" {
		return nil
	}
	r, err := replicate.Start(ctx, filepath.Join(s.cfg.DataDir, datadir.DBFile), s.cfg.Replicate, replicate.Options{}, s.log)
	if err != nil {
		return err
	}
	s.stops.push(func() error { return r.Close(context.Background()) })
	return nil
}
