package config

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/jogstore/jog/internal/iam/keyring"
)

// secretWords mark a secret setting by its name: a flag whose name holds
// one of them (secret-key, and tomorrow metrics-token or
// replica-secret-access-key) is never printed. Name a secret flag so.
var secretWords = []string{"secret", "password", "token"}

// Secret reports whether the setting name holds a secret.
func Secret(name string) bool {
	for _, w := range secretWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// The replica's keys (Config.ReplicateAccessKey, ReplicateSecretKey) come
// from these variables only: no flag, so that they never show in a
// process listing.
const (
	EnvReplicateAccessKey = "JOG_REPLICATE_ACCESS_KEY"
	EnvReplicateSecretKey = "JOG_REPLICATE_SECRET_KEY"
)

// SecretVars are the environment variables holding a secret of jog
// server: those of the settings Secret names, and the secrets read from
// the environment only.
func SecretVars() []string {
	c := Default()
	c.BindFlags(flag.NewFlagSet("secrets", flag.ContinueOnError), func(string) string { return "" })
	vars := []string{EnvReplicateSecretKey, keyring.EnvVar}
	for _, name := range c.names {
		if Secret(name) {
			vars = append(vars, envName(name))
		}
	}
	return vars
}

// HelpDefault is what -h shows as the default of a flag named name whose
// value is v, of jog server or of any other command: "(set)" for a
// secret (Secret), v with any password of a connection string masked
// (RedactMeta) otherwise.
func HelpDefault(name, v string) string {
	if Secret(name) && v != "" {
		return "(set)"
	}
	return RedactMeta(v)
}

// WriteTOML writes the settings in effect as a config file --config
// reads back: each setting with its flag's usage as a comment and, when
// not the default, the layer that set it. A secret (Secret) and any value
// holding a password (a URL's user:password@, password=…: RedactMeta, as
// in --meta) are written commented out with the secret masked, so that a
// saved copy neither leaks nor silently replaces them.
func (l *Layers) WriteTOML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# jog server settings in effect (jog server --print-config).")
	fmt.Fprintln(bw, "# Precedence: flag > JOG_* variable > config file (--config) > default.")
	fmt.Fprintln(bw, "# Secrets are masked and commented out: set them here or in their JOG_* variable.")
	for _, name := range l.names {
		if name == fileFlag {
			continue
		}
		f := l.fs.Lookup(name)
		line, masked, err := tomlLine(name, f)
		if err != nil {
			return err
		}
		fmt.Fprintf(bw, "\n# %s\n", f.Usage)
		var notes []string
		if masked {
			line, notes = "# "+line, append(notes, "masked")
		}
		if src := l.Source(name); src != "" {
			notes = append(notes, "from "+src)
		}
		if len(notes) > 0 {
			line += " # " + strings.Join(notes, ", ")
		}
		fmt.Fprintln(bw, line)
	}
	return bw.Flush()
}

// tomlLine is `name = value` for flag f, its value masked when secret.
func tomlLine(name string, f *flag.Flag) (line string, masked bool, err error) {
	var v any = f.Value.String()
	if g, ok := f.Value.(flag.Getter); ok {
		switch x := g.Get().(type) {
		case bool, string, float64:
			v = x
		case int:
			v = int64(x)
		case int64:
			v = x
		case uint:
			v = uint64(x)
		case uint64:
			v = x
		case time.Duration:
			v = x.String()
		}
	}
	if s, ok := v.(string); ok {
		switch {
		case Secret(name) && s != "":
			v, masked = redacted, true
		case RedactMeta(s) != s:
			v, masked = RedactMeta(s), true
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{name: v}); err != nil {
		return "", false, fmt.Errorf("--print-config: %s: %w", name, err)
	}
	return strings.TrimSuffix(b.String(), "\n"), masked, nil
}
