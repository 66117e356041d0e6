package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/jogstore/jog/internal/bench"
	"github.com/jogstore/jog/internal/cp"
	"github.com/jogstore/jog/internal/sigv4"
)

const cpUsage = `Usage: jog cp [flags] SRC DST

Copy a file to or from any S3 endpoint: parallel multipart upload and
parallel ranged download, every byte checked end to end (CRC64NVME per part
and for the whole object; a download against the object's stored checksum or
MD5 ETag, written to a temporary file renamed only when it matches).

  jog cp FILE s3://BUCKET/KEY          (s3://BUCKET/PREFIX/: the file's name is added)
  jog cp s3://BUCKET/KEY FILE|DIR
  jog cp -r DIR s3://BUCKET/PREFIX     a directory tree, file by file
  jog cp -r s3://BUCKET/PREFIX DIR
  jog cp [-r] s3://BUCKET/KEY s3://BUCKET2/KEY2   a copy in the server (CopyObject,
                                       UploadPartCopy above one part)

An interrupted multipart upload is kept; the same command with --resume
finishes it, re-sending only the parts that are missing or differ.

A download gets mode 0666 less the umask (0644 under umask 022), as aws s3
cp gives. When standard output is no terminal (a script, a log), one line
there says what was copied:
  copied 3 files, 12.5 MiB in 1.2s (10.4 MiB/s), all verified

Encryption at rest, as the AWS CLI asks for it: --sse AES256 (SSE-S3) or
--sse aws:kms [--sse-kms-key-id ID] (SSE-KMS) for what is written;
--sse-c KEY for an object kept under your own key (SSE-C: sent on every
request that writes or reads it, uploads and downloads alike), and
--sse-c-copy-source KEY for an SSE-C source of an s3:// to s3:// copy. KEY
is the 32-byte key's base64, or @FILE (the 32 bytes, or their base64):
prefer @FILE, as a key on the command line is visible to every local user
in ps.
The server refuses SSE-C over plain HTTP: use an https:// endpoint.

Flags:
`

func runCp(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("jog cp", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprint(fs.Output(), cpUsage); fs.PrintDefaults() }
	cfg := cp.ClientConfig{Region: sigv4.DefaultRegion, Endpoint: defaultEndpoint}
	var opts cp.Options
	var recursive, quiet bool
	endpointFlag.bind(fs, &cfg.Endpoint)
	bindCredentials(fs, &cfg.AccessKey, &cfg.SecretKey, &cfg.SessionToken, &cfg.Region)
	fs.BoolVar(&cfg.VirtualHost, "virtual-host", false, "address buckets as bucket.host instead of host/bucket")
	fs.BoolVar(&cfg.InsecureTLS, "insecure-tls", false, "skip TLS certificate verification")
	fs.StringVar(&cfg.Reservation, "reservation", "", "throughput reservation ID, sent as x-jog-reservation-id on every GET, PUT and UploadPart")
	fs.Var(&valueFunc{"16MiB", func(s string) (err error) { opts.PartSize, err = bench.ParseSize(s); return }}, "part-size",
		"multipart part and download range size (at least 5MiB; grown so an object has at most 10,000 parts); a file up to one part goes in one PUT or GET")
	fs.IntVar(&opts.Streams, "streams", cp.DefaultStreams, "requests in flight at once (parts, ranges, files)")
	fs.BoolVar(&opts.Resume, "resume", false, "finish an interrupted upload of the same key, keeping its parts whose size and CRC64NVME match the file")
	fs.BoolVar(&opts.NoFsync, "no-fsync", false, "do not fsync a downloaded file before renaming it into place")
	bindEncryption(fs, &opts.Encryption)
	fs.BoolVar(&recursive, "r", false, "copy a directory tree or a key prefix")
	fs.BoolVar(&recursive, "recursive", false, "same as -r")
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	// Flags may come before, between or after SRC and DST.
	var pos []string
	for {
		if code, done := parseFlags(fs, args, stdout, stderr); done {
			return code
		}
		if fs.NArg() == 0 {
			break
		}
		pos, args = append(pos, fs.Arg(0)), fs.Args()[1:]
	}
	if len(pos) != 2 {
		fs.Usage()
		return 2
	}
	src, err := cp.ParseLocation(pos[0])
	if err == nil {
		var dst cp.Location
		if dst, err = cp.ParseLocation(pos[1]); err == nil {
			return cpRun(ctx, cfg, opts, src, dst, recursive, quiet, stdout, stderr)
		}
	}
	fmt.Fprintln(stderr, "jog cp:", err)
	return 2
}

// cpRun copies src to dst; when stdout is no terminal (a script, a log) it
// then prints one summary line there, as rclone and restic do.
func cpRun(ctx context.Context, cfg cp.ClientConfig, opts cp.Options, src, dst cp.Location, recursive, quiet bool, stdout, stderr io.Writer) int {
	if opts.PartSize != 0 && opts.PartSize < cp.MinPartSize {
		fmt.Fprintln(stderr, "jog cp: --part-size must be at least 5MiB")
		return 2
	}
	if err := opts.Encryption.Check(); err != nil {
		fmt.Fprintln(stderr, "jog cp:", err)
		return 2
	}
	cfg.Conns = max(opts.Streams, 1)
	c, err := cp.NewClient(cfg)
	if err != nil {
		fmt.Fprintln(stderr, "jog cp:", err)
		return 2
	}
	defer c.Close()
	opts.Log = stderr
	if !quiet && isTerminal(stderr) {
		opts.Progress = cp.NewProgress(stderr, 250*time.Millisecond)
	}
	start := time.Now()
	copier := cp.New(c, opts)
	err = copier.Copy(ctx, src, dst, recursive)
	opts.Progress.Finish()
	if !isTerminal(stdout) {
		fmt.Fprintln(stdout, copier.Tally().Summary(time.Since(start)))
	}
	if err != nil {
		fmt.Fprintln(stderr, "jog cp:", err)
		return 1
	}
	return 0
}

// bindEncryption binds the AWS CLI's encryption flags to e.
func bindEncryption(fs *flag.FlagSet, e *cp.Encryption) {
	fs.StringVar(&e.SSE, "sse", "", "encrypt what is written: AES256 (SSE-S3) or aws:kms (SSE-KMS); default: the bucket's default encryption")
	fs.StringVar(&e.KMSKeyID, "sse-kms-key-id", "", "the SSE-KMS key (with --sse aws:kms; default: the server's default key)")
	fs.Func("sse-c", "SSE-C: the customer key (base64, or @FILE) of the objects written and of those read", func(v string) (err error) {
		e.CustomerKey, err = cp.ParseCustomerKey(v)
		return err
	})
	fs.Func("sse-c-copy-source", "SSE-C: the customer key (base64, or @FILE) of an s3:// to s3:// copy's source", func(v string) (err error) {
		e.SourceCustomerKey, err = cp.ParseCustomerKey(v)
		return err
	})
}
