// Package render draws jog bench results as SVG charts and one
// self-contained HTML page (inline SVG, inline CSS, no scripts).
//
// The SVG is written by hand: a line chart and a grouped bar chart are all
// the reports need, the output stays small and deterministic, and JOG takes
// on no charting dependency (the Go chart libraries that are kept up either
// pull in a font/raster stack or an HTML+JS runtime, which a self-contained
// offline page should not need).
package render
