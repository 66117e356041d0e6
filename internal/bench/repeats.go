package bench

import (
	"cmp"
	"fmt"
	"slices"
)

// Repeats describes the runs a median result stands for.
type Repeats struct {
	Runs   int     `json:"runs"`
	MinObj float64 `json:"min_obj_per_sec"`
	MaxObj float64 `json:"max_obj_per_sec"`
}

// Spread is (max − min) ÷ median obj/s: how far apart the repeated runs were.
func (r *Repeats) Spread(median float64) float64 {
	if r == nil || median == 0 {
		return 0
	}
	return (r.MaxObj - r.MinObj) / median
}

// cellKey identifies a workload cell of one server: results with the same
// key are repeats of one measurement.
func cellKey(r *Result) string {
	return fmt.Sprintf("%s\x00%s\x00%d-%d\x00%d\x00%d\x00%d\x00%g-%g",
		r.Name(), workloadName(r), r.Config.Size.Min, r.Config.Size.Max, r.Config.Concurrency,
		r.Config.PartConcurrency, r.Config.RangeSize+int64(r.Config.ListPrefixes), r.Config.Rate, r.Config.RateTo)
}

// Medians collapses repeated runs of the same server and workload cell into
// the run with the median obj/s (the lower middle one for an even count),
// with Repeats saying how many runs there were and their range. Results
// without repeats are returned as they are; order follows first appearance.
func Medians(results []*Result) []*Result {
	groups := map[string][]*Result{}
	var order []string
	for _, r := range results {
		k := cellKey(r)
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], r)
	}
	out := make([]*Result, 0, len(order))
	for _, k := range order {
		g := groups[k]
		if len(g) == 1 {
			out = append(out, g[0])
			continue
		}
		g = slices.Clone(g)
		slices.SortStableFunc(g, func(a, b *Result) int { return cmp.Compare(a.Total.ObjPerSec, b.Total.ObjPerSec) })
		m := *g[(len(g)-1)/2]
		m.Repeats = &Repeats{Runs: len(g), MinObj: g[0].Total.ObjPerSec, MaxObj: g[len(g)-1].Total.ObjPerSec}
		out = append(out, &m)
	}
	return out
}
