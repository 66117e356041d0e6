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
)

// WriteTOML writes the settings in effect as a config file --config
// reads back: each setting with its flag's usage as a comment and, when
// not the default, the layer that set it. A secret setting and any value
// holding a password (a URL's user:password@, password=…: RedactMeta, as
// in --meta) are written commented out with the secret masked, so that a
// saved copy neither leaks nor silently replaces them.
func (l *Layers) WriteTOML(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "# jog server settings in effect (jog server --print-config).")
	fmt.Fprintln(bw, "# Precedence: flag > JOG_* variable > config file (--config) > default.")
	fmt.Fprintln(bw, "# Secrets are masked and commented out: set them here or in their JOG_* variable.")
	for _, s := range l.table {
		if !s.isKey() {
			continue
		}
		name := s.name
		f := l.fs.Lookup(name)
		line, masked, err := tomlLine(s, f)
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

// tomlLine is `name = value` for setting s's flag f, its value masked
// when secret.
func tomlLine(s setting, f *flag.Flag) (line string, masked bool, err error) {
	name := s.name
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
	if str, ok := v.(string); ok {
		switch {
		case s.secret && str != "":
			v, masked = redacted, true
		case RedactMeta(str) != str:
			v, masked = RedactMeta(str), true
		}
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(map[string]any{name: v}); err != nil {
		return "", false, fmt.Errorf("--print-config: %s: %w", name, err)
	}
	return strings.TrimSuffix(b.String(), "\n"), masked, nil
}
