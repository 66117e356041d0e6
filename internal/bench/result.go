package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"
)

// ResultFormat names the JSON result file format.
const ResultFormat = "jog-bench/1"

// File is a JSON result file: one result per run, one per cell of a sweep.
type File struct {
	Format  string    `json:"format"`
	Results []*Result `json:"results"`
}

// Result is one measured run.
type Result struct {
	Tool     string    `json:"tool"`
	Version  string    `json:"version"`
	Label    string    `json:"label"` // the server's name in reports
	Endpoint string    `json:"endpoint"`
	Workload string    `json:"workload"`
	Config   Config    `json:"config"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Seconds  float64   `json:"seconds"` // measured time, prepare and cleanup excluded
	Machine  Machine   `json:"machine"`
	// ClientCPU is the CPU the bench process used while measuring, in
	// cores (CPU seconds per second). Near Machine.Cores, the client (or
	// a server on the same machine) may be what limits the result.
	ClientCPU float64 `json:"client_cpu_cores"`
	// ServerCPU is the CPU the server process used while measuring, in
	// cores, when its PID was given (--server-pid; Linux).
	ServerCPU float64 `json:"server_cpu_cores,omitempty"`
	// MachineCPU is how busy the whole machine was while measuring, in
	// cores (Linux): client, server and anything else running.
	MachineCPU float64 `json:"machine_cpu_cores,omitempty"`

	Total        OpResult         `json:"total"` // every operation but PART
	Ops          []OpResult       `json:"ops"`
	Errors       map[string]int64 `json:"errors"` // by S3 error code (or client failure kind)
	ErrorSamples []string         `json:"error_samples,omitempty"`
	Queue        *QueueResult     `json:"queue,omitempty"` // rate mode only
	Timeline     []Tick           `json:"timeline,omitempty"`
	// Repeats is set on a result that stands for several runs (Medians).
	Repeats *Repeats `json:"repeats,omitempty"`
}

// OpResult is the throughput and latency of one operation kind.
type OpResult struct {
	Op        string           `json:"op"`
	Count     int64            `json:"count"` // successful operations
	Errors    int64            `json:"errors"`
	Bytes     int64            `json:"bytes"`
	Entries   int64            `json:"entries,omitempty"` // listings: keys, prefixes, versions and delete markers listed
	ObjPerSec float64          `json:"obj_per_sec"`
	MiBPerSec float64          `json:"mib_per_sec"`
	Latency   Percentiles      `json:"latency"`
	TTFB      *Percentiles     `json:"ttfb,omitempty"` // GET: time to first byte
	ErrorsBy  map[string]int64 `json:"errors_by_code,omitempty"`
}

// QueueResult says whether the server kept up with a target rate.
type QueueResult struct {
	TargetRate   float64     `json:"target_rate"`
	TargetRateTo float64     `json:"target_rate_to,omitempty"` // ramp end
	Achieved     float64     `json:"achieved_rate"`
	ThresholdMs  float64     `json:"threshold_ms"`
	Late         int64       `json:"late"` // requests started more than the threshold late
	Onset        *QueueOnset `json:"onset,omitempty"`
	Delay        Percentiles `json:"delay"` // how late requests started
}

// Tick is one progress interval.
type Tick struct {
	Second float64 `json:"t"` // end of the interval, from the start
	Ops    int64   `json:"ops"`
	Bytes  int64   `json:"bytes"`
	Errors int64   `json:"errors"`
}

// Machine describes where the client ran.
type Machine struct {
	Cores     int    `json:"cores"`
	GOOS      string `json:"goos"`
	GOARCH    string `json:"goarch"`
	GoVersion string `json:"go_version"`
	Hostname  string `json:"hostname,omitempty"`
}

func thisMachine() Machine {
	h, _ := os.Hostname()
	return Machine{runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version(), h}
}

// Op returns the result of the named operation, or nil.
func (r *Result) Op(name string) *OpResult {
	for i := range r.Ops {
		if r.Ops[i].Op == name {
			return &r.Ops[i]
		}
	}
	return nil
}

// Name labels r in reports: its label, or its endpoint.
func (r *Result) Name() string {
	if r.Label != "" {
		return r.Label
	}
	return r.Endpoint
}

// WriteFile writes results as a JSON result file.
func WriteFile(path string, results ...*Result) error {
	b, err := json.MarshalIndent(File{Format: ResultFormat, Results: results}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// ReadFiles reads result files, in order.
func ReadFiles(paths ...string) ([]*Result, error) {
	var all []*Result
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var f File
		if err := json.Unmarshal(b, &f); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		if f.Format != ResultFormat {
			return nil, fmt.Errorf("%s: not a jog bench result file (format %q)", p, f.Format)
		}
		all = append(all, f.Results...)
	}
	return all, nil
}

// buildResult merges the workers' statistics.
func buildResult(workers []*Worker, start, end time.Time) *Result {
	secs := end.Sub(start).Seconds()
	r := &Result{Tool: "jog bench", Start: start, End: end, Seconds: secs, Machine: thisMachine(), Errors: map[string]int64{}}
	var total opStats
	total.codes = map[string]int64{}
	for op := range numOps {
		var s opStats
		s.codes = map[string]int64{}
		for _, w := range workers {
			if ws := w.stats[op]; ws != nil {
				mergeStats(&s, ws)
			}
		}
		if s.ops+s.errs == 0 {
			continue
		}
		r.Ops = append(r.Ops, opResult(op.String(), &s, secs, op == OpGet))
		if op != OpPart {
			mergeStats(&total, &s)
		}
		for c, n := range s.codes {
			r.Errors[c] += n
		}
	}
	r.Total = opResult("TOTAL", &total, secs, false)
	r.Total.ErrorsBy = nil
	for _, w := range workers {
		for _, e := range w.errSamples {
			if len(r.ErrorSamples) < 10 && !slices.Contains(r.ErrorSamples, e) {
				r.ErrorSamples = append(r.ErrorSamples, e)
			}
		}
	}
	return r
}

func mergeStats(dst, src *opStats) {
	dst.lat.Merge(&src.lat)
	dst.ttfb.Merge(&src.ttfb)
	dst.ops += src.ops
	dst.errs += src.errs
	dst.nbytes += src.nbytes
	dst.entries += src.entries
	for c, n := range src.codes {
		dst.codes[c] += n
	}
}

func opResult(name string, s *opStats, secs float64, ttfb bool) OpResult {
	o := OpResult{Op: name, Count: s.ops, Errors: s.errs, Bytes: s.nbytes, Entries: s.entries, Latency: s.lat.Summary(), ErrorsBy: s.codes}
	if len(o.ErrorsBy) == 0 {
		o.ErrorsBy = nil
	}
	if secs > 0 {
		o.ObjPerSec = float64(s.ops) / secs
		o.MiBPerSec = float64(s.nbytes) / secs / (1 << 20)
	}
	if ttfb {
		p := s.ttfb.Summary()
		o.TTFB = &p
	}
	return o
}
