package bucketlog

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/datadir"
)

// A held file holds the records of one target that could not take them
// when a sealed file was delivered: held-<id>_<target>, id the sealed
// file's name without "sealed-" (its seal time and the gateway it came
// from: "_" is in neither a bucket name nor an id). It is delivered on
// its own, later, and kept as it is while its target fails: a failing
// target delays only its own records.

// heldFile is a held file found in the spool directory.
type heldFile struct {
	name, target string
	time         time.Time // the seal time its id starts with
	size         int64
}

// heldName is the name of the held file of target's records from the
// file of id.
func heldName(id, target string) string { return heldPrefix + id + "_" + target }

// parseHeld splits a held file's name into its id and target.
func parseHeld(name string) (id, target string, ok bool) {
	rest, ok := strings.CutPrefix(name, heldPrefix)
	if !ok {
		return "", "", false
	}
	id, target, ok = strings.Cut(rest, "_")
	if _, valid := idTime(id); !ok || !valid || target == "" {
		return "", "", false
	}
	return id, target, true
}

// parking writes the records of the targets that failed while a sealed
// file was delivered into held files of their own: temp files first,
// made durable and renamed by commit.
type parking struct {
	dir, id string
	files   map[string]*parked // by target
}

type parked struct {
	f *os.File
	w *bufio.Writer
}

func newParking(dir, id string) *parking {
	return &parking{dir: dir, id: id, files: map[string]*parked{}}
}

// add writes the records of body (newline-terminated) as target's spool
// lines, under prefix and source.
func (p *parking) add(target, prefix, source string, body []byte) error {
	pf := p.files[target]
	if pf == nil {
		f, err := os.OpenFile(filepath.Join(p.dir, tempPrefix+heldName(p.id, target)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o640)
		if err != nil {
			return err
		}
		pf = &parked{f: f, w: bufio.NewWriterSize(f, 16<<10)}
		p.files[target] = pf
	}
	head := appendLineHead(nil, target, prefix, source)
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte{'\n'})
		_, _ = pf.w.Write(head)
		_, _ = pf.w.Write(line)
		_ = pf.w.WriteByte('\n')
		body = rest
	}
	return nil // a write error stays in the bufio.Writer: commit returns it
}

// commit makes the held files durable and gives them their names; on an
// error it removes them (the sealed file stays, delivered again).
func (p *parking) commit() error {
	var errs []error
	for _, pf := range p.files {
		errs = append(errs, pf.w.Flush(), pf.f.Sync(), pf.f.Close())
	}
	if err := errors.Join(errs...); err != nil {
		p.abort()
		return err
	}
	for target, pf := range p.files {
		// An earlier, interrupted delivery of the same file left the same
		// records under the same name: replaced.
		if err := os.Rename(pf.f.Name(), filepath.Join(p.dir, heldName(p.id, target))); err != nil {
			p.abort()
			return err
		}
	}
	if len(p.files) == 0 {
		return nil
	}
	return datadir.SyncDir(p.dir)
}

// abort removes what is left of the temp files.
func (p *parking) abort() {
	for _, pf := range p.files {
		pf.f.Close()
		os.Remove(pf.f.Name())
	}
}
