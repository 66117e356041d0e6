package durq

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/jogstore/jog/internal/datadir"
)

// adoptChunk is how many bytes of an ended gateway's records Adopt
// appends at once.
const adoptChunk = 1 << 20

// Adopt takes over the queues of ended gateways (their lock is free):
// each one's records its targets had not been sent (past its cursors)
// are appended to this queue, fsynced, and its directory removed. The
// ended queue's lock is held meanwhile, so that two gateways do not adopt
// one queue at once; a crash halfway leaves it to adopt again (its
// records are then sent twice: at least once). Open does not adopt; Start
// does every Options.AdoptEvery.
func (q *Queue) Adopt() error {
	ended, err := datadir.EndedGateways(q.root, q.gateway, lockFile)
	if err != nil {
		return err
	}
	var errs []error
	for _, g := range ended {
		dir := filepath.Join(q.root, g)
		unlock, err := datadir.LockPath(filepath.Join(dir, lockFile))
		if err != nil {
			continue // another gateway adopts it
		}
		n, dropped, err := q.adoptDir(dir)
		if err == nil {
			err = removeQueueDir(dir)
		}
		_ = unlock()
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", dir, err))
			continue
		}
		os.Remove(dir) // the lock file went with the rest; the directory goes once empty
		q.log.Info(q.opts.Name+" of an ended gateway adopted", "gateway", g, "records", n,
			"dropped_unconfigured", dropped)
	}
	return errors.Join(errs...)
}

// adoptDir appends the records of the ended queue in dir that its
// cursors had not passed, for targets configured here (dropped counts
// the others'), and waits until they are fsynced.
func (q *Queue) adoptDir(dir string) (n, dropped int, err error) {
	cursors, err := readCursors(dir)
	if err != nil {
		return 0, 0, err
	}
	segs, err := listSegments(dir)
	if err != nil {
		return 0, 0, err
	}
	var buf []byte
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		err := q.append(buf)
		buf = buf[:0]
		return err
	}
	for _, s := range segs {
		f, err := os.Open(filepath.Join(dir, segName(s.seq)))
		if err != nil {
			return n, dropped, err
		}
		br := bufio.NewReaderSize(f, 64<<10)
		var off int64
		for {
			line, rerr := br.ReadBytes('\n')
			at := position{Seg: s.seq, Off: off}
			off += int64(len(line))
			target, _, ok := bytes.Cut(line, []byte("\t"))
			switch {
			case !ok || !bytes.HasSuffix(line, []byte("\n")): // torn by a crash
			case at.before(cursors[string(target)]): // sent already
			case !q.Target(string(target)):
				dropped++
			default:
				buf = append(buf, line...)
				n++
			}
			if len(buf) >= adoptChunk {
				if err := flush(); err != nil {
					f.Close()
					return n, dropped, err
				}
			}
			if rerr != nil {
				break
			}
		}
		f.Close()
	}
	return n, dropped, flush()
}

// removeQueueDir removes an adopted queue's files: its segments first,
// so that a crash halfway leaves no cursor without its segments.
func removeQueueDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, last := range []bool{false, true} {
		for _, e := range entries {
			isSeg := bytes.HasPrefix([]byte(e.Name()), []byte(segPrefix))
			if isSeg == last {
				continue
			}
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}
