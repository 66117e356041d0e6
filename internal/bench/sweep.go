package bench

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Grid is a sweep: every concurrency with every object size.
type Grid struct {
	Concurrency []int
	Sizes       []SizeRange
}

// ParseInts parses "1,4,16,64".
func ParseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid number %q", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// ParseSizes parses "1KiB,64KiB,1MiB" (each may be a range).
func ParseSizes(s string) ([]SizeRange, error) {
	var out []SizeRange
	for f := range strings.SplitSeq(s, ",") {
		r, err := ParseSizeRange(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// MaxConcurrency is the largest concurrency in g.
func (g Grid) MaxConcurrency() int {
	m := 1
	for _, c := range g.Concurrency {
		m = max(m, c)
	}
	return m
}

// Sweep runs base once per cell of g, size by size, concurrency by
// concurrency, calling each with every result as it comes. It stops at the
// first failed cell.
func (b *Bench) Sweep(ctx context.Context, base Config, g Grid, each func(*Result)) ([]*Result, error) {
	var out []*Result
	for _, size := range g.Sizes {
		for _, c := range g.Concurrency {
			cfg := base
			cfg.Size, cfg.Concurrency = size, c
			r, err := b.Run(ctx, cfg)
			if r != nil {
				out = append(out, r)
				if each != nil {
					each(r)
				}
			}
			if err != nil && len(g.Sizes)*len(g.Concurrency) > 1 {
				return out, fmt.Errorf("sweep cell %v × %d: %w", size, c, err)
			}
			if err != nil {
				return out, err
			}
		}
	}
	return out, nil
}
