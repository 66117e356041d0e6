package config

import (
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

// readmeSettings is the README's table of the main settings: a curated
// selection, each row naming its flags and their defaults in its own words.
const readmeSettings = "| flag | default | meaning |\n|---|---|---|\n"

// backquoted is a cell's part written as code: `1h`.
var backquoted = regexp.MustCompile("^`([^`]*)`$")

// TestReadmeSettings: each row of the README's settings table names flags
// of the settings table, and its defaults are theirs: either one value in
// backquotes per flag, read as the flag reads a value ("`1h`" is 1h0m0s),
// or words ("(none)", "generated") for flags without a default value. A
// flag renamed or a default changed without the README fails here.
func TestReadmeSettings(t *testing.T) {
	text, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(text), readmeSettings)
	if !ok {
		t.Fatalf("README.md has no settings table (%q)", readmeSettings)
	}
	c := Default()
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	c.BindFlags(fs, func(string) string { return "" })
	readme := Default() // the README's values, read by the flags
	rfs := flag.NewFlagSet("readme", flag.ContinueOnError)
	readme.BindFlags(rfs, func(string) string { return "" })
	rows := 0
	for line := range strings.Lines(rest) {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), " | ")
		if len(cells) != 3 {
			t.Errorf("README settings row with %d cells: %s", len(cells), line)
			continue
		}
		rows++
		var names []string
		for _, f := range strings.Split(strings.TrimSpace(cells[0]), ", ") {
			name, ok := strings.CutPrefix(strings.Trim(f, "`"), "--")
			if s, known := row(c.table, name); !ok || !known || !s.isKey() {
				t.Errorf("README names %s, not a setting of jog server", f)
				continue
			}
			names = append(names, name)
		}
		defaults := strings.Split(strings.TrimSpace(cells[1]), ", ")
		values := len(defaults) == len(names)
		for _, d := range defaults {
			values = values && backquoted.MatchString(d)
		}
		for i, name := range names {
			f := fs.Lookup(name)
			if !values {
				if f.DefValue != "" {
					t.Errorf("README: --%s's default is %q, but the README says %s", name, f.DefValue, cells[1])
				}
				continue
			}
			got := backquoted.FindStringSubmatch(defaults[i])[1]
			if err := rfs.Set(name, got); err != nil {
				t.Errorf("README: --%s's default %q: %v", name, got, err)
			} else if shown := rfs.Lookup(name).Value.String(); shown != f.DefValue {
				t.Errorf("README: --%s's default is %q (%s), but the flag's is %q", name, got, shown, f.DefValue)
			}
		}
	}
	if rows < 10 {
		t.Errorf("README's settings table has %d rows", rows)
	}
}
