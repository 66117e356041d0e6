package console

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/sigv4"
	"github.com/jogstore/jog/internal/sts"
)

// stall bounds how long a side of the streaming test waits for the
// other: only a proxy that buffers a body ever makes it wait so long.
const stall = 30 * time.Second

// gatedReader yields first, then waits for open before yielding rest:
// whoever reads it must pass first on before rest can come.
type gatedReader struct {
	first, rest *bytes.Reader
	open        <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if g.first.Len() > 0 {
		return g.first.Read(p)
	}
	select {
	case <-g.open:
	case <-time.After(stall):
		return 0, errors.New("the proxy did not pass the body's first bytes on: it buffers")
	}
	return g.rest.Read(p)
}

// TestProxyStreamsBothWays: the proxy hands the request body on while it
// is still arriving, and the response on while it is still being
// written. The handler behind it (standing for the S3 API) answers only
// once it has read the body's first MiB, then writes its first MiB and
// waits for the client to have it before writing the rest; the client
// sends the rest of the body only once the handler has the first MiB. A
// proxy that buffered either body would stall both sides.
func TestProxyStreamsBothWays(t *testing.T) {
	const mib = 1 << 20
	gotFirst, clientGotFirst := make(chan struct{}), make(chan struct{})
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(sigv4.SecurityTokenHeader) == "" || r.Header.Get("Authorization") == "" || r.URL.Path != "/b/k" {
			http.Error(w, "not signed as the session, or the wrong path", http.StatusBadRequest)
			return
		}
		if _, err := io.ReadFull(r.Body, make([]byte, mib)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		close(gotFirst)
		n, err := io.Copy(io.Discard, r.Body)
		if err != nil || n != 4*mib {
			http.Error(w, "short body", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(make([]byte, mib))
		w.(http.Flusher).Flush()
		select {
		case <-clientGotFirst:
		case <-time.After(stall):
			return // the proxy buffers the answer
		}
		_, _ = w.Write(make([]byte, 4*mib))
	})
	key := make([]byte, keyring.KeySize)
	rand.Read(key)
	kr, _ := keyring.New(key)
	h, err := New(Config{Handler: inner, Sealer: kr, Keys: sts.Keys{STS: sts.New(nil, kr, sts.Options{})},
		Authorizer: authz.New("123456789012", authz.Options{}), Region: "us-east-1"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	sess := &Session{AccessKeyID: "ASIATEST", Secret: keyring.NewSecret("secret"), Token: "token", Expires: time.Now().Add(time.Hour)}

	body := &gatedReader{first: bytes.NewReader(make([]byte, mib)), rest: bytes.NewReader(make([]byte, 4*mib)), open: gotFirst}
	req, _ := http.NewRequest(http.MethodPut, srv.URL+"/console/api/s3/b/k", body)
	req.ContentLength = 5 * mib
	req.AddCookie(&http.Cookie{Name: CookieName, Value: Seal(kr, sess)})
	req.Header.Set(CSRFHeader, sess.CSRF())
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s %s", resp.Status, b)
	}
	if _, err := io.ReadFull(resp.Body, make([]byte, mib)); err != nil {
		t.Fatal(err)
	}
	close(clientGotFirst)
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != 4*mib {
		t.Fatalf("the rest of the answer: %d bytes, %v (the proxy buffered it)", n, err)
	}
}
