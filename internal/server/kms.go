package server

import (
	"context"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/kms/kmip"
)

// withKMIP is the KMS of the server's encryption at rest (kmip.Route: the
// built-in one alone, or with --kms-kmip-endpoint routed with the KMIP
// server). The KMIP connections close with the server.
func (s *Server) withKMIP(ctx context.Context, builtin *kms.Builtin) (kms.KMS, error) {
	k, closeKMS, err := kmip.Route(ctx, builtin, s.cfg.KMIP)
	if err != nil {
		return nil, err
	}
	s.stops.push(closeKMS)
	if s.cfg.KMIP.Endpoint != "" {
		s.log.Info("SSE-KMS keys are in a KMIP server", "endpoint", s.cfg.KMIP.Endpoint)
	}
	return k, nil
}
