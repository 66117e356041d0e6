package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Series is one named line or one bar colour. For a line chart Y[i] is at
// X[i]; for a bar chart Y[i] is the bar in group i (X is unused).
type Series struct {
	Name string
	X, Y []float64
}

// Tick is an axis label at a position.
type Tick struct {
	Pos   float64
	Label string
}

// Chart is the frame both chart kinds share.
type Chart struct {
	Title, XLabel, YLabel string
	Width, Height         int
	XTicks                []Tick // line chart: explicit x labels (nil: numeric ticks)
}

var palette = []string{"#4269d0", "#efb118", "#ff725c", "#6cc5b0", "#3ca951", "#ff8ab7",
	"#a463f2", "#97bbf5", "#9c6b4e", "#9498a0", "#1b1b1b", "#c51b7d"}

// Color is the colour of series i.
func Color(i int) string { return palette[i%len(palette)] }

const (
	marginLeft   = 72
	marginRight  = 190 // legend
	marginTop    = 44
	marginBottom = 80
)

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

func esc(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;")
	return r.Replace(s)
}

func num(f float64) string { return strconv.FormatFloat(f, 'f', 1, 64) }

// niceTicks returns about n round tick values from 0 to at least max.
func niceTicks(max float64, n int) []float64 {
	if max <= 0 || math.IsNaN(max) || math.IsInf(max, 0) {
		max = 1
	}
	raw := max / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []float64
	for v := 0.0; v < max+step*0.999; v += step {
		ticks = append(ticks, v)
	}
	return ticks
}

// formatValue prints an axis value compactly.
func formatValue(v float64) string {
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case math.Abs(v) >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// frame opens the SVG, draws title, y grid and axis labels, and returns the
// plot area and the y scale.
func (c Chart) frame(b *strings.Builder, ymax float64) (x0, y0, pw, ph float64, yTicks []float64) {
	w, h := c.size()
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`, w, h, w, h)
	fmt.Fprintf(b, `<rect width="%d" height="%d" fill="#fff"/>`, w, h)
	fmt.Fprintf(b, `<text x="%d" y="24" font-size="15" font-weight="bold">%s</text>`, marginLeft, esc(c.Title))
	x0, y0 = marginLeft, float64(h-marginBottom)
	pw, ph = float64(w-marginLeft-marginRight), float64(h-marginTop-marginBottom)
	yTicks = niceTicks(ymax, 5)
	top := yTicks[len(yTicks)-1]
	for _, t := range yTicks {
		y := y0 - t/top*ph
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`, num(x0), num(y), num(x0+pw), num(y))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end">%s</text>`, num(x0-6), num(y+4), esc(formatValue(t)))
	}
	fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`, num(x0), num(y0), num(x0+pw), num(y0))
	fmt.Fprintf(b, `<text transform="translate(16 %s) rotate(-90)" text-anchor="middle">%s</text>`, num(y0-ph/2), esc(c.YLabel))
	fmt.Fprintf(b, `<text x="%s" y="%d" text-anchor="middle" fill="#555">%s</text>`, num(x0+pw/2), h-8, esc(c.XLabel))
	return x0, y0, pw, ph, yTicks
}

func legend(b *strings.Builder, w int, series []Series) {
	x := w - marginRight + 16
	for i, s := range series {
		y := marginTop + 6 + i*18
		fmt.Fprintf(b, `<rect x="%d" y="%d" width="12" height="12" fill="%s"/>`, x, y, Color(i))
		fmt.Fprintf(b, `<text x="%d" y="%d">%s</text>`, x+18, y+10, esc(truncate(s.Name, 26)))
	}
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
			if !math.IsNaN(y) {
				m = math.Max(m, y)
			}
		}
	}
	return m
}

// Line draws series as lines with points.
func (c Chart) Line(series []Series) string {
	var b strings.Builder
	x0, y0, pw, ph, yt := c.frame(&b, maxY(series))
	top := yt[len(yt)-1]
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, x := range s.X {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
		}
	}
	ticks := c.XTicks
	if ticks == nil {
		for _, t := range niceTicks(xmax, 8) {
			ticks = append(ticks, Tick{t, formatValue(t)})
		}
		xmin = 0
		xmax = ticks[len(ticks)-1].Pos
	}
	if !(xmax > xmin) {
		xmin, xmax = xmin-1, xmin+1
	}
	sx := func(x float64) float64 { return x0 + (x-xmin)/(xmax-xmin)*pw }
	sy := func(y float64) float64 { return y0 - y/top*ph }
	for _, t := range ticks {
		fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, num(sx(t.Pos)), num(y0+18), esc(t.Label))
	}
	for i, s := range series {
		var pts []string
		for j := range s.X {
			if !math.IsNaN(s.Y[j]) {
				pts = append(pts, num(sx(s.X[j]))+","+num(sy(s.Y[j])))
			}
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" points="%s"><title>%s</title></polyline>`, Color(i), strings.Join(pts, " "), esc(s.Name))
		if len(pts) <= 40 {
			for _, p := range pts {
				x, y, _ := strings.Cut(p, ",")
				fmt.Fprintf(&b, `<circle cx="%s" cy="%s" r="3" fill="%s"/>`, x, y, Color(i))
			}
		}
	}
	legend(&b, c.mustWidth(), series)
	b.WriteString("</svg>\n")
	return b.String()
}

func (c Chart) mustWidth() int { w, _ := c.size(); return w }

// Bars draws a grouped bar chart: one group per label in groups, one bar
// per series in each group, with the value above each bar.
func (c Chart) Bars(groups []string, series []Series) string {
	var b strings.Builder
	x0, y0, pw, ph, yt := c.frame(&b, maxY(series))
	top := yt[len(yt)-1]
	gw := pw / float64(max(len(groups), 1))
	bw := gw * 0.8 / float64(max(len(series), 1))
	for g, name := range groups {
		gx := x0 + float64(g)*gw
		for i, line := range wrap(name, int(gw/6.5), 3) {
			fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`, num(gx+gw/2), num(y0+16+float64(i)*14), esc(line))
		}
		for i, s := range series {
			if g >= len(s.Y) || math.IsNaN(s.Y[g]) {
				continue
			}
			v := s.Y[g]
			h := v / top * ph
			x := gx + gw*0.1 + float64(i)*bw
			fmt.Fprintf(&b, `<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s %s: %s</title></rect>`,
				num(x), num(y0-h), num(math.Max(bw-2, 1)), num(h), Color(i), esc(s.Name), esc(name), esc(formatValue(v)))
			if bw >= 6*float64(len(short(v)))+4 {
				fmt.Fprintf(&b, `<text x="%s" y="%s" text-anchor="middle" font-size="10">%s</text>`, num(x+bw/2-1), num(y0-h-3), esc(short(v)))
			}
		}
	}
	legend(&b, c.mustWidth(), series)
	b.WriteString("</svg>\n")
	return b.String()
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
