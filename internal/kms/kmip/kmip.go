package kmip

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	kmipgo "github.com/ovh/kmip-go"
	"github.com/ovh/kmip-go/kmipclient"
	"github.com/ovh/kmip-go/payloads"

	"github.com/jogstore/jog/internal/kms"
)

// Config says how to reach the KMIP server. config.KMIP has the same
// fields, so the server converts one into the other.
type Config struct {
	// Endpoint is the server's host:port (KMIP's port is 5696).
	Endpoint string
	// CA is a PEM file of the certificates the server's certificate must
	// chain to; "" trusts the system's roots.
	CA string
	// Cert and Key are the PEM files of JOG's client certificate and its
	// key: KMIP servers authenticate their clients by them.
	Cert, Key string
	// ServerName is the name the server's certificate must carry; "" the
	// host of Endpoint.
	ServerName string
	// Timeout bounds each operation, connecting included; 0 is
	// DefaultTimeout. Past it the operation fails with kms.ErrUnavailable.
	Timeout time.Duration
}

// DefaultTimeout bounds an operation when Config.Timeout is 0.
const DefaultTimeout = 10 * time.Second

// conns is how many connections a KMS keeps to its server: a KMIP
// connection carries one request at a time.
const conns = 4

// KMS is the KMIP key management service. It is safe for concurrent use.
type KMS struct {
	endpoint string
	tls      *tls.Config
	timeout  time.Duration
	// slots holds the connections, each dialled when first needed and
	// again after a failure; taking one from the channel is holding it.
	slots chan *slot
}

type slot struct{ c *kmipclient.Client }

var _ kms.KMS = (*KMS)(nil)

// Open returns the KMS of cfg. It reads the certificates now, so that a
// wrong path fails at start-up, and connects when first used, so that a
// server down at start-up makes SSE-KMS requests fail (ErrUnavailable),
// not the gateway.
func Open(_ context.Context, cfg Config) (*KMS, error) {
	if _, _, err := net.SplitHostPort(cfg.Endpoint); err != nil {
		return nil, fmt.Errorf("kmip: endpoint %q: want host:port", cfg.Endpoint)
	}
	if cfg.Cert == "" || cfg.Key == "" {
		return nil, errors.New("kmip: a client certificate and its key are required")
	}
	cert, err := tls.LoadX509KeyPair(cfg.Cert, cfg.Key)
	if err != nil {
		return nil, fmt.Errorf("kmip: client certificate: %w", err)
	}
	tc := &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}, ServerName: cfg.ServerName}
	if cfg.CA != "" {
		pem, err := os.ReadFile(cfg.CA)
		if err != nil {
			return nil, fmt.Errorf("kmip: CA: %w", err)
		}
		tc.RootCAs = x509.NewCertPool()
		if !tc.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("kmip: CA %s: no PEM certificate", cfg.CA)
		}
	}
	if tc.ServerName == "" {
		tc.ServerName, _, _ = net.SplitHostPort(cfg.Endpoint)
	}
	k := &KMS{endpoint: cfg.Endpoint, tls: tc, timeout: cfg.Timeout, slots: make(chan *slot, conns)}
	if k.timeout <= 0 {
		k.timeout = DefaultTimeout
	}
	for range conns {
		k.slots <- &slot{}
	}
	return k, nil
}

// Close closes the connections, waiting for those in use.
func (k *KMS) Close() error {
	for range conns {
		s := <-k.slots
		if s.c != nil {
			closeClient(s.c)
		}
	}
	return nil
}

// roundTrip sends payloads as one KMIP request and returns the server's
// answer to each; an error when there is no answer: the server cannot be
// reached, fails TLS, or does not answer within the timeout.
func (k *KMS) roundTrip(ctx context.Context, payloads ...kmipgo.OperationPayload) ([]kmipgo.ResponseBatchItem, error) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	var s *slot
	select {
	case s = <-k.slots:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { k.slots <- s }()
	if s.c == nil {
		// Version 1.4 only: it is the first with the associated data of
		// authenticated encryption, which binds the context; an older
		// version would drop it silently.
		c, err := kmipclient.DialContext(ctx, k.endpoint,
			kmipclient.WithTlsConfig(k.tls.Clone()), kmipclient.WithKmipVersions(kmipgo.V1_4))
		if err != nil {
			return nil, err
		}
		s.c = c
	}
	items, err := s.c.Batch(ctx, payloads...)
	if err != nil {
		closeClient(s.c)
		s.c = nil
		return nil, err
	}
	return items, nil
}

// closeClient closes c. A client whose own reconnection failed has no
// connection left, and its Close then dereferences nil (kmip-go v0.8.1):
// that panic is recovered, there is nothing to close.
func closeClient(c *kmipclient.Client) {
	defer func() { _ = recover() }()
	_ = c.Close()
}

// unavailable is the error of a round trip that got no answer: ErrUnavailable
// for keyID, with the cause for the log.
func unavailable(keyID string, cause error) error {
	return fmt.Errorf("%w (%s)", &kms.Error{Kind: kms.KindUnavailable, KeyID: keyID}, cause)
}

// refused is the error of a server's refusal of an operation on keyID.
func refused(keyID string, item *kmipgo.ResponseBatchItem) error {
	var kind kms.Kind
	switch item.ResultReason {
	case kmipgo.ResultReasonItemNotFound:
		kind = kms.KindNotFound
	case kmipgo.ResultReasonPermissionDenied, kmipgo.ResultReasonAuthenticationNotSuccessful:
		kind = kms.KindAccessDenied
	default:
		return unavailable(keyID, item.Err())
	}
	return fmt.Errorf("%w (%s)", &kms.Error{Kind: kind, KeyID: keyID}, item.Err())
}

// gcm are the parameters of every Encrypt and Decrypt: AES-GCM with a
// 16-byte tag.
var gcm = kmipgo.CryptographicParameters{
	CryptographicAlgorithm: kmipgo.CryptographicAlgorithmAES,
	BlockCipherMode:        kmipgo.BlockCipherModeGCM,
	TagLength:              tagSize,
}

// GenerateDataKey draws a data key and has the Active key named keyID
// encrypt it with ec bound in.
func (k *KMS) GenerateDataKey(ctx context.Context, keyID string, ec kms.Context) (kms.DataKey, error) {
	uid, err := k.locate(ctx, keyID)
	if err != nil {
		return kms.DataKey{}, err
	}
	if uid == "" || len(uid) > 255 {
		return kms.DataKey{}, unavailable(keyID, fmt.Errorf("the key's Unique Identifier %q is empty or longer than 255 bytes", uid))
	}
	plain := make([]byte, kms.DataKeySize)
	nonce := make([]byte, nonceSize)
	rand.Read(plain)
	rand.Read(nonce)
	items, err := k.roundTrip(ctx, &payloads.EncryptRequestPayload{
		UniqueIdentifier:                      uid,
		CryptographicParameters:               &gcm,
		Data:                                  plain,
		IVCounterNonce:                        nonce,
		AuthenticatedEncryptionAdditionalData: ad(keyID, uid, ec),
	})
	if err != nil {
		return kms.DataKey{}, unavailable(keyID, err)
	}
	if err := items[0].Err(); err != nil {
		return kms.DataKey{}, refused(keyID, &items[0])
	}
	r, ok := items[0].ResponsePayload.(*payloads.EncryptResponsePayload)
	if !ok || len(r.Data) != kms.DataKeySize || len(r.AuthenticatedEncryptionTag) != tagSize ||
		(len(r.IVCounterNonce) != 0 && string(r.IVCounterNonce) != string(nonce)) {
		return kms.DataKey{}, unavailable(keyID, errors.New("the server's Encrypt answer is not a sealed data key"))
	}
	return kms.DataKey{Plaintext: plain, Sealed: seal(uid, nonce, r.AuthenticatedEncryptionTag, r.Data)}, nil
}

// Decrypt has the server check that the key that sealed sealed is still
// Active and decrypt it, in one request.
func (k *KMS) Decrypt(ctx context.Context, keyID string, sealed []byte, ec kms.Context) ([]byte, error) {
	if !kms.ValidKeyID(keyID) {
		return nil, &kms.Error{Kind: kms.KindInvalidKeyID, KeyID: keyID}
	}
	s, ok := parseSealed(sealed)
	if !ok {
		return nil, &kms.Error{Kind: kms.KindOpen, KeyID: keyID}
	}
	items, err := k.roundTrip(ctx, stateOf(s.uid), &payloads.DecryptRequestPayload{
		UniqueIdentifier:                      s.uid,
		CryptographicParameters:               &gcm,
		Data:                                  s.ciphertext,
		IVCounterNonce:                        s.nonce,
		AuthenticatedEncryptionAdditionalData: ad(keyID, s.uid, ec),
		AuthenticatedEncryptionTag:            s.tag,
	})
	if err != nil {
		return nil, unavailable(keyID, err)
	}
	// The state first: a KMIP server may decrypt with a Deactivated key
	// (the standard lets it "process" data), JOG must not.
	if err := items[0].Err(); err != nil {
		return nil, refused(keyID, &items[0])
	}
	if state(&items[0]) != kmipgo.StateActive {
		return nil, &kms.Error{Kind: kms.KindDisabled, KeyID: keyID}
	}
	d := &items[1]
	if err := d.Err(); err != nil {
		if d.ResultReason == kmipgo.ResultReasonItemNotFound || d.ResultReason == kmipgo.ResultReasonPermissionDenied {
			return nil, refused(keyID, d)
		}
		// PyKMIP answers a tag that does not verify with General Failure.
		return nil, fmt.Errorf("%w (%s)", &kms.Error{Kind: kms.KindOpen, KeyID: keyID}, err)
	}
	r, ok := d.ResponsePayload.(*payloads.DecryptResponsePayload)
	if !ok || len(r.Data) != kms.DataKeySize {
		return nil, &kms.Error{Kind: kms.KindOpen, KeyID: keyID}
	}
	return r.Data, nil
}

// Status says whether the key named keyID is Active.
func (k *KMS) Status(ctx context.Context, keyID string) error {
	_, err := k.locate(ctx, keyID)
	return err
}
