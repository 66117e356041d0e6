package storage

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jogstore/jog/internal/config"
	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/meta/postgres"
)

// checkPostgres requires the database cfg.Meta names to hold a JOG schema
// (the data dir holds blobs only), so that checking a wrong database does
// not create one there.
func checkPostgres(ctx context.Context, cfg config.Config) error {
	ok, err := postgres.HasSchema(ctx, cfg.Meta)
	if err != nil {
		return redact(err, cfg.Meta)
	}
	if !ok {
		return fmt.Errorf("%s: %w (no JOG schema in the database)", config.RedactMeta(cfg.Meta), datadir.ErrNotDataDir)
	}
	return nil
}

// openPostgres opens the database cfg.Meta names, migrating its schema.
// --fsync never does not touch it: PostgreSQL's durability is its own
// settings' (fsync, synchronous_commit).
func openPostgres(ctx context.Context, cfg config.Config, log *slog.Logger) (meta.Store, func(context.Context) error, error) {
	m, err := postgres.Open(ctx, cfg.Meta, postgres.Options{Log: log})
	if err != nil {
		return nil, nil, redact(err, cfg.Meta)
	}
	log.Info("metadata in PostgreSQL", "meta", config.RedactMeta(cfg.Meta))
	if cfg.Fsync.Off() {
		log.Info("--fsync never leaves PostgreSQL's durability to its own settings")
	}
	return m, m.Ping, nil
}

// redact is err with every password of meta removed from its message
// (the driver's own redaction does not cover a password in a URL's query).
func redact(err error, meta string) error {
	return &redactedError{msg: config.RedactIn(err.Error(), meta), err: err}
}

// redactedError shows a redacted message and unwraps to the original, so
// that errors.Is still sees through it.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }
