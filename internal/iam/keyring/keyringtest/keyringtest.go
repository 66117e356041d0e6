// Package keyringtest gives tests a keyring of a fixed server key.
package keyringtest

import (
	"bytes"
	"testing"

	"github.com/jogstore/jog/internal/iam/keyring"
)

// New returns a Keyring whose server key is KeySize bytes of fill: tests
// with two fills have two server keys.
func New(t testing.TB, fill byte) *keyring.Keyring {
	t.Helper()
	k, err := keyring.New(bytes.Repeat([]byte{fill}, keyring.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return k
}
