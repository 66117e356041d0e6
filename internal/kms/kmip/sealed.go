package kmip

import (
	"context"
	"encoding/binary"

	kmipgo "github.com/ovh/kmip-go"
	"github.com/ovh/kmip-go/payloads"

	"github.com/jogstore/jog/internal/kms"
)

// locate finds the Active object named keyID, in one request of two
// Locates: the name among Active objects, and the name alone, to tell a
// key that is not Active (ErrDisabled) from none (ErrNotFound). KMIP
// does not make names unique; of several Active objects of one name the
// first the server lists seals.
func (k *KMS) locate(ctx context.Context, keyID string) (string, error) {
	if !kms.ValidKeyID(keyID) {
		return "", &kms.Error{Kind: kms.KindInvalidKeyID, KeyID: keyID}
	}
	name := kmipgo.Attribute{AttributeName: kmipgo.AttributeNameName, AttributeValue: kmipgo.Name{
		NameValue: keyID, NameType: kmipgo.NameTypeUninterpretedTextString}}
	active := kmipgo.Attribute{AttributeName: kmipgo.AttributeNameState, AttributeValue: kmipgo.StateActive}
	items, err := k.roundTrip(ctx,
		&payloads.LocateRequestPayload{MaximumItems: 1, Attribute: []kmipgo.Attribute{name, active}},
		&payloads.LocateRequestPayload{MaximumItems: 1, Attribute: []kmipgo.Attribute{name}})
	if err != nil {
		return "", unavailable(keyID, err)
	}
	for i := range items {
		if items[i].Err() != nil {
			return "", refused(keyID, &items[i])
		}
	}
	if uids := located(&items[0]); len(uids) > 0 {
		return uids[0], nil
	}
	if len(located(&items[1])) > 0 {
		return "", &kms.Error{Kind: kms.KindDisabled, KeyID: keyID}
	}
	return "", &kms.Error{Kind: kms.KindNotFound, KeyID: keyID}
}

func located(item *kmipgo.ResponseBatchItem) []string {
	if r, ok := item.ResponsePayload.(*payloads.LocateResponsePayload); ok {
		return r.UniqueIdentifier
	}
	return nil
}

// stateOf asks for the State of the object uid.
func stateOf(uid string) *payloads.GetAttributesRequestPayload {
	return &payloads.GetAttributesRequestPayload{UniqueIdentifier: uid, AttributeName: []kmipgo.AttributeName{kmipgo.AttributeNameState}}
}

// state is the State a GetAttributes answered; 0 (no state) when it
// answered none.
func state(item *kmipgo.ResponseBatchItem) kmipgo.State {
	r, ok := item.ResponsePayload.(*payloads.GetAttributesResponsePayload)
	if !ok {
		return 0
	}
	for _, a := range r.Attribute {
		if s, ok := a.AttributeValue.(kmipgo.State); ok && a.AttributeName == kmipgo.AttributeNameState {
			return s
		}
	}
	return 0
}

// A sealed data key: a format byte, the Unique Identifier of the KMIP
// object that sealed it (a length byte and its bytes), the GCM nonce,
// the tag, then the encrypted data key. The format byte is not the
// built-in KMS's (kms.ParseSealed refuses it), so that the two never
// mistake each other's sealed keys.
const (
	sealedFormat = 0x81
	nonceSize    = 12
	tagSize      = 16
)

type sealedKey struct {
	uid                    string
	nonce, tag, ciphertext []byte
}

func seal(uid string, nonce, tag, ciphertext []byte) []byte {
	b := make([]byte, 0, 2+len(uid)+nonceSize+tagSize+len(ciphertext))
	b = append(b, sealedFormat, byte(len(uid)))
	b = append(b, uid...)
	b = append(b, nonce...)
	b = append(b, tag...)
	return append(b, ciphertext...)
}

// IsSealed reports whether sealed is of this package's form (a routing
// KMS sends it here to open).
func IsSealed(sealed []byte) bool {
	_, ok := parseSealed(sealed)
	return ok
}

func parseSealed(b []byte) (sealedKey, bool) {
	if len(b) < 2 || b[0] != sealedFormat {
		return sealedKey{}, false
	}
	n := int(b[1])
	if n == 0 || len(b) != 2+n+nonceSize+tagSize+kms.DataKeySize {
		return sealedKey{}, false
	}
	b = b[2:]
	return sealedKey{
		uid:        string(b[:n]),
		nonce:      b[n : n+nonceSize],
		tag:        b[n+nonceSize : n+nonceSize+tagSize],
		ciphertext: b[n+nonceSize+tagSize:],
	}, true
}

// ad is the associated data of a data key sealed by the object uid named
// keyID for ec: a purpose, the name and the object, and the context, so
// that a sealed key opens only for the key ID and context it was sealed
// for.
func ad(keyID, uid string, ec kms.Context) []byte {
	b := []byte("jog-kmip-data-key\x00")
	b = appendString(b, keyID)
	b = appendString(b, uid)
	return kms.AppendContext(b, ec)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
