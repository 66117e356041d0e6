package kmip

import (
	"context"
	"fmt"

	"github.com/jogstore/jog/internal/kms"
)

// Route is the KMS of a gateway's encryption at rest from its settings:
// builtin alone when cfg names no Endpoint, else kms.Routed with the KMIP
// server at cfg.Endpoint for SSE-KMS key IDs and builtin for SSE-S3
// (docs/adr/0029-kmip.md). jog server and jog fsck --deep open it alike.
// closeKMS ends the KMIP connections (nothing to end without them).
func Route(ctx context.Context, builtin *kms.Builtin, cfg Config) (k kms.KMS, closeKMS func() error, err error) {
	if cfg.Endpoint == "" {
		return builtin, func() error { return nil }, nil
	}
	ext, err := Open(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--kms-kmip-endpoint: %w", err)
	}
	return kms.Routed{Builtin: builtin, External: ext}, ext.Close, nil
}
