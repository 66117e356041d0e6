package render

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/jogstore/jog/internal/bench"
)

// uniqueNames labels each result by server name, adding its cell when two
// results share a name.
func uniqueNames(rs []*bench.Result) []string {
	count := map[string]int{}
	for _, r := range rs {
		count[r.Name()]++
	}
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Name()
		if count[r.Name()] > 1 {
			out[i] += " " + bench.CellName(r)
		}
	}
	return out
}

// Throughput draws total throughput against concurrency, one line per
// server and object size, from sweep results. ok is false when no line has
// two points. perObject selects obj/s instead of MiB/s.
func Throughput(rs []*bench.Result, perObject bool) (svg string, ok bool) {
	var concs []int
	for _, r := range rs {
		if !slices.Contains(concs, r.Config.Concurrency) {
			concs = append(concs, r.Config.Concurrency)
		}
	}
	slices.Sort(concs)
	var series []Series
	index := map[string]int{}
	for _, r := range rs {
		name := fmt.Sprintf("%s %s %v%s", r.Name(), r.Workload, r.Config.Size, bench.TrafficShape(r.Config))
		i, seen := index[name]
		if !seen {
			i = len(series)
			index[name] = i
			series = append(series, Series{Name: name})
		}
		y := r.Total.MiBPerSec
		if perObject {
			y = r.Total.ObjPerSec
		}
		series[i].X = append(series[i].X, float64(slices.Index(concs, r.Config.Concurrency)))
		series[i].Y = append(series[i].Y, y)
	}
	// Only sweeps make lines: a result measured at one concurrency would
	// be a lone dot.
	series = slices.DeleteFunc(series, func(s Series) bool { return len(s.X) < 2 })
	ok = len(series) > 0
	for _, s := range series {
		sortByX(s)
	}
	ticks := make([]Tick, len(concs))
	for i, c := range concs {
		ticks[i] = Tick{float64(i), strconv.Itoa(c)}
	}
	c := Chart{Title: "Throughput vs concurrency (MiB/s)", XLabel: "concurrency", YLabel: "throughput", YUnit: "MiB/s", XTicks: ticks}
	if perObject {
		c.Title, c.YUnit = "Throughput vs concurrency (objects/s)", "obj/s"
	}
	return c.Line(series), ok
}

func sortByX(s Series) {
	idx := make([]int, len(s.X))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(s.X[a] - s.X[b]) })
	x, y := slices.Clone(s.X), slices.Clone(s.Y)
	for i, j := range idx {
		s.X[i], s.Y[i] = x[j], y[j]
	}
}

// maxLatencyGroups bounds the latency chart; more results make it
// unreadable (the HTML tables still list them all).
const maxLatencyGroups = 16

// Latency draws p50/p90/p99/p99.9 per server and operation, in ms.
func Latency(rs []*bench.Result) string {
	names := uniqueNames(rs)
	var groups []string
	series := []Series{{Name: "p50"}, {Name: "p90"}, {Name: "p99"}, {Name: "p99.9"}}
	for i, r := range rs {
		for _, o := range r.Ops {
			if o.Count == 0 || len(groups) == maxLatencyGroups {
				continue
			}
			groups = append(groups, names[i]+" "+o.Op)
			l := o.Latency
			for j, v := range []float64{l.P50, l.P90, l.P99, l.P999} {
				series[j].Y = append(series[j].Y, v)
			}
		}
	}
	return Chart{Title: "Latency percentiles (ms)", XLabel: "server and operation", YLabel: "latency", YUnit: "ms"}.Bars(groups, series)
}

// Servers draws servers side by side: one group per workload cell, one bar
// per server, total MiB/s (or obj/s).
func Servers(rs []*bench.Result, perObject bool) string {
	var cells, servers []string
	for _, r := range rs {
		if !slices.Contains(cells, bench.CellName(r)) {
			cells = append(cells, bench.CellName(r))
		}
		if !slices.Contains(servers, r.Name()) {
			servers = append(servers, r.Name())
		}
	}
	series := make([]Series, len(servers))
	for i, s := range servers {
		series[i] = Series{Name: s, Y: make([]float64, len(cells))}
		for j := range cells {
			series[i].Y[j] = nan
		}
	}
	for _, r := range rs {
		y := r.Total.MiBPerSec
		if perObject {
			y = r.Total.ObjPerSec
		}
		series[slices.Index(servers, r.Name())].Y[slices.Index(cells, bench.CellName(r))] = y
	}
	// Wide enough for every bar to stay a few pixels wide.
	width := max(820, 90+len(cells)*(len(servers)*10+30))
	c := Chart{Title: "Throughput by server (MiB/s)", XLabel: "workload", YLabel: "throughput", YUnit: "MiB/s", Width: width}
	if perObject {
		c.Title, c.YUnit = "Throughput by server (objects/s)", "obj/s"
	}
	return c.Bars(cells, series)
}

// maxTimelineRuns bounds the timeline chart: more lines are unreadable.
const maxTimelineRuns = 10

// Timeline draws operations per second over each run.
func Timeline(rs []*bench.Result) (svg string, ok bool) {
	names := uniqueNames(rs)
	var series []Series
	for i, r := range rs {
		s := Series{Name: names[i]}
		prev := 0.0
		for _, t := range r.Timeline {
			if d := t.Second - prev; d >= 0.5 {
				s.X = append(s.X, t.Second)
				s.Y = append(s.Y, float64(t.Ops)/d)
			}
			prev = t.Second
		}
		if len(s.X) > 1 {
			series = append(series, s)
		}
	}
	if len(series) == 0 || len(series) > maxTimelineRuns {
		return "", false
	}
	return Chart{Title: "Operations per second over the run", XLabel: "time into the run", XUnit: "s", YLabel: "throughput", YUnit: "ops/s"}.Line(series), true
}

// ratioAxisMax is where the ratio chart's axis stops when a cell is far
// ahead of the others.
const ratioAxisMax = 3

// Ratios draws the baseline server's obj/s over the best other server's,
// one bar per workload cell, with parity marked. ok is false when no cell
// has the baseline and another server.
func Ratios(rs []*bench.Result, baseline string) (svg string, ok bool) {
	var groups []string
	s := Series{Name: baseline + " ÷ best other server"}
	for _, r := range bench.Ratios(rs, baseline) {
		groups = append(groups, bench.CellName(r.Base)+" vs "+r.Best.Name())
		s.Y = append(s.Y, r.Value())
	}
	if len(groups) == 0 {
		return "", false
	}
	width := max(820, 90+len(groups)*40)
	c := Chart{Title: baseline + "'s throughput over the best other server's, per cell", XLabel: "workload cell and best other server",
		YLabel: "ratio of obj/s", YUnit: "×", Width: width, Height: 540, Refs: []RefLine{{Y: 1, Label: "parity"}}}
	// One far-ahead cell (listing is often 5–10×) would flatten the rest
	// near parity, where the reading matters: cut such bars at ratioAxisMax.
	if maxY([]Series{s}) > ratioAxisMax*1.2 {
		c.YMax = ratioAxisMax
	}
	return c.Bars(groups, []Series{s}), true
}
