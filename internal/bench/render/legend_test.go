package render

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

var (
	gridLine = regexp.MustCompile(`<path d="M([0-9.]+),([0-9.]+)L([0-9.]+),[0-9.]+" style="fill:none;stroke:#E5E5E5`)
	textAt   = regexp.MustCompile(`<text x="(-?[0-9.]+)" y="(-?[0-9.]+)"[^>]*>([^<]*)</text>`)
)

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// The plot takes the chart's whole width, and the legend sits below it
// inside the canvas, not in a column of its own beside it.
func TestLegendBelowPlotNotBeside(t *testing.T) {
	const width = 820
	series := []Series{{Name: "p50", Y: []float64{1, 2}}, {Name: "p90", Y: []float64{2, 3}}, {Name: "p99", Y: []float64{4, 6}}}
	svg := Chart{Title: "t", Width: width, YUnit: "ms"}.Bars([]string{"GET", "PUT"}, series)
	grid := gridLine.FindAllStringSubmatch(svg, -1)
	if len(grid) < 3 {
		t.Fatalf("%d grid lines in\n%s", len(grid), svg)
	}
	right, lowest := 0.0, 1e9
	for _, g := range grid {
		right = max(right, num(t, g[3]))
		lowest = min(lowest, num(t, g[2]))
	}
	if right < 0.95*width {
		t.Errorf("the plot ends at x=%.0f of %d: a strip beside it is left empty", right, width)
	}
	found := 0
	for _, m := range textAt.FindAllStringSubmatch(svg, -1) {
		name := m[3]
		if name != "p50" && name != "p90" && name != "p99" {
			continue
		}
		found++
		// vgsvg flips y: the text's height above the canvas bottom is -y.
		x, y := num(t, m[1]), -num(t, m[2])
		if x < 0 || x >= width {
			t.Errorf("legend entry %s at x=%.0f, outside the canvas", name, x)
		}
		if y >= lowest {
			t.Errorf("legend entry %s at height %.0f, not below the plot (its lowest grid line is at %.0f)", name, y, lowest)
		}
	}
	if found != 3 {
		t.Errorf("%d of 3 legend entries found", found)
	}
}

// Many entries wrap into rows that stay inside the canvas and do not overlap.
func TestLegendLayoutWraps(t *testing.T) {
	var l legend
	for i := range 24 {
		l.add(fmt.Sprintf("versitygw put %d KiB %s", i, strings.Repeat("x", i)), &plotter.BarChart{})
	}
	const width = 820
	entries, height := l.layout(width)
	if len(entries) != 24 {
		t.Fatalf("%d entries placed", len(entries))
	}
	rows := map[vg.Length][]placed{}
	for _, p := range entries {
		if p.X < legendMargin || p.X+p.W > width-legendMargin+0.01 {
			t.Errorf("%q from x=%.1f to %.1f: outside the canvas", p.entry.name, p.X, p.X+p.W)
		}
		rows[p.Y] = append(rows[p.Y], p)
	}
	if len(rows) < 3 {
		t.Errorf("24 long entries in %d rows", len(rows))
	}
	for y, row := range rows {
		for i := 1; i < len(row); i++ {
			if row[i].X < row[i-1].X+row[i-1].W {
				t.Errorf("row at %.0f: %q overlaps %q", y, row[i].entry.name, row[i-1].entry.name)
			}
		}
		if y+row[0].entry.height() > height {
			t.Errorf("row at %.0f is below the legend's height %.0f", y, height)
		}
	}
	if _, h := (&legend{}).layout(width); h != 0 {
		t.Errorf("an empty legend takes %.0f points", h)
	}
}
