package render

import (
	"fmt"
	"slices"

	"github.com/jogstore/jog/internal/bench"
)

// summaryColumn is one column of the report's summary table: its heading
// (with its unit), whether it is text (left-aligned), and its cell.
type summaryColumn struct {
	Head string
	Text bool
	cell func(r *bench.Result) string
}

// summaryTable is the summary table's headings and rows, one per result.
type summaryTable struct {
	Columns []summaryColumn
	Rows    [][]string
}

// summary builds the summary table. The client's machine and the CPU the
// bench client used are always given; the server's CPU (--server-pid)
// and the machine's per operation only when some result measured them,
// each in a column of its own, so no heading stands over another's
// figure.
func summary(rs []*bench.Result) summaryTable {
	cols := []summaryColumn{
		{Head: "Server", Text: true, cell: (*bench.Result).Name},
		{Head: "Workload", Text: true, cell: bench.CellName},
		{Head: "MiB/s", cell: func(r *bench.Result) string { return short(r.Total.MiBPerSec) }},
		{Head: "obj/s", cell: func(r *bench.Result) string { return short(r.Total.ObjPerSec) }},
		{Head: "p50 ms", cell: func(r *bench.Result) string { return short(r.Total.Latency.P50) }},
		{Head: "p99 ms", cell: func(r *bench.Result) string { return short(r.Total.Latency.P99) }},
		{Head: "Errors", cell: func(r *bench.Result) string { return bench.FormatErrors(r.Errors) }},
		{Head: "Duration s", cell: func(r *bench.Result) string { return short(r.Seconds) }},
		{Head: "Client machine", Text: true, cell: func(r *bench.Result) string {
			return fmt.Sprintf("%s/%s, %d cores", r.Machine.GOOS, r.Machine.GOARCH, r.Machine.Cores)
		}},
		{Head: "Client CPU cores", cell: func(r *bench.Result) string { return cores(r.ClientCPU) }},
	}
	if slices.ContainsFunc(rs, func(r *bench.Result) bool { return r.ServerCPU > 0 }) {
		cols = append(cols,
			summaryColumn{Head: "Server CPU cores", cell: func(r *bench.Result) string { return cores(r.ServerCPU) }},
			summaryColumn{Head: "Server CPU ms/op", cell: func(r *bench.Result) string { return bench.FormatCPUPerOp(r.CPUPerOp(r.ServerCPU)) }})
	}
	if slices.ContainsFunc(rs, func(r *bench.Result) bool { return r.MachineCPU > 0 }) {
		cols = append(cols, summaryColumn{Head: "Machine CPU ms/op", cell: func(r *bench.Result) string { return bench.FormatCPUPerOp(r.CPUPerOp(r.MachineCPU)) }})
	}
	t := summaryTable{Columns: cols}
	for _, r := range rs {
		row := make([]string, len(cols))
		for i, c := range cols {
			row[i] = c.cell(r)
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// cores renders a CPU reading in cores, or a dash when not measured.
func cores(v float64) string {
	if v <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.2f", v)
}
