// Package sse is encryption at rest as the service uses it: what a write
// asks for (Request), each object's data key, sealed by a KMS (SSE-S3,
// SSE-KMS) or by the customer's key (SSE-C) and kept in the object's
// metadata (meta.Encryption), the key of each multipart part derived from
// its upload's, and the sealing and opening of bytes in internal/sse/format
// (docs/adr/0027, 0028).
//
// The service seals a body after it has checked its length, Content-MD5
// and checksums (they are the plaintext's), before it reaches the blob
// store, a pack record or an inline row: every place bytes rest sees only
// ciphertext.
package sse

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"

	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/sse/format"
)

// The modes, as meta.Encryption.Mode stores them. S3 and KMS are also the
// values of x-amz-server-side-encryption.
const (
	ModeS3  = "AES256"
	ModeKMS = "aws:kms"
	ModeC   = "SSE-C"
)

// Request is the encryption a write asks for: from its headers, else from
// its bucket's default encryption, else none (Mode "").
type Request struct {
	Mode string
	// KeyID names the SSE-KMS key ("" for the default key, kms.SSES3KeyID,
	// which stands for S3's aws/s3 key); an ARN's key/<ID> is stripped
	// before it gets here.
	KeyID string
	// Context is the client's SSE-KMS encryption context (may be nil).
	Context kms.Context
	// BucketKey is recorded and echoed; every object has its own data key
	// either way.
	BucketKey bool
	// CustomerKey is the SSE-C key (Mode ModeC).
	CustomerKey []byte
}

// Keys makes and opens data keys. A nil *Keys (no KMS configured) serves
// SSE-C alone and refuses SSE-S3 and SSE-KMS with kms.ErrUnavailable.
type Keys struct {
	kms kms.KMS
}

// NewKeys returns Keys over k (nil: SSE-C only).
func NewKeys(k kms.KMS) *Keys { return &Keys{kms: k} }

func (k *Keys) kmsOrErr() (kms.KMS, error) {
	if k == nil || k.kms == nil {
		return nil, kms.ErrUnavailable
	}
	return k.kms, nil
}

// NewKey returns a fresh data key for an object (or multipart upload) at
// bucket/key under req, and the record to store beside it. Mode "" returns
// the zero record and a nil key.
func (k *Keys) NewKey(ctx context.Context, req Request, bucket, key string) (meta.Encryption, []byte, error) {
	e := meta.Encryption{Mode: req.Mode, BucketKey: req.BucketKey}
	switch req.Mode {
	case "":
		return meta.Encryption{}, nil, nil
	case ModeC:
		if len(req.CustomerKey) != kms.DataKeySize {
			return meta.Encryption{}, nil, kms.ErrSSECInvalidKey
		}
		dk := make([]byte, kms.DataKeySize)
		rand.Read(dk)
		e.KeyCheck = kms.NewKeyCheck(req.CustomerKey)
		e.SealedKey = sealCustomer(req.CustomerKey, dk, bucket, key)
		return e, dk, nil
	case ModeS3, ModeKMS:
		m, err := k.kmsOrErr()
		if err != nil {
			return meta.Encryption{}, nil, err
		}
		e.KeyID = req.KeyID
		if req.Mode == ModeS3 || e.KeyID == "" {
			e.KeyID = kms.SSES3KeyID
		}
		if req.Mode == ModeKMS && len(req.Context) > 0 {
			b, err := json.Marshal(req.Context)
			if err != nil {
				return meta.Encryption{}, nil, err
			}
			e.Context = string(b)
		}
		dk, err := m.GenerateDataKey(ctx, e.KeyID, kms.ObjectContext(bucket, key, req.Context))
		if err != nil {
			return meta.Encryption{}, nil, err
		}
		e.SealedKey = dk.Sealed
		return e, dk.Plaintext, nil
	}
	return meta.Encryption{}, nil, fmt.Errorf("sse: unknown mode %q", req.Mode)
}

// CheckCustomerKey says whether a request that sent customerKey (nil:
// none) may read an object sealed as e: kms.ErrSSECRequired,
// ErrSSECNotApplicable or ErrSSECWrongKey, or nil. HEAD calls it too.
func CheckCustomerKey(e meta.Encryption, customerKey []byte) error {
	switch {
	case e.Mode != ModeC && customerKey != nil:
		return kms.ErrSSECNotApplicable
	case e.Mode != ModeC:
		return nil
	case customerKey == nil:
		return kms.ErrSSECRequired
	}
	return kms.KeyCheck(e.KeyCheck).Verify(customerKey)
}

// Open returns the data key of an object (or upload) at bucket/key sealed
// as e (nil for an unencrypted one), checking customerKey first
// (CheckCustomerKey).
func (k *Keys) Open(ctx context.Context, e meta.Encryption, bucket, key string, customerKey []byte) ([]byte, error) {
	if err := CheckCustomerKey(e, customerKey); err != nil {
		return nil, err
	}
	switch e.Mode {
	case "":
		return nil, nil
	case ModeC:
		return openCustomer(customerKey, e.SealedKey, bucket, key)
	case ModeS3, ModeKMS:
		m, err := k.kmsOrErr()
		if err != nil {
			return nil, err
		}
		var client kms.Context
		if e.Context != "" {
			if err := json.Unmarshal([]byte(e.Context), &client); err != nil {
				return nil, fmt.Errorf("sse: stored encryption context: %w", err)
			}
		}
		return m.Decrypt(ctx, e.KeyID, e.SealedKey, kms.ObjectContext(bucket, key, client))
	}
	return nil, fmt.Errorf("sse: unknown stored mode %q", e.Mode)
}

// customerAD binds a data key sealed by a customer key to its object.
func customerAD(bucket, key string) []byte {
	return []byte("jog-sse-c-data-key\x00arn:aws:s3:::" + bucket + "/" + key)
}

func sealCustomer(customerKey, dk []byte, bucket, key string) []byte {
	aead := gcm(customerKey)
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(dk)+aead.Overhead())
	rand.Read(nonce)
	return aead.Seal(nonce, nonce, dk, customerAD(bucket, key))
}

func openCustomer(customerKey, sealed []byte, bucket, key string) ([]byte, error) {
	aead := gcm(customerKey)
	if len(sealed) < aead.NonceSize() {
		return nil, kms.ErrOpen
	}
	dk, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], customerAD(bucket, key))
	if err != nil || len(dk) != kms.DataKeySize {
		return nil, kms.ErrOpen
	}
	return dk, nil
}

func gcm(key []byte) cipher.AEAD {
	b, err := aes.NewCipher(key)
	if err != nil { // callers pass 32 bytes
		panic(err)
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a
}

// PartKey is the key of part number n of a multipart upload whose data
// key is dk: every part has its own key (HKDF-SHA256), and none is
// stored.
func PartKey(dk []byte, n int) []byte {
	info := binary.BigEndian.AppendUint32([]byte("jog-sse-part\x00"), uint32(n))
	k, err := hkdf.Key(sha256.New, dk, nil, string(info), kms.DataKeySize)
	if err != nil {
		panic(err)
	}
	return k
}

// aad is what the bytes of one stream (an object, or part n > 0) are bound
// to beyond their key.
func aad(part int) []byte {
	return binary.BigEndian.AppendUint32([]byte("jog-sse-object\x00"), uint32(part))
}

// Seal returns a reader of r's bytes sealed under key for part (0 for a
// whole object): format.CiphertextSize(n) bytes for n plaintext bytes.
func Seal(r io.Reader, key []byte, part int) (io.Reader, error) {
	return format.NewEncryptReader(r, key, aad(part))
}

// OpenRange returns a reader of plaintext bytes [off, off+n) of a sealed
// stream (plainSize bytes of plaintext) read from src, authenticating
// every package it reads; a damaged or foreign package fails the read.
func OpenRange(src io.ReadSeeker, plainSize int64, key []byte, part int, off, n int64) (io.Reader, error) {
	return format.NewRangeReader(src, plainSize, key, aad(part), off, n)
}

// StoredSize is how many bytes a sealed stream of plain bytes takes.
func StoredSize(plain int64) (int64, error) { return format.CiphertextSize(plain) }

// ETag is the ETag of sealed bytes whose plaintext MD5 is md5sum: as S3
// says of SSE-C and SSE-KMS objects, not the MD5 of their data (an HMAC of
// it under the data key, so that the metadata store does not hold the
// plaintext's MD5). SSE-S3 objects keep the MD5, as S3's do.
func ETag(e meta.Encryption, dk, md5sum []byte) string {
	if e.Mode == "" || e.Mode == ModeS3 {
		return hex.EncodeToString(md5sum)
	}
	m := hmac.New(sha256.New, dk)
	m.Write([]byte("jog-sse-etag\x00"))
	m.Write(md5sum)
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// BucketDefault is a bucket's default encryption
// (PutBucketEncryption): what a write that asks for none gets. S3 allows
// one rule; so does JOG.
type BucketDefault struct {
	// Mode is ModeS3 or ModeKMS.
	Mode string `json:"mode"`
	// KeyID is the SSE-KMS key ("" for the default key).
	KeyID string `json:"keyID,omitempty"`
	// BucketKey is S3's BucketKeyEnabled, recorded and echoed.
	BucketKey bool `json:"bucketKey,omitempty"`
}

// Request is what the default gives a write that asked for no
// encryption.
func (d BucketDefault) Request() Request {
	return Request{Mode: d.Mode, KeyID: d.KeyID, BucketKey: d.BucketKey}
}
