package bench

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func sampleResult(label string, mibs float64, errs map[string]int64) *Result {
	cfg := DefaultConfig()
	return &Result{
		Label: label, Workload: "mixed", Config: cfg, Seconds: 10, Errors: errs,
		Total: OpResult{Op: "TOTAL", MiBPerSec: mibs, ObjPerSec: mibs, Latency: Percentiles{P50: 1.5, P99: 12.25}},
		Ops:   []OpResult{{Op: "GET", Count: 7, MiBPerSec: mibs * 0.7}, {Op: "PUT", Count: 3, MiBPerSec: mibs * 0.3}},
	}
}

func TestWriteCompare(t *testing.T) {
	var b bytes.Buffer
	WriteCompare(&b, []*Result{
		sampleResult("minio", 380.5, nil),
		sampleResult("jog", 462, map[string]int64{"SlowDown": 2, "InternalError": 5}),
		sampleResult("a|b", 478.6, nil),
	})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"| Server | Workload | Size | Concurrency | MiB/s | obj/s | p50 ms | p99 ms | Errors |",
		"|---|---|---:|---:|---:|---:|---:|---:|---:|",
		`| a\|b | mixed get=70,put=30 | 1MiB | 16 | 478.6 | 478.6 | 1.50 | 12.25 | 0 |`,
		"| jog | mixed get=70,put=30 | 1MiB | 16 | 462.0 | 462.0 | 1.50 | 12.25 | InternalError 5, SlowDown 2 |",
		"| minio | mixed get=70,put=30 | 1MiB | 16 | 380.5 | 380.5 | 1.50 | 12.25 | 0 |",
	}
	if len(lines) != len(want) {
		t.Fatalf("got %d lines:\n%s", len(lines), b.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}

// With CPU readings, a column gives each server's CPU per operation and the
// whole machine's; a reading a run lacks is a dash.
func TestWriteCompareCPU(t *testing.T) {
	a, b := sampleResult("jog", 500, nil), sampleResult("versitygw", 400, nil)
	a.ServerCPU, a.MachineCPU = 0.6, 0.8 // 1.2 and 1.6 ms per op at 500 obj/s
	b.MachineCPU = 0.8
	var out bytes.Buffer
	WriteCompare(&out, []*Result{a, b})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if !strings.HasSuffix(lines[0], " CPU ms/op: server · machine |") {
		t.Errorf("header: %s", lines[0])
	}
	if !strings.HasSuffix(lines[2], " | 1.200 · 1.600 |") || !strings.HasSuffix(lines[3], " | — · 2.000 |") {
		t.Errorf("rows:\n%s\n%s", lines[2], lines[3])
	}
}

func TestResultFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	in := sampleResult("jog", 100, map[string]int64{"NoSuchKey": 1})
	if err := WriteFile(path, in, sampleResult("x", 1, nil)); err != nil {
		t.Fatal(err)
	}
	out, err := ReadFiles(path, path)
	if err != nil || len(out) != 4 {
		t.Fatalf("ReadFiles: %d results, %v", len(out), err)
	}
	if out[0].Label != "jog" || out[0].Errors["NoSuchKey"] != 1 || out[0].Op("GET").Count != 7 || out[0].Config.Mix.String() != "get=70,put=30" {
		t.Errorf("round trip lost data: %+v", out[0])
	}
	b, _ := json.Marshal(in.Config)
	if strings.Contains(string(b), "secret") || strings.Contains(string(b), "access_key") {
		t.Error("keys are written to the result file")
	}
	if _, err := ReadFiles(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("missing file accepted")
	}
}

func TestWriteReport(t *testing.T) {
	r := sampleResult("jog", 100, map[string]int64{"SlowDown": 2})
	r.Ops[0].TTFB = &Percentiles{P50: 0.5}
	r.Queue = &QueueResult{TargetRate: 500, Achieved: 400, ThresholdMs: 100, Late: 10, Onset: &QueueOnset{Elapsed: 3, TargetRate: 500}}
	var b bytes.Buffer
	WriteReport(&b, r)
	for _, want := range []string{"GET TTFB", "TOTAL", "errors by code: SlowDown 2", "began to queue at 3.0s", "p99.9 ms"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func cellResult(label string, size int64, conc int, obj, p99 float64) *Result {
	r := sampleResult(label, obj, nil)
	r.Workload = "put"
	r.Config.Size = SizeRange{size, size}
	r.Config.Concurrency = conc
	r.Total.ObjPerSec, r.Total.MiBPerSec = obj, obj*float64(size)/(1<<20)
	r.Total.Latency.P99 = p99
	return r
}

func TestMediansCollapsesRepeats(t *testing.T) {
	in := []*Result{
		cellResult("jog", 1024, 16, 300, 9),
		cellResult("jog", 1024, 16, 100, 30),
		cellResult("minio", 1024, 16, 50, 40),
		cellResult("jog", 1024, 16, 200, 20),
		cellResult("jog", 1024, 64, 400, 5), // another cell
		cellResult("jog", 1024, 16, 250, 15),
	}
	out := Medians(in)
	if len(out) != 3 {
		t.Fatalf("got %d results, want 3", len(out))
	}
	m := out[0]
	// Four runs 100, 200, 250, 300: the lower middle one is 200.
	if m.Total.ObjPerSec != 200 || m.Total.Latency.P99 != 20 || m.Repeats == nil || m.Repeats.Runs != 4 ||
		m.Repeats.MinObj != 100 || m.Repeats.MaxObj != 300 {
		t.Errorf("median = %+v, repeats %+v", m.Total, m.Repeats)
	}
	if in[3].Repeats != nil {
		t.Error("Medians modified its input")
	}
	if out[1].Name() != "minio" || out[1].Repeats != nil || out[2].Config.Concurrency != 64 {
		t.Errorf("order or singletons wrong: %s %+v %d", out[1].Name(), out[1].Repeats, out[2].Config.Concurrency)
	}
	var b bytes.Buffer
	WriteCompare(&b, in)
	if !strings.Contains(b.String(), "| Runs |") || !strings.Contains(b.String(), "| 200.0 | 1.50 | 20.00 | 0 | 4 (±50%) |") {
		t.Errorf("compare with repeats:\n%s", b.String())
	}
}

func TestWriteRatios(t *testing.T) {
	var b bytes.Buffer
	WriteRatios(&b, []*Result{
		cellResult("jog", 1024, 16, 300, 9),
		cellResult("minio", 1024, 16, 100, 4),
		cellResult("versitygw", 1024, 16, 200, 12),
		cellResult("jog", 1<<20, 16, 50, 30),  // no peer in this cell: no row
		cellResult("minio", 65536, 16, 10, 1), // no baseline: no row
	}, "jog")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"| Workload | Size | Concurrency | jog obj/s | best peer | peer obj/s | ratio | jog p99 ms | lowest peer p99 ms |",
		"|---|---:|---:|---:|---|---:|---:|---:|---:|",
		"| put | 1KiB | 16 | 300.0 | versitygw | 200.0 | 1.50 | 9.00 | 4.00 (minio) |",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", b.String(), strings.Join(want, "\n"))
	}

	// With server CPU readings, the baseline's and the best peer's CPU per
	// operation follow.
	jog, peer := cellResult("jog", 1024, 16, 300, 9), cellResult("versitygw", 1024, 16, 200, 12)
	jog.ServerCPU, peer.ServerCPU = 0.6, 0.5 // 2 and 2.5 ms per op
	b.Reset()
	WriteRatios(&b, []*Result{jog, peer}, "jog")
	lines = strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], " server CPU ms/op: jog · best peer |") || !strings.HasSuffix(lines[2], " | 2.000 · 2.500 |") {
		t.Errorf("ratios with CPU:\n%s", b.String())
	}
}

// TestCellNameTrafficShape keeps runs in other traffic shapes out of
// jog bench's own cells: a shape other than the default names its cell.
func TestCellNameTrafficShape(t *testing.T) {
	r := cellResult("jog", 1<<10, 16, 100, 1)
	plain := CellName(r)
	r.Config.Keys, r.Config.Signing = KeysSeq, SigningUnsigned
	if got := CellName(r); got != plain {
		t.Errorf("default shape: cell %q, want %q", got, plain)
	}
	r.Config.Keys, r.Config.Signing = KeysWarp, SigningStreaming
	if got, want := CellName(r), "put (keys warp, signing streaming) 1KiB c16"; got != want {
		t.Errorf("cell %q, want %q", got, want)
	}
	s := cellResult("jog", 1<<10, 16, 100, 1)
	s.Config.Signing = SigningTrailer
	if got := Medians([]*Result{r, s}); len(got) != 2 {
		t.Errorf("runs in two shapes collapsed into %d cells", len(got))
	}
}
