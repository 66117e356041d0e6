// Package render draws jog bench results as SVG charts and one
// self-contained HTML page (inline SVG, inline CSS, no scripts).
//
// The charts are drawn with gonum.org/v1/plot (ADR 0011): a grouped bar
// chart, a line chart and a ratio chart with reference lines are all the
// reports need. chart.go holds the two chart kinds, ticks.go the y axis
// (round steps with units, headroom above the tallest value), legend.go
// the legend in rows below the plot, charts.go what each figure shows,
// summary.go the summary table's columns, page.go the files and the page.
package render
