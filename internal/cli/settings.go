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
func serverFlags(name string, stderr io.Writer) (*config.Config, *flag.FlagSet) {
	cfg := config.Default()
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.BindFlags(fs, config.Getenv)
	return &cfg, fs
}

// loadSettings parses args into fs, on which cfg.BindFlags registered,
// applies the config file and validates: the settings as jog server sees
// them. A non-zero code is the exit code, the reason printed.
func loadSettings(cfg *config.Config, fs *flag.FlagSet, args []string, stderr io.Writer) (*config.Layers, int) {
	if err := fs.Parse(args); err != nil {
		return nil, 2
	}
	layers, err := cfg.ApplyFile(fs, config.Getenv)
	if err = errors.Join(err, layers.Explain(cfg.Validate())); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return nil, 2
	}
	return layers, 0
}
