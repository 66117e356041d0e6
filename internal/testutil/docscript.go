package testutil

import (
	"os"
	"strings"
	"testing"
)

// DocScript returns the shell blocks (```sh) of the section of the
// Markdown file doc headed by the line heading ("## Quick start"), in
// order, as one script: for tests that run a doc's steps as written. The
// section ends at the next heading of its level or above; lines inside
// fenced blocks (a shell comment "# …") are no headings.
func DocScript(t testing.TB, doc, heading string) string {
	t.Helper()
	b, err := os.ReadFile(doc)
	if err != nil {
		t.Fatal(err)
	}
	level := len(heading) - len(strings.TrimLeft(heading, "#"))
	var script strings.Builder
	in, found, block, fence := false, false, false, ""
	for line := range strings.Lines(string(b)) {
		text := strings.TrimRight(line, "\n")
		switch {
		case fence != "" && text == "```":
			fence = ""
		case fence != "":
			if block {
				script.WriteString(line)
			}
		case strings.HasPrefix(text, "```"):
			fence, block = text, in && text == "```sh"
		case text == heading:
			in, found = true, true
		case in && headingLevel(text) > 0 && headingLevel(text) <= level:
			in = false
		}
	}
	switch {
	case !found:
		t.Fatalf("%s has no %q section", doc, heading)
	case fence != "":
		t.Fatalf("%s: a %s block is not closed", doc, fence)
	case script.Len() == 0:
		t.Fatalf("%s, %s: no ```sh block", doc, heading)
	}
	return script.String()
}

// headingLevel is the level of a Markdown heading line ("## x": 2), 0 for
// any other line.
func headingLevel(line string) int {
	n := len(line) - len(strings.TrimLeft(line, "#"))
	if n == 0 || !strings.HasPrefix(line[n:], " ") {
		return 0
	}
	return n
}
