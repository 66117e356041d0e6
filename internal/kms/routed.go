package kms

import "context"

// Routed is the KMS of a gateway whose SSE-KMS keys live in an external
// KMS (internal/kms/kmip): SSE-S3's key (SSES3KeyID) stays in the
// built-in one, every other key ID goes to External. A sealed data key
// opens where its form says it was sealed (the built-in KMS's form,
// ParseSealed, or else External's), so that objects sealed under the
// built-in named keys before External was configured still open.
type Routed struct {
	Builtin  *Builtin
	External KMS
}

var _ KMS = Routed{}

func (r Routed) by(keyID string) KMS {
	if keyID == SSES3KeyID {
		return r.Builtin
	}
	return r.External
}

// GenerateDataKey seals a fresh data key in the KMS keyID belongs to.
func (r Routed) GenerateDataKey(ctx context.Context, keyID string, ec Context) (DataKey, error) {
	return r.by(keyID).GenerateDataKey(ctx, keyID, ec)
}

// Decrypt opens sealed in the KMS that sealed it.
func (r Routed) Decrypt(ctx context.Context, keyID string, sealed []byte, ec Context) ([]byte, error) {
	if _, err := ParseSealed(sealed); err == nil {
		return r.Builtin.Decrypt(ctx, keyID, sealed, ec)
	}
	return r.External.Decrypt(ctx, keyID, sealed, ec)
}

// Status says whether keyID can be used, in the KMS it belongs to.
func (r Routed) Status(ctx context.Context, keyID string) error {
	return r.by(keyID).Status(ctx, keyID)
}
