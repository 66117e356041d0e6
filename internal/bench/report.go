package bench

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteReport prints r as a text report: throughput and latency per
// operation, time to first byte for GET, errors by code, and the rate
// schedule's verdict in rate mode.
func WriteReport(w io.Writer, r *Result) {
	c := r.Config
	fmt.Fprintf(w, "\n%s  %s  %v objects  concurrency %d  %.1fs", r.Name(), r.Workload, c.Size, c.Concurrency, r.Seconds)
	if r.Workload == "mixed" {
		fmt.Fprintf(w, "  mix %s", c.Mix)
	}
	fmt.Fprintf(w, "  keys %s  signing %s", cmp.Or(c.Keys, KeysSeq), cmp.Or(c.Signing, SigningUnsigned))
	fmt.Fprintf(w, "\n  endpoint %s, client %s/%s, %d cores, used %.2f cores\n", r.Endpoint, r.Machine.GOOS, r.Machine.GOARCH, r.Machine.Cores, r.ClientCPU)
	if line := cpuLine(r); line != "" {
		fmt.Fprintf(w, "  %s\n", line)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\tcount\terrors\tobj/s\tMiB/s\tmean ms\tp50 ms\tp90 ms\tp99 ms\tp99.9 ms\tmax ms\t")
	rows := append(slices.Clone(r.Ops), r.Total)
	for _, o := range rows {
		l := o.Latency
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n",
			o.Op, o.Count, o.Errors, o.ObjPerSec, o.MiBPerSec, l.Mean, l.P50, l.P90, l.P99, l.P999, l.Max)
	}
	for _, o := range r.Ops {
		if t := o.TTFB; t != nil && o.Count > 0 {
			fmt.Fprintf(tw, "%s TTFB\t\t\t\t\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t\n", o.Op, t.Mean, t.P50, t.P90, t.P99, t.P999, t.Max)
		}
	}
	tw.Flush()
	sep := "\n"
	for _, o := range r.Ops {
		if o.Entries > 0 && r.Seconds > 0 {
			fmt.Fprintf(w, "%s%s: %d entries listed, %.0f per second, %.1f per page\n", sep, o.Op, o.Entries, float64(o.Entries)/r.Seconds, float64(o.Entries)/float64(o.Count))
			sep = ""
		}
	}
	if len(r.Errors) > 0 {
		fmt.Fprintf(w, "\nerrors by code: %s\n", FormatErrors(r.Errors))
		for _, s := range r.ErrorSamples {
			fmt.Fprintf(w, "  e.g. %s\n", s)
		}
	}
	if q := r.Queue; q != nil {
		target := fmt.Sprintf("%.0f req/s", q.TargetRate)
		if q.TargetRateTo > 0 {
			target = fmt.Sprintf("%.0f→%.0f req/s", q.TargetRate, q.TargetRateTo)
		}
		fmt.Fprintf(w, "\nrate: target %s, achieved %.1f req/s; start delay p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
			target, q.Achieved, q.Delay.P50, q.Delay.P99, q.Delay.Max)
		if q.Onset != nil {
			fmt.Fprintf(w, "rate: requests began to queue at %.1fs, target %.0f req/s (%d started over %.0f ms late)\n",
				q.Onset.Elapsed, q.Onset.TargetRate, q.Late, q.ThresholdMs)
		} else {
			fmt.Fprintf(w, "rate: no request started over %.0f ms late: the server kept up\n", q.ThresholdMs)
		}
	}
}

// cpuLine says what an operation cost in CPU, from the readings a run has:
// "CPU ms per op: server 1.204, client 0.352, machine 1.598 (busy 1.95
// cores)". Empty without a server or machine reading.
func cpuLine(r *Result) string {
	if r.ServerCPU <= 0 && r.MachineCPU <= 0 {
		return ""
	}
	parts := []string{}
	if r.ServerCPU > 0 {
		parts = append(parts, fmt.Sprintf("server %.3f", r.CPUPerOp(r.ServerCPU)))
	}
	parts = append(parts, fmt.Sprintf("client %.3f", r.CPUPerOp(r.ClientCPU)))
	if r.MachineCPU > 0 {
		parts = append(parts, fmt.Sprintf("machine %.3f (busy %.2f cores)", r.CPUPerOp(r.MachineCPU), r.MachineCPU))
	}
	return "CPU ms per op: " + strings.Join(parts, ", ")
}

// FormatErrors renders error counts as "NoSuchKey 3, SlowDown 10", largest
// first; "0" when there are none.
func FormatErrors(m map[string]int64) string {
	if len(m) == 0 {
		return "0"
	}
	codes := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(codes, func(a, b string) int { return int(m[b] - m[a]) })
	parts := make([]string, len(codes))
	for i, c := range codes {
		parts[i] = fmt.Sprintf("%s %d", c, m[c])
	}
	return strings.Join(parts, ", ")
}
