package render

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// legend is a chart's key, laid out in rows below the plot, as in most
// benchmark reports: no strip of the chart's width goes to it, and a
// chart with many series grows taller instead of narrower. Each entry is
// drawn by a one-entry gonum plot.Legend.
type legend struct{ entries []legendEntry }

type legendEntry struct {
	name  string
	thumb plot.Thumbnailer
}

// The legend's geometry, in points.
const (
	legendGap    = 16 // between entries in a row
	legendMargin = 10 // left and right of the rows, and below the last
	legendTop    = 6  // between the x axis label and the first row
	legendRowGap = 3  // between rows
)

func (l *legend) add(name string, thumb plot.Thumbnailer) {
	l.entries = append(l.entries, legendEntry{legendName(name), thumb})
}

// style is the one-entry gonum legend that draws an entry, in a small type.
func (legendEntry) style() plot.Legend {
	s := plot.NewLegend()
	s.TextStyle.Font.Size = 9
	s.Top, s.Left = true, true
	return s
}

// width is the entry's thumbnail and name, as gonum's Legend measures it.
func (e legendEntry) width() vg.Length {
	s := e.style()
	return s.ThumbnailWidth + s.TextStyle.Rectangle(" "+e.name).Max.X
}

func (e legendEntry) height() vg.Length {
	s := e.style()
	return s.TextStyle.Rectangle(e.name).Max.Y + s.TextStyle.FontExtents().Descent
}

// placed is an entry's box on the canvas: X from its left, Y from the
// top of the legend down to the top of its row.
type placed struct {
	entry legendEntry
	X, Y  vg.Length
	W     vg.Length
}

// layout fills rows of the canvas's width left to right, centring each
// row, and returns where each entry goes and the legend's height (0 with
// no entries).
func (l *legend) layout(width vg.Length) ([]placed, vg.Length) {
	if len(l.entries) == 0 {
		return nil, 0
	}
	avail := width - 2*legendMargin
	var out []placed
	y := vg.Length(legendTop)
	row := []placed{}
	var rowW, rowH vg.Length
	flush := func() {
		shift := legendMargin + (avail-rowW)/2
		for _, p := range row {
			p.X += shift
			out = append(out, p)
		}
		y += rowH + legendRowGap
		row, rowW, rowH = row[:0], 0, 0
	}
	for _, e := range l.entries {
		w := min(e.width(), avail)
		x := rowW
		if len(row) > 0 {
			x += legendGap
		}
		if len(row) > 0 && x+w > avail {
			flush()
			x = 0
		}
		row = append(row, placed{entry: e, X: x, Y: y, W: w})
		rowW, rowH = x+w, max(rowH, e.height())
	}
	flush()
	return out, y - legendRowGap + legendMargin
}

// draw draws the laid-out entries in c, whose top is the legend's top.
func (l *legend) draw(c draw.Canvas, entries []placed) {
	top := c.Max.Y
	for _, p := range entries {
		s := p.entry.style()
		s.Add(p.entry.name, p.entry.thumb)
		cell := c
		cell.Min.X, cell.Max.X = c.Min.X+p.X, c.Min.X+p.X+p.W
		cell.Max.Y = top - p.Y
		s.Draw(cell)
	}
}
