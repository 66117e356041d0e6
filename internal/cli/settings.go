package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/jogstore/jog/internal/config"
)

// serverFlags is the flag set named name holding jog server's settings,
// bound to the returned Config (its defaults until loadSettings): the
// commands that read the server's settings add their own flags to it.
func serverFlags(name string) (*config.Config, *flag.FlagSet) {
	cfg := config.Default()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	cfg.BindFlags(fs, config.Getenv)
	return &cfg, fs
}

// loadSettings parses args into fs, on which cfg.BindFlags registered,
// applies the config file and validates: the settings as jog server sees
// them. done: the command is over (help was asked for, or the settings
// are wrong, the reason printed) with exit code code.
func loadSettings(cfg *config.Config, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (layers *config.Layers, code int, done bool) {
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return nil, code, true
	}
	layers, err := cfg.ApplyFile(fs, config.Getenv)
	if err = errors.Join(err, layers.Explain(cfg.Validate())); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return nil, 2, true
	}
	return layers, 0, false
}
