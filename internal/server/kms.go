package server

import (
	"context"
	"fmt"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/kms/kmip"
)

// withKMIP is the KMS of the server's encryption at rest: the built-in
// one alone, or with --kms-kmip-endpoint the KMIP server for SSE-KMS key
// IDs and the built-in one for SSE-S3 (kms.Routed, docs/adr/0029-kmip.md).
// The KMIP connections close with the server.
func (s *Server) withKMIP(ctx context.Context, builtin *kms.Builtin) (kms.KMS, error) {
	if s.cfg.KMIP.Endpoint == "" {
		return builtin, nil
	}
	k, err := kmip.Open(ctx, s.cfg.KMIP)
	if err != nil {
		return nil, fmt.Errorf("--kms-kmip-endpoint: %w", err)
	}
	s.stops.push(k.Close)
	s.log.Info("SSE-KMS keys are in a KMIP server", "endpoint", s.cfg.KMIP.Endpoint)
	return kms.Routed{Builtin: builtin, External: k}, nil
}
