package outage

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestTracker: an outage's first failure is one WARN line, the failures
// after it within the interval none, the first after the interval one
// line counting them; an answer ends the outage in one "serving again"
// line, and a second answer logs nothing.
func TestTracker(t *testing.T) {
	var buf bytes.Buffer
	tr := New(slog.New(slog.NewTextHandler(&buf, nil)), "metadata store", time.Hour)
	tr.OK()
	if buf.Len() != 0 {
		t.Fatalf("an answer with nothing down logged %q", buf.String())
	}
	for range 100 {
		tr.Failed(errors.New("dial error:\n\t127.0.0.1: refused\n\t::1: refused"))
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 1 || !strings.Contains(lines[0], "level=WARN") || !strings.Contains(lines[0], "unreachable") ||
		!strings.Contains(lines[0], `err="dial error:; 127.0.0.1: refused; ::1: refused"`) {
		t.Fatalf("100 failures logged:\n%s\nwant one WARN line, its error on one line", buf.String())
	}
	tr.since, tr.lastLine = tr.since.Add(-2*time.Hour), tr.lastLine.Add(-2*time.Hour) // the interval has passed
	tr.Failed(errors.New("refused"))
	lines = strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "still unreachable") || !strings.Contains(lines[1], "more=100") {
		t.Fatalf("the first failure after the interval logged:\n%s\nwant a second line with more=100", buf.String())
	}
	if !tr.Down() {
		t.Fatal("Down is false during the outage")
	}
	tr.OK()
	tr.OK()
	lines = strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[2], "level=INFO") || !strings.Contains(lines[2], "serving again") ||
		!strings.Contains(lines[2], "failures=101") {
		t.Fatalf("two answers after the outage logged:\n%s\nwant one serving-again line with failures=101", buf.String())
	}
	if tr.Down() {
		t.Fatal("Down is true after an answer")
	}
}
