package config

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jogstore/jog/internal/datadir"
)

// Credentials is an access key pair.
type Credentials struct {
	AccessKey string `json:"access_key"`
	SecretKey string `json:"secret_key"`
}

// LoadOrCreateCredentials returns the key pair stored in dataDir, creating a
// random one (file mode 0600) when none exists. generated reports whether
// this call created it. The file appears whole or not at all (written
// beside it, then linked into place), so gateways starting together on a
// shared data dir agree on one pair: the second reads the first's.
func LoadOrCreateCredentials(dataDir string) (c Credentials, generated bool, err error) {
	path := filepath.Join(dataDir, datadir.CredentialsFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		c = Credentials{AccessKey: "JOG" + randomString(17, upperAlnum), SecretKey: randomString(40, secretAlphabet)}
		switch err := createCredentials(path, c); {
		case err == nil:
			return c, true, nil
		case !errors.Is(err, fs.ErrExist):
			return c, false, err
		}
		b, err = os.ReadFile(path) // another process made it first
	}
	if err != nil {
		return c, false, err
	}
	c = Credentials{}
	if err := json.Unmarshal(b, &c); err != nil || c.AccessKey == "" || c.SecretKey == "" {
		return c, false, fmt.Errorf("%s is not a valid credentials file", path)
	}
	return c, false, nil
}

// ForgetCredentials removes the key pair file of dataDir if it still holds
// c: a start that generated c and then failed must not leave a stored
// secret nobody was shown (the next start generates and prints a new
// pair).
func ForgetCredentials(dataDir string, c Credentials) error {
	path := filepath.Join(dataDir, datadir.CredentialsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var stored Credentials
	if json.Unmarshal(b, &stored) != nil || stored != c {
		return nil // not the pair this start made
	}
	return os.Remove(path)
}

// createCredentials writes c to a temporary file beside path, syncs it and
// links it to path: fs.ErrExist if path exists.
func createCredentials(path string, c Credentials) error {
	b, _ := json.MarshalIndent(c, "", "  ")
	f, err := os.CreateTemp(filepath.Dir(path), ".credentials-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	_, werr := f.Write(append(b, '\n'))
	if err := errors.Join(f.Chmod(0o600), werr, f.Sync(), f.Close()); err != nil {
		return err
	}
	return os.Link(tmp, path)
}

const (
	upperAlnum     = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	secretAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
)

func randomString(n int, alphabet string) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}
