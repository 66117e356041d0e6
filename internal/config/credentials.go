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
// this call created it.
func LoadOrCreateCredentials(dataDir string) (c Credentials, generated bool, err error) {
	path := filepath.Join(dataDir, datadir.CredentialsFile)
	b, err := os.ReadFile(path)
	if err == nil {
		if err := json.Unmarshal(b, &c); err != nil || c.AccessKey == "" || c.SecretKey == "" {
			return c, false, fmt.Errorf("%s is not a valid credentials file", path)
		}
		return c, false, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return c, false, err
	}
	c = Credentials{AccessKey: "JOG" + randomString(17, upperAlnum), SecretKey: randomString(40, secretAlphabet)}
	b, _ = json.MarshalIndent(c, "", "  ")
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return c, false, err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return c, false, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return c, false, err
	}
	return c, true, f.Close()
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
