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
	if s.cfg.ReplicateTo == "" {
		return nil
	}
	t := replicate.Target{URL: s.cfg.ReplicateTo, Endpoint: s.cfg.ReplicateEndpoint, Region: s.cfg.ReplicateRegion,
		AccessKey: s.cfg.ReplicateAccessKey, SecretKey: s.cfg.ReplicateSecretKey}
	r, err := replicate.Start(ctx, filepath.Join(s.cfg.DataDir, datadir.DBFile), t, replicate.Options{}, s.log)
	if err != nil {
		return err
	}
	s.stops.push(func() error { return r.Close(context.Background()) })
	return nil
}
