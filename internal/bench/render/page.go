package render

import (
	"bytes"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/jogstore/jog/internal/bench"
)

// Figure is one chart: its file name and its SVG.
type Figure struct {
	File, Title string
	SVG         string
}

// Figures returns every chart the results support. With a baseline
// server, the first is its ratio against the best other server per cell.
func Figures(rs []*bench.Result, baseline string) []Figure {
	var figs []Figure
	if baseline != "" {
		if svg, ok := Ratios(rs, baseline); ok {
			figs = append(figs, Figure{File: "ratios.svg", Title: baseline + " against the best other server", SVG: svg})
		}
	}
	figs = append(figs, []Figure{
		{File: "servers.svg", Title: "Throughput by server (MiB/s)", SVG: Servers(rs, false)},
		{File: "servers-obj.svg", Title: "Throughput by server (objects/s)", SVG: Servers(rs, true)},
	}...)
	if svg, ok := Throughput(rs, false); ok {
		figs = append(figs, Figure{File: "throughput.svg", Title: "Throughput vs concurrency (MiB/s)", SVG: svg})
		svg, _ = Throughput(rs, true)
		figs = append(figs, Figure{File: "throughput-obj.svg", Title: "Throughput vs concurrency (objects/s)", SVG: svg})
	}
	figs = append(figs, Figure{File: "latency.svg", Title: "Latency percentiles", SVG: Latency(rs)})
	if svg, ok := Timeline(rs); ok {
		figs = append(figs, Figure{File: "timeline.svg", Title: "Operations per second over the run", SVG: svg})
	}
	return figs
}

// WriteDir writes every figure as an SVG file and index.html (the same
// figures inline, plus tables) into dir, and returns the paths written.
// baseline, when set, names the server the ratio chart compares.
func WriteDir(dir, title string, rs []*bench.Result, baseline string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	figs := Figures(rs, baseline)
	var paths []string
	for _, f := range figs {
		p := filepath.Join(dir, f.File)
		if err := os.WriteFile(p, []byte(f.SVG), 0o644); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	var buf bytes.Buffer
	if err := WriteHTML(&buf, title, rs, figs); err != nil {
		return paths, err
	}
	p := filepath.Join(dir, "index.html")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		return paths, err
	}
	return append(paths, p), nil
}

type pageResult struct {
	*bench.Result
	Cell, Errors string
}

// WriteHTML writes the self-contained report page.
func WriteHTML(w io.Writer, title string, rs []*bench.Result, figs []Figure) error {
	data := struct {
		Title     string
		Generated string
		Results   []pageResult
		Summary   summaryTable
		Figures   []struct {
			Title string
			SVG   template.HTML
		}
		Compare string
	}{Title: title, Generated: time.Now().UTC().Format(time.RFC3339), Summary: summary(rs)}
	for _, r := range rs {
		data.Results = append(data.Results, pageResult{r, bench.CellName(r), bench.FormatErrors(r.Errors)})
	}
	for _, f := range figs {
		// The SVG is ours: every text in it went through esc.
		data.Figures = append(data.Figures, struct {
			Title string
			SVG   template.HTML
		}{f.Title, template.HTML(f.SVG)})
	}
	var cmp bytes.Buffer
	bench.WriteCompare(&cmp, rs)
	data.Compare = cmp.String()
	return page.Execute(w, data)
}

var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"f1": func(v float64) string { return template.HTMLEscapeString(short1(v)) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}
th,td{border:1px solid #ccc;padding:4px 8px;text-align:right}
th:first-child,td:first-child,.l{text-align:left}
th{background:#f3f3f3}
figure{margin:1.5em 0}
pre{background:#f7f7f7;padding:1em;overflow:auto}
.meta{color:#666;font-size:13px}
</style></head><body>
<h1>{{.Title}}</h1>
<p class="meta">Generated {{.Generated}} by jog bench report from {{len .Results}} result(s).</p>
<h2>Summary</h2>
{{with .Summary}}<table><tr>{{range .Columns}}<th{{if .Text}} class="l"{{end}}>{{.Head}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range $i, $v := .}}<td{{if (index $.Summary.Columns $i).Text}} class="l"{{end}}>{{$v}}</td>{{end}}</tr>
{{end}}</table>{{end}}
{{range .Figures}}<figure>{{.SVG}}<figcaption class="meta">{{.Title}}</figcaption></figure>
{{end}}
<h2>Per operation</h2>
{{range .Results}}<h3>{{.Name}} — {{.Cell}}</h3>
<p class="meta">{{.Endpoint}}, {{.Start.Format "2006-01-02 15:04:05 MST"}}, jog {{.Version}}</p>
<table><tr><th>Op</th><th>Count</th><th>Errors</th><th>obj/s</th><th>MiB/s</th><th>mean ms</th><th>p50</th><th>p90</th><th>p99</th><th>p99.9</th><th>max</th><th>TTFB p50</th><th>TTFB p99</th></tr>
{{range .Ops}}<tr><td>{{.Op}}</td><td>{{.Count}}</td><td>{{.Errors}}</td><td>{{f1 .ObjPerSec}}</td><td>{{f1 .MiBPerSec}}</td><td>{{f1 .Latency.Mean}}</td><td>{{f1 .Latency.P50}}</td><td>{{f1 .Latency.P90}}</td><td>{{f1 .Latency.P99}}</td><td>{{f1 .Latency.P999}}</td><td>{{f1 .Latency.Max}}</td>{{if .TTFB}}<td>{{f1 .TTFB.P50}}</td><td>{{f1 .TTFB.P99}}</td>{{else}}<td></td><td></td>{{end}}</tr>
{{end}}</table>
{{if .Queue}}<p>Rate: target {{f1 .Queue.TargetRate}} req/s{{if .Queue.TargetRateTo}} ramping to {{f1 .Queue.TargetRateTo}}{{end}}, achieved {{f1 .Queue.Achieved}} req/s.
{{if .Queue.Onset}}Requests began to queue at {{f1 .Queue.Onset.Elapsed}} s (target {{f1 .Queue.Onset.TargetRate}} req/s).{{else}}No request queued.{{end}}</p>{{end}}
{{end}}
<h2>Comparison (markdown)</h2>
<pre>{{.Compare}}</pre>
</body></html>
`))

func short1(v float64) string { return short(v) }
