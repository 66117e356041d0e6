// Package iamtest gives the IAM and STS APIs' tests an iam.Service over a
// real SQLite store in a temporary directory.
package iamtest

import (
	"path/filepath"
	"testing"

	"github.com/jogstore/jog/internal/iam"
	"github.com/jogstore/jog/internal/iam/keyring"
	"github.com/jogstore/jog/internal/iam/keyring/keyringtest"
	"github.com/jogstore/jog/internal/meta/sqlite"
)

// Open returns an iam.Service over a fresh store, and its keyring (server
// key keyringtest.New(t, 7)). The store is closed when the test ends.
func Open(t testing.TB) (*iam.Service, *keyring.Keyring) {
	t.Helper()
	st, err := sqlite.OpenWith(t.Context(), filepath.Join(t.TempDir(), "jog.db"), sqlite.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	k := keyringtest.New(t, 7)
	svc, err := iam.New(t.Context(), st, k, iam.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return svc, k
}
