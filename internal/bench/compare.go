package bench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteCompare prints results as a markdown table like a warp comparison
// report: server, workload, size, concurrency, MiB/s, obj/s, p50 and p99
// latency, errors. Rows are grouped by workload cell (workload, size,
// concurrency) and fastest first within a cell.
func WriteCompare(w io.Writer, results []*Result) {
	rs := slices.Clone(results)
	slices.SortStableFunc(rs, func(a, b *Result) int {
		return cmp.Or(
			cmp.Compare(workloadName(a), workloadName(b)),
			cmp.Compare(a.Config.Size.Min, b.Config.Size.Min),
			cmp.Compare(a.Config.Size.Max, b.Config.Size.Max),
			cmp.Compare(a.Config.Concurrency, b.Config.Concurrency),
			cmp.Compare(b.Total.MiBPerSec, a.Total.MiBPerSec),
		)
	})
	fmt.Fprintln(w, "| Server | Workload | Size | Concurrency | MiB/s | obj/s | p50 ms | p99 ms | Errors |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range rs {
		t := r.Total
		fmt.Fprintf(w, "| %s | %s | %v | %d | %.1f | %.1f | %.2f | %.2f | %s |\n",
			mdEscape(r.Name()), mdEscape(workloadName(r)), r.Config.Size, r.Config.Concurrency,
			t.MiBPerSec, t.ObjPerSec, t.Latency.P50, t.Latency.P99, mdEscape(FormatErrors(r.Errors)))
	}
}

func workloadName(r *Result) string {
	if r.Workload == "mixed" {
		return "mixed " + r.Config.Mix.String()
	}
	return r.Workload
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
