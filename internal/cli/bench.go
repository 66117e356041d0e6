package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/bench"
	"github.com/jogstore/jog/internal/bench/render"
)

const benchUsage = `Usage:
  jog bench <workload> [flags]   measure one workload: put, get, stat, delete, list, list-versions, multipart, mixed
  jog bench sweep [flags]        a grid of --concurrency × --sizes, one result per cell
  jog bench report [--out dir] [--baseline jog] result.json...   SVG charts and an HTML page
  jog bench report --qos [--out dir] qos.json   reserved against achieved per client (bench/qos.sh): a table, reservations below 95% flagged, and charts
  jog bench compare [--baseline jog] a.json b.json...   a markdown comparison table (or ratios against one server)
  jog bench selftest [--duration 10s]           the client's own ceiling, against a discarding endpoint

jog bench <workload> -h lists the flags. Works against any S3 endpoint.
Other clients' traffic: --keys seq|warp|warp-fresh|deep|flat names objects as
jog bench, MinIO warp, backup tools or one flat namespace do; --signing
unsigned|streaming|trailer|signed sends PUT bodies as UNSIGNED-PAYLOAD,
minio-go over http (signed aws-chunked), the AWS SDKs (aws-chunked with a
CRC-32 trailer) or s3cmd/boto3 over http (SHA-256 of the body) do.
`

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || slices.Contains([]string{"-h", "--help", "help"}, args[0]) {
		fmt.Fprint(stdout, benchUsage)
		return 0
	}
	sub := args[0]
	if run, ok := benchTools[sub]; ok {
		return run(ctx, args[1:], stdout, stderr)
	}
	if !slices.Contains(bench.Workloads, sub) {
		fmt.Fprintf(stderr, "jog bench: unknown workload %q\n\n%s", sub, benchUsage)
		return 2
	}
	return runBenchMeasure(ctx, sub, args[1:], stdout, stderr)
}

// benchTools are jog bench's commands besides the workloads.
var benchTools = map[string]func(ctx context.Context, args []string, stdout, stderr io.Writer) int{
	"report":   runBenchReport,
	"compare":  runBenchCompare,
	"selftest": runBenchSelftest,
	"sweep": func(ctx context.Context, args []string, stdout, stderr io.Writer) int {
		return runBenchMeasure(ctx, "sweep", args, stdout, stderr)
	},
}

// benchNested are jog bench's commands: the workloads and the tools.
func benchNested() []string {
	return append(slices.Clone(bench.Workloads), sortedKeys(benchTools)...)
}

// benchFlags is the parsed command line of a measuring run.
type benchFlags struct {
	cfg         bench.Config
	out         string
	quiet       bool
	concurrency string // sweep
	sizes       string // sweep
}

// valueFunc adapts a parse function to flag.Value.
type valueFunc struct {
	show string
	set  func(string) error
}

func (v *valueFunc) String() string     { return v.show }
func (v *valueFunc) Set(s string) error { v.show = s; return v.set(s) }

func bindBenchFlags(fs *flag.FlagSet, f *benchFlags, sweep bool) {
	c := &f.cfg
	*c = bench.DefaultConfig()
	endpoints := endpointFlag
	endpoints.usage = "S3 endpoint URL; several, comma-separated, spread the requests over them in turn (gateways of one namespace)"
	endpoints.bind(fs, &c.Endpoint)
	bindCredentials(fs, &c.AccessKey, &c.SecretKey, nil, &c.Region)
	fs.BoolVar(&c.PathStyle, "path-style", c.PathStyle, "path-style addressing; false: virtual-hosted style (bucket.host)")
	fs.BoolVar(&c.InsecureTLS, "insecure-tls", false, "skip TLS certificate verification")
	fs.StringVar(&c.Bucket, "bucket", "", "bucket to use (default: a fresh jog-bench-<random>, created and removed)")
	fs.StringVar(&c.Prefix, "prefix", c.Prefix, "key prefix for the objects the run writes")
	fs.BoolVar(&c.NoCleanup, "no-cleanup", false, "leave the objects (and a created bucket) behind")
	fs.DurationVar(&c.Duration, "duration", c.Duration, "how long to measure (per cell in a sweep)")
	fs.Int64Var(&c.Ops, "ops", 0, "operations to run instead of a duration")
	fs.IntVar(&c.Objects, "objects", c.Objects, "objects to prepare for get, stat, delete, list and mixed")
	fs.Var(&valueFunc{c.Mix.String(), func(s string) (err error) { c.Mix, err = bench.ParseMix(s); return }}, "mix", "mixed: operation weights, of get, put, stat, delete, list")
	fs.Var(&valueFunc{"", func(s string) error { return parseRate(s, c) }}, "rate", "target request rate in req/s (\"500\"), or a linear ramp over the duration (\"100:2000\")")
	fs.DurationVar(&c.QueueThreshold, "queue-threshold", c.QueueThreshold, "rate mode: a request starting this late has queued")
	fs.StringVar(&c.Keys, "keys", c.Keys, "key shape of the objects written: seq (<prefix>w<worker>/<n>), warp (MinIO warp's <8 random chars>/<16 random chars>.rnd, one random directory per worker), warp-fresh (the same names under a fresh random directory per object), deep (backup paths host-<w>/2026/11/24/vol-<k>/chunk-<n>), flat (random names, no /)")
	fs.StringVar(&c.Signing, "signing", c.Signing, "how PUT and UploadPart bodies are signed: unsigned (UNSIGNED-PAYLOAD), streaming (aws-chunked, each 64 KiB chunk signed: minio-go and warp over http), trailer (aws-chunked, unsigned, trailing x-amz-checksum-crc32: the AWS SDKs' default), signed (the body's SHA-256 hashed before sending: s3cmd, boto3 over http)")
	fs.BoolVar(&c.Verify, "verify", false, "check every downloaded byte and MD5 ETags")
	fs.StringVar(&c.SSE, "sse", "", "server-side encryption of the objects written: AES256 (SSE-S3) or aws:kms (SSE-KMS, the server's default key); \"\" for none")
	fs.StringVar(&c.Reservation, "reservation", "", "JOG throughput reservation ID, sent as x-jog-reservation-id on every GET, PUT and UploadPart (bench/qos.sh)")
	fs.Var(&valueFunc{"5MiB", func(s string) (err error) { c.PartSize, err = bench.ParseSize(s); return }}, "part-size", "multipart: part size")
	fs.IntVar(&c.PartConcurrency, "part-concurrency", c.PartConcurrency, "multipart: parts uploaded in parallel per object; get with --range-size: ranges downloaded in parallel")
	fs.Var(&valueFunc{"0", func(s string) (err error) { c.RangeSize, err = bench.ParseSize(s); return }}, "range-size", "get: download each object larger than this in ranged GETs of this size (0: one GET per object)")
	fs.IntVar(&c.ListMaxKeys, "list-max-keys", c.ListMaxKeys, "list: keys per page")
	fs.IntVar(&c.ListPrefixes, "list-prefixes", 0, "spread the prepared objects over this many prefixes (obj/<i mod N>/<i>); list then pages through the prefixes with the delimiter /")
	fs.IntVar(&c.Versions, "versions", 0, "list, list-versions: write each prepared object this many times in a versioned bucket (N-1 noncurrent versions under the current one)")
	fs.IntVar(&c.DeleteMarkers, "delete-markers", 0, "list, list-versions: prepare this many more keys, among the objects, whose latest version is a delete marker (turns versioning on)")
	fs.BoolVar(&c.PrepareOnly, "prepare-only", false, "list, list-versions: prepare the objects under --prefix in --bucket and stop, keeping them for --prepared runs")
	fs.BoolVar(&c.Prepared, "prepared", false, "list, list-versions: measure the objects a --prepare-only run left under --prefix in --bucket; prepare and remove nothing")
	fs.StringVar(&c.Label, "label", "", "the server's name in reports (e.g. jog, minio)")
	fs.Func("server-pid", "PID of a server on this machine (several, comma-separated, for gateways: summed): report its CPU use per operation beside the client's and the machine's (Linux)", func(v string) error {
		c.ServerPIDs = nil
		for _, f := range strings.Split(v, ",") {
			pid, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || pid <= 0 {
				return fmt.Errorf("%q is not a process ID", f)
			}
			c.ServerPIDs = append(c.ServerPIDs, pid)
		}
		return nil
	})
	fs.StringVar(&f.out, "out", "", "write the JSON result file here")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress output")
	if sweep {
		c.Workload = "put"
		fs.StringVar(&c.Workload, "workload", c.Workload, "workload of every cell")
		fs.StringVar(&f.concurrency, "concurrency", "1,4,16,64", "concurrency values")
		fs.StringVar(&f.sizes, "sizes", "1KiB,64KiB,1MiB", "object sizes (a size may be a range, 1KiB-64KiB)")
		return
	}
	fs.Var(&valueFunc{"1MiB", func(s string) (err error) { c.Size, err = bench.ParseSizeRange(s); return }}, "size", "object size, fixed (1MiB) or a random range (1KiB-64KiB); KiB/MiB/GiB or KB/MB/GB")
	fs.IntVar(&c.Concurrency, "concurrency", c.Concurrency, "workers with a request in flight")
}

func parseRate(s string, c *bench.Config) error {
	from, to, ramp := strings.Cut(s, ":")
	var err error
	if c.Rate, err = strconv.ParseFloat(from, 64); err != nil {
		return fmt.Errorf("invalid rate %q", s)
	}
	c.RateTo = 0
	if ramp {
		if c.RateTo, err = strconv.ParseFloat(to, 64); err != nil || c.RateTo <= c.Rate {
			return fmt.Errorf("invalid rate ramp %q: want from:to with to > from", s)
		}
	}
	return nil
}

func runBenchMeasure(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) int {
	var f benchFlags
	fs := flag.NewFlagSet("jog bench "+sub, flag.ContinueOnError)
	bindBenchFlags(fs, &f, sub == "sweep")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "jog bench %s: unexpected argument %q\n", sub, fs.Arg(0))
		return 2
	}
	cfg := f.cfg
	if sub != "sweep" {
		cfg.Workload = sub
	}
	if cfg.Ops > 0 {
		cfg.Duration = 0
	}
	grid := bench.Grid{Concurrency: []int{cfg.Concurrency}, Sizes: []bench.SizeRange{cfg.Size}}
	if sub == "sweep" {
		var err error
		if grid.Concurrency, err = bench.ParseInts(f.concurrency); err == nil {
			grid.Sizes, err = bench.ParseSizes(f.sizes)
		}
		if err != nil {
			fmt.Fprintf(stderr, "jog bench sweep: %v\n", err)
			return 2
		}
		cfg.Concurrency, cfg.Size = grid.MaxConcurrency(), grid.Sizes[0]
		if cfg.PrepareOnly {
			fmt.Fprintln(stderr, "jog bench sweep: --prepare-only measures nothing; prepare with jog bench list --prepare-only, then sweep with --prepared")
			return 2
		}
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "jog bench %s: %v\n", sub, err)
		return 2
	}
	opts := bench.Options{Out: stderr, TTY: isTerminal(stderr), Version: Version}
	if f.quiet {
		opts.Out = nil
	}
	b, err := bench.Open(ctx, cfg, grid.MaxConcurrency(), opts)
	if err != nil {
		fmt.Fprintf(stderr, "jog bench %s: %v\n", sub, err)
		return 1
	}
	results, err := b.Sweep(ctx, cfg, grid, func(r *bench.Result) { bench.WriteReport(stdout, r) })
	if cerr := b.Close(context.WithoutCancel(ctx)); cerr != nil {
		err = errors.Join(err, fmt.Errorf("remove bucket: %w", cerr))
	}
	if len(results) > 1 {
		fmt.Fprintln(stdout)
		bench.WriteCompare(stdout, results)
	}
	if f.out != "" && len(results) > 0 {
		if werr := bench.WriteFile(f.out, results...); werr != nil {
			err = errors.Join(err, werr)
		} else {
			fmt.Fprintf(stderr, "wrote %s\n", f.out)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "jog bench %s: %v\n", sub, err)
		return 1
	}
	return 0
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func runBenchReport(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog bench report", flag.ContinueOnError)
	out := fs.String("out", "bench-report", "directory for the SVG charts and index.html")
	title := fs.String("title", "jog bench report", "page title")
	baseline := fs.String("baseline", "", "add ratios.svg: this server's obj/s against the best other server's, per workload cell")
	qos := fs.Bool("qos", false, "the file is a qos.json from bench/qos.sh: print reserved against achieved per client, direction and unit (MB/s, req/s), flag reservations below 95% and holders slower than their twin, and draw qos-<direction>[-requests].svg")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "jog bench report: give one or more result files")
		return 2
	}
	if *qos {
		return runQoSReport(fs.Args(), *out, *title, stdout, stderr)
	}
	results, err := bench.ReadFiles(fs.Args()...)
	if err != nil {
		fmt.Fprintf(stderr, "jog bench report: %v\n", err)
		return 1
	}
	// One bar per server and cell: repeated runs are drawn as their median.
	files, err := render.WriteDir(*out, *title, bench.Medians(results), *baseline)
	if err != nil {
		fmt.Fprintf(stderr, "jog bench report: %v\n", err)
		return 1
	}
	for _, f := range files {
		fmt.Fprintln(stdout, f)
	}
	return 0
}

func runQoSReport(files []string, out, title string, stdout, stderr io.Writer) int {
	var recs []render.QoSRecord
	for _, f := range files {
		rs, err := render.ReadQoS(f)
		if err != nil {
			fmt.Fprintf(stderr, "jog bench report: %v\n", err)
			return 1
		}
		recs = append(recs, rs...)
	}
	flagged, err := render.WriteQoSTable(stdout, recs)
	switch {
	case err != nil:
		fmt.Fprintf(stderr, "jog bench report: %v\n", err)
		return 1
	case flagged == 0:
		fmt.Fprintf(stdout, "every reservation at least %.0f%% of its rate, none below its twin\n", 100*render.QoSBar)
	default:
		fmt.Fprintf(stdout, "%d flagged\n", flagged)
	}
	paths, err := render.WriteQoS(out, title, recs)
	if err != nil {
		fmt.Fprintf(stderr, "jog bench report: %v\n", err)
		return 1
	}
	for _, p := range paths {
		fmt.Fprintln(stdout, p)
	}
	return 0
}

func runBenchCompare(_ context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog bench compare", flag.ContinueOnError)
	baseline := fs.String("baseline", "", "print this server's obj/s against the best other server's, per workload cell, instead of the table")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	if fs.NArg() == 0 {
		fmt.Fprintln(stderr, "jog bench compare: give one or more result files")
		return 2
	}
	results, err := bench.ReadFiles(fs.Args()...)
	if err != nil {
		fmt.Fprintf(stderr, "jog bench compare: %v\n", err)
		return 1
	}
	if *baseline != "" {
		bench.WriteRatios(stdout, results, *baseline)
	} else {
		bench.WriteCompare(stdout, results)
	}
	return 0
}

func runBenchSelftest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog bench selftest", flag.ContinueOnError)
	d := fs.Duration("duration", 10*time.Second, "measured time per run")
	out := fs.String("out", "", "write the JSON result file here")
	if code, done := parseFlags(fs, args, stdout, stderr); done {
		return code
	}
	fmt.Fprintln(stderr, "measuring the client against an in-process endpoint that discards bodies (client and endpoint share the cores)")
	results, err := bench.SelfTest(ctx, *d, bench.Options{Out: stderr, TTY: isTerminal(stderr), Version: Version})
	for _, r := range results {
		bench.WriteReport(stdout, r)
	}
	if len(results) > 0 {
		fmt.Fprintln(stdout)
		bench.WriteCompare(stdout, results)
		if *out != "" {
			err = errors.Join(err, bench.WriteFile(*out, results...))
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "jog bench selftest: %v\n", err)
		return 1
	}
	return 0
}
