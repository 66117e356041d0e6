package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// The config file (ADR 0020) is TOML whose keys are the flag names of the
// settings table (settings.go): `data-dir = "/srv/jog"`. It is a layer of
// the settings, generic over the flag set: a row added to the table is a
// key with no code here. Precedence, highest first:
//
//	flag > JOG_* variable > config file > default
//
// BindFlags puts the defaults and the JOG_* variables into the flags,
// flag.Parse applies the command line; ApplyFile then sets from the file
// only the settings neither of those two gave.

// fileFlag is the flag (and JOG_CONFIG) naming the config file; a file
// cannot name another.
const fileFlag = "config"

// Layers records where each setting came from, for error messages and
// --print-config: the flags given on the command line, the environment,
// and the config file's keys with their lines.
type Layers struct {
	fs      *flag.FlagSet
	getenv  func(string) string
	table   []setting
	cmdline map[string]bool
	path    string         // the config file, "" when none
	lines   map[string]int // file key → its line
	applied map[string]bool
}

// ApplyFile reads the config file c.ConfigFile (--config, JOG_CONFIG),
// when set, after fs (on which c.BindFlags registered) has parsed the
// command line, and sets each setting it holds that neither the command
// line nor its JOG_* variable set. Every key must name a setting and hold
// a value of its type; the errors name the file, the line and the key.
func (c *Config) ApplyFile(fs *flag.FlagSet, getenv func(string) string) (*Layers, error) {
	l := &Layers{fs: fs, getenv: getenv, table: c.table, cmdline: map[string]bool{}, lines: map[string]int{}, applied: map[string]bool{}}
	fs.Visit(func(f *flag.Flag) { l.cmdline[f.Name] = true })
	c.layers = l
	if c.ConfigFile == "" {
		return l, nil
	}
	l.path = c.ConfigFile
	data, err := os.ReadFile(l.path)
	if err != nil {
		return l, fmt.Errorf("--config: %w", err)
	}
	var raw map[string]toml.Primitive
	md, err := toml.Decode(string(data), &raw)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return l, fmt.Errorf("%s:%d:%d: %s", l.path, pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return l, fmt.Errorf("%s: %v", l.path, err)
	}
	var errs []error
	for _, name := range topKeys(md) {
		v, line := valueAt(&md, raw[name])
		l.lines[name] = line
		if err := l.set(name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %v", l.path, line, name, err))
		}
	}
	return l, errors.Join(errs...)
}

// set applies the file's value v to setting name unless a higher layer
// set it; it checks v either way.
func (l *Layers) set(name string, v any) error {
	if name == fileFlag {
		return errors.New("a config file cannot name another (use --config or JOG_CONFIG)")
	}
	f := l.fs.Lookup(name)
	if f == nil || !l.isSetting(name) {
		if alt := strings.ReplaceAll(name, "_", "-"); alt != name && l.isSetting(alt) {
			return fmt.Errorf("unknown key, did you mean %q?", alt)
		}
		return errors.New("unknown key (the keys are the flags of jog server -h, without the dashes)")
	}
	s, err := fileValue(f, v)
	if err != nil {
		return err
	}
	if l.cmdline[name] || l.getenv(envName(name)) != "" {
		return nil
	}
	if err := f.Value.Set(s); err != nil {
		return fmt.Errorf("invalid value %q: %v", s, err)
	}
	l.applied[name] = true
	return nil
}

// isSetting reports whether name is a key of the file: a setting's flag.
func (l *Layers) isSetting(name string) bool {
	s, ok := row(l.table, name)
	return ok && s.isKey()
}

// topKeys lists the file's top-level keys in the file's order: a key of a
// table (`[server]`, `a.b = 1`) stands for its table.
func topKeys(md toml.MetaData) []string {
	var keys []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if len(k) > 0 && !seen[k[0]] {
			seen[k[0]] = true
			keys = append(keys, k[0])
		}
	}
	return keys
}

// errAt stops the TOML decoder at a value so that its error carries the
// value's line (MetaData keeps key positions private).
var errAt = errors.New("position")

// capture is a toml.Unmarshaler that keeps the value and fails with errAt.
type capture struct{ v any }

func (c *capture) UnmarshalTOML(v any) error { c.v = v; return errAt }

// valueAt returns a top-level value of the file and its line.
func valueAt(md *toml.MetaData, p toml.Primitive) (any, int) {
	var c capture
	var pe toml.ParseError
	if err := md.PrimitiveDecode(p, &c); errors.As(err, &pe) {
		return c.v, pe.Position.Line
	}
	return c.v, 0
}

// fileValue converts a TOML value to the text flag.Value.Set takes,
// checking it has the flag's type: a boolean for a boolean flag, an
// integer for a number, a string for a string or a duration ("1h30m");
// other flags (sizes, rates) take a string or an integer.
func fileValue(f *flag.Flag, v any) (string, error) {
	var want any
	if g, ok := f.Value.(flag.Getter); ok {
		want = g.Get()
	}
	switch want.(type) {
	case bool:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
		return "", fmt.Errorf("want true or false, got %s", describe(v))
	case int, int64, uint, uint64:
		if i, ok := v.(int64); ok {
			return strconv.FormatInt(i, 10), nil
		}
		return "", fmt.Errorf("want an integer, got %s", describe(v))
	case float64:
		switch n := v.(type) {
		case int64:
			return strconv.FormatInt(n, 10), nil
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64), nil
		}
		return "", fmt.Errorf("want a number, got %s", describe(v))
	case time.Duration:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return "", fmt.Errorf("want a duration as a string, e.g. \"1h30m\", got %s", describe(v))
	case string:
		if s, ok := v.(string); ok {
			return s, nil
		}
		return "", fmt.Errorf("want a string, got %s", describe(v))
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	}
	return "", fmt.Errorf("want a string or an integer, got %s", describe(v))
}

// describe names a TOML value's type for an error message.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return "string " + strconv.Quote(x)
	case int64:
		return "integer " + strconv.FormatInt(x, 10)
	case float64:
		return "float " + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "boolean " + strconv.FormatBool(x)
	case map[string]any:
		return "a table"
	case []any, []map[string]any:
		return "an array"
	}
	return fmt.Sprintf("a %T", v)
}

// Source names the layer that set a setting: "--name", its JOG_* variable,
// "file:line", or "" for the default.
func (l *Layers) Source(name string) string {
	switch {
	case l.cmdline[name]:
		return "--" + name
	case l.getenv(envName(name)) != "":
		return envName(name)
	case l.applied[name]:
		return l.path + ":" + strconv.Itoa(l.lines[name])
	}
	return ""
}

// Given names how setting name was given, for an error message: its
// flag, its JOG_* variable, or its key in the config file with the line;
// its flag when it was not, or when l is nil (no layers known).
func (l *Layers) Given(name string) string {
	if l == nil || l.Source(name) == "" {
		return "--" + name
	}
	if l.applied[name] {
		return name + " (" + l.Source(name) + ")"
	}
	return l.Source(name)
}

// SecretsInArgv lists the flags given on the command line whose value holds a
// secret: a secret setting of the table, or a password in a connection
// string (RedactMeta: --meta postgres://user:password@…). Every local user
// can read them in a process listing.
func (l *Layers) SecretsInArgv() []string {
	var flags []string
	for _, s := range l.table {
		if s.name == "" || !l.cmdline[s.name] {
			continue
		}
		if v := l.fs.Lookup(s.name).Value.String(); s.secret && v != "" || RedactMeta(v) != v {
			flags = append(flags, "--"+s.name)
		}
	}
	return flags
}

// flagRef finds the flags an error message of Validate names.
var flagRef = regexp.MustCompile(`--([a-z0-9][a-z0-9-]*)`)

// Explain prefixes each of err's errors (Validate joins them) that names a
// setting the config file set with the file and the key's line.
func (l *Layers) Explain(err error) error {
	if err == nil || l == nil || l.path == "" {
		return err
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		for _, m := range flagRef.FindAllStringSubmatch(e.Error(), -1) {
			if name := m[1]; l.applied[name] {
				e = fmt.Errorf("%s:%d: %s: %w", l.path, l.lines[name], name, e)
				break
			}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}
