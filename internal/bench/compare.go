package bench

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// WriteCompare prints results as a markdown table like a warp comparison
// report: server, workload, size, concurrency, MiB/s, obj/s, p50 and p99
// latency, errors. Rows are grouped by workload cell (workload, size,
// concurrency) and fastest first within a cell. Repeated runs of a server
// in a cell are shown once, as their median (Medians), with a Runs column
// giving their count and spread.
func WriteCompare(w io.Writer, results []*Result) {
	rs := Medians(results)
	slices.SortStableFunc(rs, func(a, b *Result) int {
		return cmp.Or(compareCells(a, b), cmp.Compare(b.Total.MiBPerSec, a.Total.MiBPerSec))
	})
	repeats := slices.ContainsFunc(rs, func(r *Result) bool { return r.Repeats != nil })
	cpu := slices.ContainsFunc(rs, func(r *Result) bool { return r.MachineCPU > 0 || r.ServerCPU > 0 })
	head, rule := "| Server | Workload | Size | Concurrency | MiB/s | obj/s | p50 ms | p99 ms | Errors |", "|---|---|---:|---:|---:|---:|---:|---:|---:|"
	if repeats {
		head, rule = head+" Runs |", rule+"---:|"
	}
	if cpu {
		head, rule = head+" CPU ms/op: server · machine |", rule+"---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, r := range rs {
		t := r.Total
		fmt.Fprintf(w, "| %s | %s | %v | %d | %.1f | %.1f | %.2f | %.2f | %s |",
			mdEscape(r.Name()), mdEscape(workloadName(r)), r.Config.Size, r.Config.Concurrency,
			t.MiBPerSec, t.ObjPerSec, t.Latency.P50, t.Latency.P99, mdEscape(FormatErrors(r.Errors)))
		if repeats {
			fmt.Fprintf(w, " %s |", runsCell(r))
		}
		if cpu {
			fmt.Fprintf(w, " %s |", r.CPUCell())
		}
		fmt.Fprintln(w)
	}
}

// Ratio compares a baseline server with the others in one workload cell.
type Ratio struct {
	Base   *Result // the baseline's result
	Best   *Result // the other server with the most obj/s
	LowP99 *Result // the other server with the lowest p99 latency
}

// Value is the baseline's obj/s over the best other server's (NaN when
// that server did nothing).
func (r Ratio) Value() float64 {
	if r.Best.Total.ObjPerSec <= 0 {
		return math.NaN()
	}
	return r.Base.Total.ObjPerSec / r.Best.Total.ObjPerSec
}

// Ratios returns, in cell order, a Ratio for every workload cell the
// baseline server ran in with at least one other server. rs holds one
// result per server and cell (see Medians).
func Ratios(rs []*Result, baseline string) []Ratio {
	rs = slices.Clone(rs)
	slices.SortStableFunc(rs, compareCells)
	var out []Ratio
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && compareCells(rs[i], rs[j]) == 0 {
			j++
		}
		var r Ratio
		for _, x := range rs[i:j] {
			switch {
			case x.Name() == baseline:
				r.Base = x
			default:
				if r.Best == nil || x.Total.ObjPerSec > r.Best.Total.ObjPerSec {
					r.Best = x
				}
				if r.LowP99 == nil || x.Total.Latency.P99 < r.LowP99.Total.Latency.P99 {
					r.LowP99 = x
				}
			}
		}
		if r.Base != nil && r.Best != nil {
			out = append(out, r)
		}
		i = j
	}
	return out
}

// CellName names a result's workload cell: "put 64KiB c16".
func CellName(r *Result) string {
	return fmt.Sprintf("%s %v c%d", workloadName(r), r.Config.Size, r.Config.Concurrency)
}

// WriteRatios prints, for every workload cell the baseline server ran in
// with at least one other server, the baseline's obj/s against the best
// other server's, their ratio, and the baseline's p99 latency against the
// lowest p99 among the others. Repeats are collapsed to medians first.
func WriteRatios(w io.Writer, results []*Result, baseline string) {
	rs := Medians(results)
	cpu := slices.ContainsFunc(rs, func(r *Result) bool { return r.ServerCPU > 0 })
	head, rule := fmt.Sprintf("| Workload | Size | Concurrency | %s obj/s | best peer | peer obj/s | ratio | %s p99 ms | lowest peer p99 ms |", mdEscape(baseline), mdEscape(baseline)), "|---|---:|---:|---:|---|---:|---:|---:|---:|"
	if cpu {
		head, rule = head+fmt.Sprintf(" server CPU ms/op: %s · best peer |", mdEscape(baseline)), rule+"---:|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, r := range Ratios(rs, baseline) {
		base, best := r.Base, r.Best
		ratio := "—"
		if v := r.Value(); !math.IsNaN(v) {
			ratio = fmt.Sprintf("%.2f", v)
		}
		fmt.Fprintf(w, "| %s | %v | %d | %.1f | %s | %.1f | %s | %.2f | %.2f (%s) |",
			mdEscape(workloadName(base)), base.Config.Size, base.Config.Concurrency,
			base.Total.ObjPerSec, mdEscape(best.Name()), best.Total.ObjPerSec, ratio,
			base.Total.Latency.P99, r.LowP99.Total.Latency.P99, mdEscape(r.LowP99.Name()))
		if cpu {
			fmt.Fprintf(w, " %s · %s |", FormatCPUPerOp(base.CPUPerOp(base.ServerCPU)), FormatCPUPerOp(best.CPUPerOp(best.ServerCPU)))
		}
		fmt.Fprintln(w)
	}
}

// compareCells orders results by workload cell: workload, size, concurrency.
func compareCells(a, b *Result) int {
	return cmp.Or(
		cmp.Compare(workloadName(a), workloadName(b)),
		cmp.Compare(a.Config.Size.Min, b.Config.Size.Min),
		cmp.Compare(a.Config.Size.Max, b.Config.Size.Max),
		cmp.Compare(a.Config.Concurrency, b.Config.Concurrency),
	)
}

func runsCell(r *Result) string {
	if r.Repeats == nil {
		return "1"
	}
	return fmt.Sprintf("%d (±%.0f%%)", r.Repeats.Runs, 50*r.Repeats.Spread(r.Total.ObjPerSec))
}

// CPUCell is the server's and the machine's CPU per operation, in ms,
// "1.204 · 1.613", with a dash for a reading the run does not have.
func (r *Result) CPUCell() string {
	return FormatCPUPerOp(r.CPUPerOp(r.ServerCPU)) + " · " + FormatCPUPerOp(r.CPUPerOp(r.MachineCPU))
}

// FormatCPUPerOp renders a CPU time per operation in ms, or a dash when
// not measured.
func FormatCPUPerOp(ms float64) string {
	if ms <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", ms)
}

// workloadName names a result's workload, with its traffic shape when that
// is not jog bench's default one: "put (keys warp, signing streaming)".
func workloadName(r *Result) string {
	return baseWorkloadName(r) + TrafficShape(r.Config)
}

func baseWorkloadName(r *Result) string {
	if r.Workload == "mixed" {
		return "mixed " + r.Config.Mix.String()
	}
	if r.Workload == "list" && r.Config.ListPrefixes > 0 {
		return fmt.Sprintf("list with delimiter over %d prefixes", r.Config.ListPrefixes)
	}
	if r.Workload == "get" && r.Config.RangeSize > 0 {
		return fmt.Sprintf("get in %s ranges ×%d", FormatSize(r.Config.RangeSize), r.Config.PartConcurrency)
	}
	return r.Workload
}

// TrafficShape is " (keys K, signing S)" for the parts of c's traffic shape
// that are not the defaults, "" when both are (results written before the
// shapes existed have neither).
func TrafficShape(c Config) string {
	var parts []string
	if c.Keys != "" && c.Keys != KeysSeq {
		parts = append(parts, "keys "+c.Keys)
	}
	if c.Signing != "" && c.Signing != SigningUnsigned {
		parts = append(parts, "signing "+c.Signing)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
