package render

import (
	"bytes"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	xfont "golang.org/x/image/font"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Series is one named line or one bar colour. For a line chart Y[i] is at
// X[i]; for a bar chart Y[i] is the bar in group i (X is unused). A NaN Y
// is a missing point or bar.
type Series struct {
	Name string
	X, Y []float64
}

// Tick is an axis label at a position.
type Tick struct {
	Pos   float64
	Label string
}

// RefLine is a horizontal line across the chart at Y, named in the legend.
type RefLine struct {
	Y     float64
	Label string
}

// Chart is the frame both chart kinds share. Sizes are in points; the
// legend, below the plot, adds to Height.
type Chart struct {
	Title, XLabel, YLabel string
	YUnit, XUnit          string // in every tick label: "obj/s", "ms", "×" (XUnit: numeric x only)
	Width, Height         int
	XTicks                []Tick    // line chart: explicit x labels (nil: numeric ticks)
	Refs                  []RefLine // bar chart: reference lines (a target, parity)
	YMax                  float64   // bar chart: when > 0, the top of the y axis; taller bars are cut and keep their value label
}

var palette = []color.RGBA{
	{0x42, 0x69, 0xd0, 0xff}, {0xef, 0xb1, 0x18, 0xff}, {0xff, 0x72, 0x5c, 0xff}, {0x6c, 0xc5, 0xb0, 0xff},
	{0x3c, 0xa9, 0x51, 0xff}, {0xff, 0x8a, 0xb7, 0xff}, {0xa4, 0x63, 0xf2, 0xff}, {0x97, 0xbb, 0xf5, 0xff},
	{0x9c, 0x6b, 0x4e, 0xff}, {0x94, 0x98, 0xa0, 0xff}, {0x1b, 0x1b, 0x1b, 0xff}, {0xc5, 0x1b, 0x7d, 0xff},
}

// Color is the colour of series i.
func Color(i int) color.Color { return palette[i%len(palette)] }

func (c Chart) size() (w, h int) {
	w, h = c.Width, c.Height
	if w == 0 {
		w = 820
	}
	if h == 0 {
		h = 420
	}
	return w, h
}

func init() {
	// The Liberation faces are metric-compatible with Arial and Helvetica,
	// which the SVG names as fallbacks (see draw).
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// newPlot makes the frame: title, axis labels, a y axis from 0 labelled
// at round steps with its unit, and horizontal grid lines.
func (c Chart) newPlot() *plot.Plot {
	p := plot.New()
	p.Title.Text = c.Title
	p.Title.TextStyle.Font.Size = 14
	p.Title.TextStyle.Font.Weight = xfont.WeightBold
	p.Title.Padding = 12 // clear of the top tick label and the tallest bar's value
	p.X.Label.Text, p.Y.Label.Text = c.XLabel, c.YLabel
	p.Y.Min = 0
	p.Y.Tick.Marker = unitTicks{c.YUnit}
	g := plotter.NewGrid()
	g.Vertical.Color = nil
	g.Horizontal.Color = color.Gray{Y: 0xe5}
	p.Add(g)
	return p
}

// draw renders the plot with the legend in rows below it, as SVG.
func (c Chart) draw(p *plot.Plot, l legend) string {
	w, plotH := c.size()
	entries, legendH := l.layout(vg.Length(w))
	h := plotH + int(math.Ceil(float64(legendH)))
	// An empty chart still needs a range to draw its axes over.
	if math.IsInf(p.X.Min, 1) || p.X.Max <= p.X.Min {
		p.X.Min, p.X.Max = 0, 1
	}
	if p.Y.Max <= p.Y.Min {
		p.Y.Max = p.Y.Min + 1
	}
	cv := vgsvg.NewWith(vgsvg.UseWH(vg.Length(w), vg.Length(h)))
	dc := draw.New(cv)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	p.Draw(draw.Crop(dc, 0, 0, vg.Length(h-plotH), 0))
	l.draw(draw.Crop(dc, 0, 0, 0, -vg.Length(plotH)), entries)
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		// vgsvg writes to memory; it cannot fail here.
		panic(err)
	}
	svg := b.String()
	// Start at the <svg> element: the page inlines it.
	if i := strings.Index(svg, "<svg"); i > 0 {
		svg = svg[i:]
	}
	return strings.ReplaceAll(svg, "font-family:Liberation Sans;", "font-family:Liberation Sans,Arial,Helvetica,sans-serif;")
}

// legendName cuts a series name to what a legend entry holds.
func legendName(s string) string { return truncate(s, 48) }

// Line draws series as lines with points.
func (c Chart) Line(series []Series) string { return c.draw(c.linePlot(series)) }

func (c Chart) linePlot(series []Series) (*plot.Plot, legend) {
	p := c.newPlot()
	var l legend
	if c.XTicks != nil {
		ticks := make(plot.ConstantTicks, len(c.XTicks))
		for i, t := range c.XTicks {
			ticks[i] = plot.Tick{Value: t.Pos, Label: t.Label}
		}
		p.X.Tick.Marker = ticks
		if n := len(c.XTicks); n > 0 {
			p.X.Min, p.X.Max = c.XTicks[0].Pos-0.2, c.XTicks[n-1].Pos+0.2
		}
	} else {
		p.X.Min = 0
		p.X.Tick.Marker = unitTicks{c.XUnit}
	}
	for i, s := range series {
		var xys plotter.XYs
		for j := range s.X {
			if j < len(s.Y) && !math.IsNaN(s.Y[j]) {
				xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			continue // an infinite value: leave the series out
		}
		line.Color, line.Width = Color(i), 2
		points.Color, points.Radius = Color(i), 2.5
		if len(xys) > 40 {
			points.Radius = 0
		}
		p.Add(line, points)
		l.add(s.Name, line)
	}
	p.Y.Max = axisTop(maxY(series))
	return p, l
}

// Bars draws a grouped bar chart: one group per label in groups, one bar
// per series in each group, with the value above each bar, and the
// chart's reference lines across it.
func (c Chart) Bars(groups []string, series []Series) string {
	return c.draw(c.barPlot(groups, series))
}

func (c Chart) barPlot(groups []string, series []Series) (*plot.Plot, legend) {
	p := c.newPlot()
	var l legend
	labels := noLabels
	if len(groups) > 0 {
		w, _ := c.size()
		// The data area is the width less the y axis and its labels.
		gw := float64(w-90) / float64(len(groups))
		bw := gw * 0.8 / float64(max(len(series), 1))
		setGroupLabels(p, groups, gw)
		labels = barLabelsFor(bw, series)
		for i, s := range series {
			offset := vg.Length((float64(i) - float64(len(series)-1)/2) * bw)
			bars, err := c.barSeries(p, len(groups), s, offset, labels)
			if err != nil {
				continue // an empty series
			}
			bars.Color = Color(i)
			bars.Width = vg.Length(math.Max(bw-2, 1))
			l.add(s.Name, bars)
		}
		p.X.Min, p.X.Max = -0.5, float64(len(groups))-0.5
	}
	for _, r := range c.Refs {
		ref := plotter.NewFunction(func(float64) float64 { return r.Y })
		ref.Color, ref.Width, ref.Dashes = color.Gray{Y: 0x33}, 1.2, []vg.Length{5, 3}
		p.Add(ref)
		l.add(r.Label, ref)
	}
	m := maxY(series)
	for _, r := range c.Refs {
		m = math.Max(m, r.Y)
	}
	p.Y.Max = axisTop(m)
	if labels == uprightLabels {
		p.Y.Max = c.roomForUpright(p, m, series)
	}
	if c.YMax > 0 {
		p.Y.Max = c.YMax
	}
	return p, l
}

// barLabels is how a bar chart's values are written on its bars.
type barLabels int

const (
	noLabels      barLabels = iota // the bars are too narrow to read a value on
	acrossLabels                   // level, above each bar
	uprightLabels                  // turned a quarter, reading upwards from each bar's top
)

// valueStyle is the type of the values on the bars.
func valueStyle() text.Style {
	return text.Style{Font: font.From(plot.DefaultFont, 8), Handler: plot.DefaultTextHandler}
}

// barLabelsFor writes the values level when the widest fits across a bar
// of width bw, upright when a line of text fits across it.
func barLabelsFor(bw float64, series []Series) barLabels {
	sty := valueStyle()
	switch {
	case bw >= float64(sty.Width(short(maxY(series))))+4:
		return acrossLabels
	case bw >= float64(sty.Height("0"))+3:
		return uprightLabels
	}
	return noLabels
}

// roomForUpright raises the top of the y axis until the longest upright
// value fits above the tallest bar, m, in the plot's data area.
func (c Chart) roomForUpright(p *plot.Plot, m float64, series []Series) float64 {
	w, h := c.size()
	dataH := float64(p.DataCanvas(draw.New(vgsvg.New(vg.Length(w), vg.Length(h)))).Size().Y)
	room := float64(valueStyle().Width(short(maxY(series)))) + 6
	if m <= 0 || dataH <= 2*room {
		return p.Y.Max
	}
	return math.Max(p.Y.Max, axisTop(m*dataH/(dataH-room)))
}

// setGroupLabels names the groups under the x axis: wrapped under each
// group when every name fits in three lines, set aslant in full otherwise.
func setGroupLabels(p *plot.Plot, groups []string, groupWidth float64) {
	perLine := int(groupWidth / 5)
	aslant := slices.ContainsFunc(groups, func(g string) bool { return len(wrap(g, perLine, 4)) > 3 })
	labels := make([]string, len(groups))
	for i, g := range groups {
		labels[i] = strings.Join(wrap(g, perLine, 3), "\n")
		if aslant {
			labels[i] = truncate(g, 48)
		}
	}
	p.NominalX(labels...)
	p.X.Tick.Label.Font.Size = 9
	if aslant {
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = text.XRight, text.YCenter
	}
}

// barSeries adds one series' bars, shifted by offset within each group,
// and (when labelled) each bar's value above it. A bar taller than the
// chart's YMax is cut there, with its value inside its top.
func (c Chart) barSeries(p *plot.Plot, groups int, s Series, offset vg.Length, labels barLabels) (*plotter.BarChart, error) {
	vals := make(plotter.Values, groups)
	var xys plotter.XYs
	var texts []string
	var cut []bool
	for g := range groups {
		if g >= len(s.Y) || math.IsNaN(s.Y[g]) || math.IsInf(s.Y[g], 0) {
			continue // a missing bar stays at 0, unlabelled
		}
		y := s.Y[g]
		vals[g] = y
		top := y
		if c.YMax > 0 && y > c.YMax {
			top = c.YMax
		}
		cut = append(cut, top < y)
		xys = append(xys, plotter.XY{X: float64(g), Y: top})
		texts = append(texts, short(y))
	}
	bars, err := plotter.NewBarChart(vals, 1)
	if err != nil {
		return nil, err
	}
	bars.LineStyle.Width = 0
	bars.Offset = offset
	p.Add(bars)
	if labels == noLabels || len(xys) == 0 {
		return bars, nil
	}
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: texts})
	if err != nil {
		return bars, nil
	}
	for j := range lb.TextStyle {
		lb.TextStyle[j].Font.Size = 8
		lb.TextStyle[j].XAlign, lb.TextStyle[j].YAlign = text.XCenter, text.YBottom
		if labels == uprightLabels {
			lb.TextStyle[j].Rotation = math.Pi / 2
			lb.TextStyle[j].XAlign, lb.TextStyle[j].YAlign = text.XLeft, text.YCenter
		}
		if cut[j] { // inside the top of the cut bar
			lb.TextStyle[j].YAlign = text.YTop
			if labels == uprightLabels {
				lb.TextStyle[j].XAlign, lb.TextStyle[j].YAlign = text.XRight, text.YCenter
			}
			lb.TextStyle[j].Color = color.White
		}
	}
	lb.Offset = vg.Point{X: offset, Y: 2}
	p.Add(lb)
	return bars, nil
}

// wrap breaks s at spaces into at most maxLines lines of about width
// characters, truncating the last.
func wrap(s string, width, maxLines int) []string {
	width = max(width, 4)
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	lines = append(lines, line)
	if len(lines) > maxLines {
		lines = lines[:maxLines]
		lines[maxLines-1] += " …"
	}
	for i, l := range lines {
		lines[i] = truncate(l, width)
	}
	return lines
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func maxY(series []Series) float64 {
	m := 0.0
	for _, s := range series {
		for _, y := range s.Y {
			if !math.IsNaN(y) && !math.IsInf(y, 0) {
				m = math.Max(m, y)
			}
		}
	}
	return m
}

// short prints a bar value with three significant digits.
func short(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

var nan = math.NaN()
