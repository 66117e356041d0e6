package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/jogstore/jog/internal/datadir"
	"github.com/jogstore/jog/internal/fsck"
	"github.com/jogstore/jog/internal/kms"
	"github.com/jogstore/jog/internal/units"
)

// Exit statuses of jog fsck.
const (
	fsckClean    = 0 // nothing wrong (or everything repaired)
	fsckProblems = 1 // problems found, or left after repair
	fsckError    = 2 // bad usage, or the check could not run to the end
)

func runFsck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	// jog server's settings (flags, JOG_* variables, --config): the data
	// dir, the metadata store and the KMS (master key, --kms-kmip-*).
	cfg, fl := serverFlags("jog fsck")
	deep := fl.Bool("deep", false, "read every blob and verify its MD5 (ETag) and stored checksum; decrypt encrypted data, verifying every authentication tag")
	repair := fl.Bool("repair", false, "remove orphan blobs and temp files, rebuild a wrong directory index (refused while a server runs)")
	dropLost := fl.Bool("repair-drop-lost", false, "implies --repair; also delete objects and abort uploads whose data is missing or corrupt")
	asJSON := fl.Bool("json", false, "write one JSON document (problems, summary) instead of text")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), `Usage: jog fsck [--deep] [--repair | --repair-drop-lost] [--json] [jog server's flags]

Checks that every object, every part of a multipart object and every part of
an upload in progress has its blob file with the recorded size (--deep: and
content), and lists blob files no metadata refers to (orphans) and files
left in tmp/. It also checks the directory index that serves listings by
"/" against the objects, and each bucket's recorded usage (what quotas are
checked against) against the sum over its versions. A read-only check may run while the server runs
(or, with an external --meta, while gateways share the data dir); --repair needs every server stopped.
It reads jog server's settings (flags, JOG_* variables, --config) for
--data-dir, --meta and the KMS.

Encrypted objects are checked at their stored (sealed) size. --deep opens
each one's data key through the KMS the server opens (the master key: %s
in the data dir or $%s; SSE-KMS keys in a KMIP server with
--kms-kmip-endpoint and its settings) and decrypts every byte, so each package's
authentication tag is verified: bytes that fail are corrupt, a data key
that does not open (a disabled or deleted KMS key) is reported as "key".
SSE-C objects open only under their client's key, which JOG never keeps:
they are listed as unverifiable, not as problems.

Repair removes orphans and temp files, rebuilds the directory index of
a bucket where it disagrees with the objects and recomputes a wrong usage.
Objects whose data is missing, of the wrong size or corrupt are only reported (their metadata stays, GETs of them
fail) unless --repair-drop-lost deletes them; one whose data key does not open is kept even then.

Exit status: 0 clean, 1 problems found (or left after repair), 2 usage or I/O error.

Flags:
`, kms.MasterKeyFile, kms.MasterKeyEnv)
		fl.PrintDefaults()
	}
	if _, code, done := loadSettings(cfg, fl, args, stdout, stderr); done {
		return code
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "jog fsck: unexpected argument %q\n", fl.Arg(0))
		fl.Usage()
		return fsckError
	}
	opts := fsck.Options{DataDir: cfg.DataDir, Meta: cfg.Meta, Deep: *deep, Repair: *repair || *dropLost, DropLost: *dropLost,
		MasterKey: cfg.SSEKey, KMIP: cfg.KMIP}

	var out fsckOutput = &textOutput{w: stdout}
	if *asJSON {
		out = &jsonOutput{w: stdout}
	}
	out.begin(opts)
	opts.Problem = out.problem
	sum, err := fsck.Run(ctx, opts)
	out.end(sum, err)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "jog fsck:", err)
		if errors.Is(err, datadir.ErrLocked) {
			fmt.Fprintln(stderr, "jog fsck: stop the server before --repair (a read-only check may run beside it)")
		}
		return fsckError
	case sum.Remaining() > 0:
		return fsckProblems
	default:
		return fsckClean
	}
}

type fsckOutput interface {
	begin(fsck.Options)
	problem(fsck.Problem)
	end(fsck.Summary, error)
}

// textOutput prints each problem on its own line, then the counts.
type textOutput struct{ w io.Writer }

func (o *textOutput) begin(opts fsck.Options) {}

func (o *textOutput) problem(p fsck.Problem) { fmt.Fprintln(o.w, p) }

func (o *textOutput) end(s fsck.Summary, err error) {
	if err != nil && s.Buckets == 0 && s.Objects == 0 {
		return // nothing was checked: the error says it all
	}
	line := func(label, format string, args ...any) {
		if label != "" {
			label += ":"
		}
		fmt.Fprintf(o.w, "%-11s "+format+"\n", append([]any{label}, args...)...)
	}
	mode := "server stopped"
	if s.Live {
		mode = "server running: files being written are not counted"
	}
	line("data dir", "%s (%s)", s.DataDir, mode)
	line("checked", "%s", checkedCounts(s))
	verified := "contents not read (use --deep)"
	if s.Deep {
		verified = fmt.Sprintf("%s verified (MD5 and checksums; encrypted data authenticated)", units.Human(float64(s.BytesVerified)))
	}
	line("bytes", "%s of the right size, %s", units.Human(float64(s.BytesChecked)), verified)
	if s.Skipped > 0 {
		line("skipped", "%d (changed by the running server during the check)", s.Skipped)
	}
	line("missing", "%d", s.Missing)
	line("wrong size", "%d", s.WrongSize)
	line("corrupt", "%d", s.Corrupt)
	line("metadata", "%d", s.Metadata)
	if s.Deep {
		line("key", "%d (data keys that do not open)", s.KeyErrors)
		line("unverified", "%d (SSE-C objects and uploads: not verifiable without the customer's key)", s.Unverifiable)
	}
	line("damaged", "%s%s, %s%s", units.Count(s.DamagedObjects, "object"), repaired(s.Dropped, "dropped", s.Repair),
		units.Count(s.DamagedUploads, "upload"), repaired(s.Aborted, "aborted", s.Repair))
	line("orphans", "%d (%s)%s", s.Orphans, units.Human(float64(s.OrphanBytes)), repaired(s.OrphansRemoved, "removed", s.Repair))
	line("index", "%d%s", s.Index, repaired(s.IndexRebuilt, "fixed by a rebuild", s.Repair))
	line("versions", "%d (contradictions among versions, delete markers and locks)", s.Versions)
	if s.Live {
		line("temp", "%d (writes in progress)", s.TempFiles)
	} else {
		line("temp", "%d%s", s.TempFiles, repaired(s.TempRemoved, "removed", s.Repair))
	}
	switch {
	case err != nil:
		line("status", "INCOMPLETE (the check stopped on an error)")
	case s.Remaining() == 0:
		line("status", "clean")
	default:
		verb := "remain"
		if s.Remaining() == 1 {
			verb = "remains"
		}
		line("status", "%s %s", units.Count(s.Remaining(), "problem"), verb)
		if s.DamagedObjects+s.DamagedUploads > s.Dropped+s.Aborted && !s.Repair {
			line("", "--repair removes orphans and temp files; --repair-drop-lost also deletes damaged objects")
		}
	}
}

// checkedCounts says what a check went through: "10 objects (2
// multipart), 0 delete markers, 1 upload in progress, 7 parts, 12 blob
// files, 1 bucket".
func checkedCounts(s fsck.Summary) string {
	return fmt.Sprintf("%s (%d multipart), %s, %s in progress, %s, %s, %s",
		units.Count(s.Objects, "object"), s.MultipartObjects, units.Count(s.DeleteMarkers, "delete marker"), units.Count(s.Uploads, "upload"),
		units.Count(s.Parts, "part"), units.Count(s.Blobs, "blob file"), units.Count(s.Buckets, "bucket"))
}

func repaired(n int, what string, repair bool) string {
	if !repair {
		return ""
	}
	return fmt.Sprintf(", %d %s", n, what)
}

// jsonOutput streams one JSON document:
// {"problems":[…],"summary":{…},"remaining":N,"status":"…","error":"…"}.
type jsonOutput struct {
	w io.Writer
	n int
}

func (o *jsonOutput) begin(opts fsck.Options) { _, _ = io.WriteString(o.w, `{"problems":[`) }

func (o *jsonOutput) problem(p fsck.Problem) {
	b, _ := json.Marshal(p)
	if o.n > 0 {
		_, _ = io.WriteString(o.w, ",")
	}
	_, _ = io.WriteString(o.w, "\n")
	_, _ = o.w.Write(b)
	o.n++
}

func (o *jsonOutput) end(s fsck.Summary, err error) {
	tail := struct {
		Summary   fsck.Summary `json:"summary"`
		Remaining int          `json:"remaining"`
		Status    string       `json:"status"` // clean, problems, error
		Error     string       `json:"error,omitempty"`
	}{Summary: s, Remaining: s.Remaining(), Status: "clean"}
	switch {
	case err != nil:
		tail.Status, tail.Error = "error", err.Error()
	case tail.Remaining > 0:
		tail.Status = "problems"
	}
	b, _ := json.Marshal(tail)
	// Splice the tail's fields after the problems array.
	fmt.Fprintf(o.w, "\n],%s\n", b[1:])
}
