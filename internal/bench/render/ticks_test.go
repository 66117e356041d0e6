package render

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Every y axis is labelled at four to six round steps, with its unit,
// and ends on a labelled tick at least 5% above the tallest value.
func TestYTicksRoundWithUnitsAndHeadroom(t *testing.T) {
	for _, max := range []float64{0.07, 0.9, 1, 1.05, 3.3, 8, 9.6, 95, 1833, 10611, 3.3e6} {
		top := axisTop(max)
		if top < max*(1+headroom) {
			t.Errorf("max %v: the axis ends at %v, less than 5%% above it", max, top)
		}
		ts := unitTicks{"obj/s"}.Ticks(0, top)
		var labels []string
		for _, tk := range ts {
			if tk.Label != "" {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 4 || len(labels) > 6 {
			t.Errorf("max %v: %d labelled ticks %q, want 4 to 6", max, len(labels), labels)
			continue
		}
		for _, l := range labels[1:] {
			if !strings.HasSuffix(l, " obj/s") {
				t.Errorf("max %v: tick label %q has no unit", max, l)
			}
		}
		if last := ts[len(ts)-1]; math.Abs(last.Value-top) > top*1e-9 || last.Label == "" {
			t.Errorf("max %v: the top of the axis (%v) is not a labelled tick: %+v", max, top, ts)
		}
	}
	for _, c := range []struct {
		max  float64
		unit string
		want []string
	}{
		{1833, "ms", []string{"0", "500 ms", "1000 ms", "1500 ms", "2000 ms"}},
		{10611, "obj/s", []string{"0", "2.5k obj/s", "5k obj/s", "7.5k obj/s", "10k obj/s", "12.5k obj/s"}},
		{2.9, "×", []string{"0", "1×", "2×", "3×", "4×"}},
	} {
		var got []string
		for _, tk := range (unitTicks{c.unit}).Ticks(0, axisTop(c.max)) {
			got = append(got, tk.Label)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("ticks for data up to %v %s: %q, want %q", c.max, c.unit, got, c.want)
		}
	}
}

// The charts carry those ticks: the latency chart of results() (p99.9 up
// to 9 ms) is labelled 0 to 10 ms.
func TestLatencyChartTicks(t *testing.T) {
	svg := Latency(results())
	for _, l := range []string{">2 ms<", ">4 ms<", ">6 ms<", ">8 ms<", ">10 ms<"} {
		if !strings.Contains(svg, l) {
			t.Errorf("latency chart has no y tick %s", l)
		}
	}
}

// Bars and lines get the headroom: the tallest bar or point stays below
// the top of the axis, clear of the title, and so does a reference line.
func TestPlotsKeepHeadroom(t *testing.T) {
	bars := []Series{{Name: "a", Y: []float64{3, 1833}}, {Name: "b", Y: []float64{nan, 1700}}}
	p, _ := Chart{Title: "t", YUnit: "ms"}.barPlot([]string{"x", "y"}, bars)
	if p.Y.Max < 1833*1.05 {
		t.Errorf("bar chart's y axis ends at %v, on top of its tallest bar (1833)", p.Y.Max)
	}
	p, _ = Chart{Title: "t", Refs: []RefLine{{Y: 1, Label: "parity"}}}.barPlot([]string{"x"}, []Series{{Name: "r", Y: []float64{0.8}}})
	if p.Y.Max < 1.05 {
		t.Errorf("ratio chart's y axis ends at %v, not above its parity line (1)", p.Y.Max)
	}
	p, _ = Chart{Title: "t"}.linePlot([]Series{{Name: "l", X: []float64{1, 2}, Y: []float64{10, 98}}})
	if p.Y.Max < 98*1.05 {
		t.Errorf("line chart's y axis ends at %v, on its highest point (98)", p.Y.Max)
	}
}

func TestFormatValue(t *testing.T) {
	for _, c := range []struct {
		v, top float64
		want   string
	}{
		{0, 1, "0"}, {0.0031, 0.01, "0.0031"}, {7, 8, "7"}, {1.2000000000000002, 1.6, "1.2"},
		{2500, 5000, "2500"}, {12000, 12000, "12k"}, {5000, 10000, "5k"}, {1.5e6, 2e6, "1.5M"}, {5e5, 1e6, "0.5M"},
	} {
		if got := formatValue(c.v, c.top); got != c.want {
			t.Errorf("formatValue(%v, %v) = %q, want %q", c.v, c.top, got, c.want)
		}
	}
}

// Bars too narrow for a level value get it upright, and the axis rises
// until the longest fits above the tallest bar.
func TestUprightValuesOnNarrowBars(t *testing.T) {
	groups := make([]string, 18)
	series := []Series{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d"}}
	for g := range groups {
		groups[g] = fmt.Sprintf("cell %d", g)
		for i := range series {
			series[i].Y = append(series[i].Y, float64(5000*(g+2)-100*i))
		}
	}
	c := Chart{Title: "t", Width: 1620, YUnit: "obj/s"}
	svg := c.Bars(groups, series)
	if !regexp.MustCompile(`<g transform="rotate\(90\)">\s*<text[^>]*>95000</text>`).MatchString(svg) {
		t.Errorf("the tallest bar's value (95000) is not written upright:\n%s", svg)
	}
	p, _ := c.barPlot(groups, series)
	_, h := c.size()
	dataH := p.DataCanvas(draw.New(vgsvg.New(vg.Length(c.Width), vg.Length(h)))).Size().Y
	label := valueStyle().Width("95000")
	if top := vg.Length(95000/p.Y.Max)*dataH + 2 + label; top+2 > dataH {
		t.Errorf("the upright value reaches %.0f points up a data area %.0f high, less than 2 points clear of its top (axis top %v)", top, dataH, p.Y.Max)
	}
}
