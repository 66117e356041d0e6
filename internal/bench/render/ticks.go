package render

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// headroom is the space kept above the tallest bar or point, as a share
// of it, so that it and its value label stay clear of the title.
const headroom = 0.05

// maxIntervals bounds how many steps an axis is cut into: a step of 1, 2,
// 2.5 or 5 times a power of ten always gives 4 to 6 labelled ticks.
const maxIntervals = 5

// unitTicks labels an axis at round steps (niceStep), every tick
// labelled, compactly and with the axis's unit: "0", "2.5k obj/s",
// "5k obj/s". gonum's DefaultTicks aims at three labels, which left
// two on most charts.
type unitTicks struct{ unit string }

func (u unitTicks) Ticks(min, max float64) []plot.Tick {
	step := niceStep(max - min)
	if step <= 0 || math.IsInf(step, 0) || math.IsNaN(step) {
		return nil
	}
	top := math.Max(math.Abs(min), math.Abs(max))
	var ts []plot.Tick
	for i := math.Ceil(min/step - 1e-9); i*step <= max+step*1e-9; i++ {
		v := i * step
		ts = append(ts, plot.Tick{Value: v, Label: withUnit(formatValue(v, top), u.unit)})
	}
	return ts
}

// withUnit appends the unit to a tick label: "5 ms", "1.5×"; zero is bare.
func withUnit(label, unit string) string {
	switch {
	case unit == "" || label == "0":
		return label
	case unit == "×" || unit == "%":
		return label + unit
	}
	return label + " " + unit
}

// niceStep is the smallest step of 1, 2, 2.5 or 5 times a power of ten
// that cuts span into at most maxIntervals intervals.
func niceStep(span float64) float64 {
	if span <= 0 {
		return 0
	}
	raw := span / maxIntervals
	pow := math.Pow10(int(math.Floor(math.Log10(raw))))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*pow >= raw*(1-1e-9) {
			return m * pow
		}
	}
	return 10 * pow
}

// axisTop is where a y axis from 0 ends for data up to max: the first
// round step at or above max plus its headroom, so the top is labelled.
func axisTop(max float64) float64 {
	if max <= 0 || math.IsInf(max, 0) || math.IsNaN(max) {
		return 1
	}
	want := max * (1 + headroom)
	step := niceStep(want)
	return math.Ceil(want/step-1e-9) * step
}

// formatValue prints an axis value compactly, in the unit that suits the
// axis's largest value, top.
func formatValue(v, top float64) string {
	switch {
	case v == 0:
		return "0"
	case top >= 1e6:
		return strconv.FormatFloat(v/1e6, 'g', 6, 64) + "M"
	case top >= 1e4:
		return strconv.FormatFloat(v/1e3, 'g', 6, 64) + "k"
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	return strconv.FormatFloat(v, 'g', 2, 64)
}
