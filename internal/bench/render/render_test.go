package render

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jogstore/jog/internal/bench"
)

// results is a sweep of two servers over two sizes and three
// concurrencies, with a label that needs escaping.
func results() []*bench.Result {
	var rs []*bench.Result
	for _, server := range []string{"jog", "<minio & co>"} {
		for _, size := range []int64{1 << 10, 1 << 20} {
			for _, c := range []int{1, 4, 16} {
				cfg := bench.DefaultConfig()
				cfg.Size, cfg.Concurrency = bench.SizeRange{Min: size, Max: size}, c
				v := float64(c) * float64(size) / 1e4
				if server != "jog" {
					v *= 0.8 // jog leads every cell by 1.25×
				}
				rs = append(rs, &bench.Result{
					Label: server, Workload: "mixed", Config: cfg, Seconds: 3, Start: time.Unix(0, 0),
					Total: bench.OpResult{Op: "TOTAL", MiBPerSec: v, ObjPerSec: v * 2, Latency: bench.Percentiles{P50: 1, P99: 5}},
					Ops: []bench.OpResult{
						{Op: "GET", Count: 10, Latency: bench.Percentiles{P50: 1, P90: 2, P99: 4, P999: 8}, TTFB: &bench.Percentiles{P50: 0.5}},
						{Op: "PUT", Count: 5, Latency: bench.Percentiles{P50: 2, P90: 3, P99: 6, P999: 9}},
					},
					Timeline: []bench.Tick{{Second: 1, Ops: 100}, {Second: 2, Ops: 120}, {Second: 3, Ops: 90}, {Second: 3.1, Ops: 1}},
				})
			}
		}
	}
	return rs
}

// wellFormed decodes the whole document as XML.
func wellFormed(t *testing.T, name, doc string) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(doc))
	d.Strict = true
	elems := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v\n%s", name, err, doc)
		}
		if _, ok := tok.(xml.StartElement); ok {
			elems++
		}
	}
	if elems < 5 || !strings.HasPrefix(doc, "<svg") {
		t.Fatalf("%s: %d elements, not an SVG", name, elems)
	}
}

func TestFiguresAreValidSVG(t *testing.T) {
	figs := Figures(results(), "jog")
	names := map[string]bool{}
	for _, f := range figs {
		wellFormed(t, f.File, f.SVG)
		names[f.File] = true
	}
	if figs[0].File != "ratios.svg" {
		t.Errorf("first figure %s, want the ratios", figs[0].File)
	} else if n := strings.Count(figs[0].SVG, ">1.25<"); n != 6 {
		t.Errorf("ratio chart labels 1.25 on %d bars, want 6", n)
	} else if !strings.Contains(figs[0].SVG, "vs &lt;minio &amp; co&gt;") {
		t.Error("ratio chart does not name the cell and the best other server")
	}
	for _, want := range []string{"servers.svg", "throughput.svg", "throughput-obj.svg", "latency.svg"} {
		if !names[want] {
			t.Errorf("no %s", want)
		}
	}
	if names["timeline.svg"] {
		t.Error("a timeline of 12 runs is too crowded to draw")
	}
	if svg, ok := Timeline(results()[:3]); !ok || !strings.Contains(svg, "jog mixed get=70,put=30 1KiB c4") {
		t.Error("no timeline for three runs")
	}
	svg, _ := Throughput(results(), false)
	for _, series := range []string{"jog mixed 1KiB", "jog mixed 1MiB", "&lt;minio &amp; co&gt; mixed 1MiB"} {
		if !strings.Contains(svg, series) {
			t.Errorf("throughput chart lacks series %q", series)
		}
	}
}

// A cell far ahead of the rest is cut at the top of the axis and keeps its
// value label, so the cells near parity stay readable.
func TestRatiosCutFarAheadCell(t *testing.T) {
	rs := results()
	rs[0].Total.ObjPerSec *= 8 // jog's first cell: 1.25 × 8 = 10×
	svg, ok := Ratios(rs, "jog")
	if !ok {
		t.Fatal("no ratio chart")
	}
	wellFormed(t, "ratios", svg)
	if !strings.Contains(svg, ">10.0<") {
		t.Error("the cut bar lost its value label")
	}
	if !strings.Contains(svg, ">3×<") || strings.Contains(svg, ">5×<") {
		t.Errorf("the y axis does not stop at %v", ratioAxisMax)
	}
	if n := strings.Count(svg, ">1.25<"); n != 5 {
		t.Errorf("%d bars labelled 1.25, want 5", n)
	}
}

func TestSingleResultHasNoSweepChart(t *testing.T) {
	rs := results()[:1]
	if _, ok := Throughput(rs, false); ok {
		t.Error("one result made a throughput-vs-concurrency chart")
	}
	if _, ok := Ratios(rs, "jog"); ok {
		t.Error("one server made a ratio chart")
	}
	for _, f := range Figures(rs, "jog") {
		wellFormed(t, f.File, f.SVG)
	}
	// Degenerate inputs still make valid charts.
	wellFormed(t, "empty bars", Chart{Title: "x"}.Bars(nil, nil))
	wellFormed(t, "zero line", Chart{Title: "x"}.Line([]Series{{Name: "z", X: []float64{1}, Y: []float64{0}}}))
}

func TestWriteDirHTML(t *testing.T) {
	dir := t.TempDir()
	paths, err := WriteDir(dir, "JOG vs <others>", results(), "jog")
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(paths[len(paths)-1]) != "index.html" {
		t.Fatalf("paths %v", paths)
	}
	for _, p := range paths[:len(paths)-1] {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		wellFormed(t, p, string(b))
	}
	page, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	for _, want := range []string{"<!DOCTYPE html>", "JOG vs &lt;others&gt;", "jog", "&lt;minio &amp; co&gt;", "mixed get=70,put=30 1MiB c16", "<svg", "| Server |"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("index.html lacks %q", want)
		}
	}
	for _, external := range []string{"<script", "src=\"http", "href=\"http"} {
		if bytes.Contains(page, []byte(external)) {
			t.Errorf("index.html is not self-contained: %s", external)
		}
	}
}

func TestQoSChartsPerDirection(t *testing.T) {
	rs := []QoSRecord{
		{Direction: "upload", Client: "r1", ReservedBps: 41.7e6, AchievedBps: 44.3e6},
		{Direction: "upload", Client: "be1", AchievedBps: 25e6},
		{Direction: "download", Client: "r1", ReservedBps: 83.3e6, AchievedBps: 86.8e6},
	}
	figs := QoS("qos", rs)
	if len(figs) != 2 || figs[0].File != "qos-upload.svg" || figs[1].File != "qos-download.svg" {
		t.Fatalf("figures %+v", figs)
	}
	for _, f := range figs {
		wellFormed(t, f.File, f.SVG)
	}
	if !strings.Contains(figs[0].SVG, "be1") || strings.Contains(figs[1].SVG, "be1") {
		t.Error("each direction's chart has its own clients")
	}
}
