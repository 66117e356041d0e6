package metrics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDashboard: deploy/grafana/jog.json is valid JSON, and every jog_
// metric its queries and the metrics reference name is one this package
// defines (a renamed metric breaks the test, not the dashboard).
func TestDashboard(t *testing.T) {
	dash, err := os.ReadFile("../../deploy/grafana/jog.json")
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(dash, &d); err != nil {
		t.Fatalf("jog.json: %v", err)
	}
	var src strings.Builder
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		src.Write(b)
	}
	defined := src.String()
	name := regexp.MustCompile(`jog_[a-z0-9_]+`)
	check := func(where, text string) {
		for _, n := range name.FindAllString(text, -1) {
			base := n
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				if b, ok := strings.CutSuffix(n, suffix); ok && strings.Contains(defined, `"`+b+`"`) {
					base = b
				}
			}
			if !strings.Contains(defined, `"`+base+`"`) {
				t.Errorf("%s names %s, which internal/metrics does not define", where, n)
			}
		}
	}
	targets := 0
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			targets++
			check("panel "+p.Title, tg.Expr)
		}
	}
	if targets < 20 {
		t.Errorf("%d queries in the dashboard", targets)
	}
	doc, err := os.ReadFile("../../docs/OPERATIONS.md")
	if err != nil {
		t.Fatal(err)
	}
	check("OPERATIONS.md", string(doc))
}
