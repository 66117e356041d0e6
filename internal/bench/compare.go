package bench

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// WriteCompare prints results as a markdown table, fastest first, like a
// warp comparison report: server, workload, size, concurrency, MiB/s, obj/s,
// p50 and p99 latency, errors.
func WriteCompare(w io.Writer, results []*Result) {
	rs := slices.Clone(results)
	slices.SortStableFunc(rs, func(a, b *Result) int {
		switch {
		case a.Total.MiBPerSec > b.Total.MiBPerSec:
			return -1
		case a.Total.MiBPerSec < b.Total.MiBPerSec:
			return 1
		}
		return 0
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
