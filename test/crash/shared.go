package crash

// A data dir shared by gateways (an external metadata store): a killed
// gateway's temp files and the blobs no metadata refers to stay for
// blob.Grace (an hour), since as far as the others can tell a gateway may
// still be writing or committing them (docs/RELIABILITY.md, "Several
// gateways on one data directory"). What the harness allows in tmp/, and
// the check at the end that the leftovers go once the hour has passed.

import (
	"context"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/jogstore/jog/internal/blob"
	"github.com/jogstore/jog/internal/blob/disk"
)

// checkTemp checks tmp/ once the servers are up after a restart, with no
// request in flight. No live gateway has a file there but, on a shared
// data dir, its lock file. A server alone on the data dir has removed
// every other file before it listened; on a shared data dir the files of
// ended gateways stay for blob.Grace: they are counted and returned if
// allowDead, violations otherwise.
func (h *harness) checkTemp(allowDead bool) int {
	entries, err := os.ReadDir(filepath.Join(h.cfg.DataDir, "tmp"))
	if err != nil {
		h.res.violate("read tmp/ after restart: %v", err)
		return 0
	}
	live := map[string]bool{}
	for _, s := range h.servers {
		if s.running() {
			live[s.gateway] = true
		}
	}
	locks, dead := 0, 0
	for _, e := range entries {
		owner, lock := disk.TempOwner(e.Name())
		switch {
		case h.shared() && live[owner] && lock:
			locks++
		case h.shared() && !live[owner] && allowDead:
			dead++
		default:
			h.res.violate("after restart tmp/ holds %s (live gateways %v)", e.Name(), slices.Sorted(maps.Keys(live)))
		}
	}
	if h.shared() && locks != len(live) {
		h.res.violate("after restart tmp/ holds %d lock files of the %d live gateways", locks, len(live))
	}
	return dead
}

// sweepLine is the log line of an ended orphan sweep.
var sweepLine = regexp.MustCompile(`msg="orphan sweep done" blobs_scanned=\d+ orphans_removed=(\d+)`)

// ageLeftovers runs with every gateway of a shared data dir stopped. What
// the kills left there (temp files, blob files no metadata refers to) is
// younger than blob.Grace, so recovery, the orphan sweep and fsck (always
// live on a shared data dir) leave it be. The hour is made to pass: every
// file in tmp/ and blobs/ is dated two hours back and the first gateway
// started; its recovery must leave nothing in tmp/ but its own lock file,
// and the final fsck, which then takes every blob file for old enough to
// be an orphan, must find none. (A pack record's time is written in its
// pack, not the file's: an orphan record stays unseen for the hour.)
func (h *harness) ageLeftovers(ctx context.Context) error {
	old := time.Now().Add(-2 * blob.Grace)
	for _, dir := range []string{"tmp", "blobs"} {
		err := filepath.WalkDir(filepath.Join(h.cfg.DataDir, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			return os.Chtimes(path, old, old)
		})
		if err != nil {
			return err
		}
	}
	swept, recovered := h.sweeps(), h.res.TempRecovered
	s := h.servers[0]
	if err := h.startAll(ctx, []*server{s}); err != nil {
		return err
	}
	h.checkTemp(false)
	if err := h.waitSwept(ctx, swept); err != nil {
		s.kill()
		return err
	}
	if err := s.stopGracefully(); err != nil {
		return err
	}
	h.res.AgedTemp = h.res.TempRecovered - recovered
	b, err := os.ReadFile(s.log)
	if err != nil {
		return err
	}
	if m := sweepLine.FindAllSubmatch(b, -1); len(m) > 0 {
		h.res.AgedOrphans, _ = strconv.Atoi(string(m[len(m)-1][1]))
	}
	h.logf("after the hour's grace (files dated back): recovery removed %d temp files, the sweep %d orphan blobs",
		h.res.AgedTemp, h.res.AgedOrphans)
	return nil
}
