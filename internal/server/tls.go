package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"sync/atomic"
)

// certHolder serves the TLS certificate of --tls-cert and --tls-key to
// every handshake and re-reads the pair on ReloadTLS (SIGHUP): connections
// already open keep theirs, new ones get the new pair. A pair that does
// not load leaves the old one in place.
type certHolder struct {
	certFile, keyFile string
	cert              atomic.Pointer[tls.Certificate]
}

// load reads the pair; on error the holder keeps what it had.
func (h *certHolder) load() error {
	c, err := tls.LoadX509KeyPair(h.certFile, h.keyFile)
	if err != nil {
		return fmt.Errorf("TLS certificate %s, key %s: %w", h.certFile, h.keyFile, err)
	}
	h.cert.Store(&c)
	return nil
}

func (h *certHolder) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	return h.cert.Load(), nil
}

// loadTLS reads the certificate pair when the server speaks HTTPS.
func (s *Server) loadTLS() error {
	if s.cfg.TLSCert == "" {
		return nil
	}
	s.certs = &certHolder{certFile: s.cfg.TLSCert, keyFile: s.cfg.TLSKey}
	return s.certs.load()
}

// tlsConfig is the HTTPS configuration, certificates from the holder;
// nil without TLS.
func (s *Server) tlsConfig() *tls.Config {
	if s.certs == nil {
		return nil
	}
	return &tls.Config{GetCertificate: s.certs.getCertificate}
}

// ErrNoTLS is ReloadTLS's answer on a server without --tls-cert.
var ErrNoTLS = errors.New("no TLS certificate to reload: the server speaks plain HTTP")

// ReloadTLS re-reads --tls-cert and --tls-key: handshakes from now on use
// the new pair, connections already open are left alone. If the new pair
// does not load, the server keeps serving the old one and the error says
// why.
func (s *Server) ReloadTLS() error {
	if s.certs == nil {
		return ErrNoTLS
	}
	return s.certs.load()
}
