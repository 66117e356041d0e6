package bucketlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/authz"
	"github.com/jogstore/jog/internal/meta"
	"github.com/jogstore/jog/internal/service"
)

// Store is where log objects go and what says whether they may:
// service.Service.
type Store interface {
	PutLogObject(ctx context.Context, bucket, key string, body []byte) error
	// BucketLoggingOf is a source bucket's logging now (nil: off, or no
	// such bucket).
	BucketLoggingOf(ctx context.Context, bucket string) (*service.BucketLogging, error)
	// LogDeliveryAllowed is the target's consent to a log object of
	// source's records.
	LogDeliveryAllowed(ctx context.Context, a *authz.Authorizer, source string, l service.BucketLogging, key string) (bool, error)
}

// Delivery moves a spool's records into their target buckets. Each
// target has its own state: one that fails has its records held on disk
// and retried with a growing delay, while the others' go on.
type Delivery struct {
	spool *Spool
	store Store
	authz *authz.Authorizer
	log   *slog.Logger
	// retry is the first wait after a target fails (Run's interval; 0
	// retries at the next Deliver), doubled at each failure up to
	// maxRetry.
	retry time.Duration
	now   func() time.Time
	round int                // Deliver calls so far
	waits map[string]*waitOn // failing targets
	warn  limiter
	full  uint64 // DropSpoolFull drops already logged
}

// waitOn is a failing target's state.
type waitOn struct {
	failures int
	round    int       // the round of the last failure
	next     time.Time // not tried before
}

// maxRetry is the longest a failing target waits between attempts.
const maxRetry = time.Hour

// NewDelivery returns the delivery of spool's records into store, whose
// consent is decided by a.
func NewDelivery(spool *Spool, store Store, a *authz.Authorizer, log *slog.Logger) *Delivery {
	return &Delivery{spool: spool, store: store, authz: a, log: log, now: time.Now, waits: map[string]*waitOn{}}
}

// Run delivers at once (what an earlier run or ended gateways left) and
// then every interval, until ctx ends.
func (d *Delivery) Run(ctx context.Context, interval time.Duration) {
	d.retry = interval
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if err := d.Deliver(ctx); err != nil && ctx.Err() == nil {
			d.log.Warn("bucket log delivery failed: retried at the next interval", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Deliver adopts ended gateways' spools, seals the current file and
// delivers the held files of targets not waiting, then every sealed
// file, oldest first. The records of a target that fails (or waits) go
// to a held file of their own; the others' are written. Last, the held
// records past half the spool's bound are dropped, oldest first. A
// target's failure is logged (at each retry), not returned.
func (d *Delivery) Deliver(ctx context.Context) error {
	d.round++
	var errs []error
	if err := d.spool.Adopt(); err != nil {
		errs = append(errs, fmt.Errorf("adopting ended gateways' spools: %w", err))
	}
	if err := d.spool.Seal(); err != nil {
		errs = append(errs, fmt.Errorf("sealing the spool: %w", err))
	}
	l, err := d.spool.list()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	// Held files first: their records are older, and a target failing
	// there has its records of the sealed files held at once.
	for _, h := range l.held {
		if ctx.Err() != nil {
			break
		}
		if !d.waiting(h.target) {
			if err := d.deliverFile(ctx, h.name, h.target); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", h.name, err))
			}
		}
	}
	for _, name := range l.sealed {
		if ctx.Err() != nil {
			break
		}
		if err := d.deliverFile(ctx, name, ""); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	if err := d.bound(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// waiting reports whether target failed this round or waits to be
// retried.
func (d *Delivery) waiting(target string) bool {
	w := d.waits[target]
	return w != nil && (w.round == d.round || d.now().Before(w.next))
}

// failed records target's failure (once a round) and logs it: the wait
// before the next attempt doubles each time, and so do the lines.
func (d *Delivery) failed(target string, err error) {
	w := d.waits[target]
	if w == nil {
		w = &waitOn{}
		d.waits[target] = w
		d.spool.count.waiting.Store(int64(len(d.waits)))
	}
	if w.round == d.round && w.failures > 0 {
		return
	}
	w.failures++
	w.round = d.round
	wait := d.retry << min(w.failures-1, 16)
	if wait > maxRetry {
		wait = max(maxRetry, d.retry)
	}
	w.next = d.now().Add(wait)
	d.spool.count.failures.Add(1)
	d.log.Warn("bucket log delivery to a target failed: its records wait on disk, other targets' go on",
		"target", target, "err", err, "failures", w.failures, "retry_in", wait)
}

// succeeded forgets target's failures.
func (d *Delivery) succeeded(target string) {
	if w := d.waits[target]; w != nil {
		delete(d.waits, target)
		d.spool.count.waiting.Store(int64(len(d.waits)))
		d.log.Info("bucket log delivery to a target resumed", "target", target, "failures", w.failures)
	}
}

// dropped counts n records dropped for reason, and logs it (once an
// hour for the same target and source).
func (d *Delivery) dropped(reason Drop, target, source string, n int) {
	if n == 0 {
		return
	}
	d.spool.count.dropped[reason].Add(uint64(n))
	if total, ok := d.warn.note(reason.String()+"\x00"+target+"\x00"+source, uint64(n), d.now()); ok {
		d.log.Warn("bucket log records dropped: "+dropWhy[reason], "reason", reason, "target", target,
			"source", source, "records", total)
	}
}

// dropWhy explains the drops of a delivery.
var dropWhy = [numDrops]string{
	DropEvicted:    "the records held for failing targets passed half of --bucket-log-spool-max (oldest first)",
	DropTargetGone: "the target bucket does not exist",
	DropNoConsent: "the target bucket's policy does not allow " + authz.LoggingService + " s3:PutObject for the source " +
		"(nor its ACL the log delivery group), and the root did not make the configuration: grant it, or make it again as the root",
	DropConfigGone: "the source bucket's logging no longer names this target",
}

// group is the records of one log object in the making.
type group struct {
	target, prefix, source string
	part, lines            int
	body                   bytes.Buffer
	fate                   fate
	drop                   Drop // why, when fate is dropIt
}

// fate is what becomes of a group's records.
type fate uint8

const (
	deliverIt fate = iota
	holdIt         // its target fails
	dropIt
)

// errHeldFails stops the delivery of a held file whose target failed.
var errHeldFails = errors.New("the held file's target fails")

// fileRun is the delivery of one spool file.
type fileRun struct {
	d      *Delivery
	ctx    context.Context
	name   string    // the file's name: with the group, its objects' unique names
	when   time.Time // its seal time: the date of its objects' names
	groups map[string]*group
	order  []*group
	park   *parking // nil for a held file: it is kept whole while its target fails
}

// deliverFile writes the objects of one spool file, sealed or (target
// not "") held, then removes it. The records of a sealed file whose
// target fails go to a held file; a held file whose target fails is kept.
func (d *Delivery) deliverFile(ctx context.Context, name, target string) error {
	path := filepath.Join(d.spool.dir, name)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := &fileRun{d: d, ctx: ctx, name: name, groups: map[string]*group{}}
	if target == "" {
		id := strings.TrimPrefix(name, sealedPrefix)
		r.when, _ = idTime(id)
		r.park = newParking(d.spool.dir, id)
	} else {
		id, _, _ := parseHeld(name)
		r.when, _ = idTime(id)
	}
	skipped, err := readLines(f, r.line)
	if err == nil {
		err = r.finish()
	}
	if errors.Is(err, errHeldFails) {
		return nil
	}
	if err == nil && r.park != nil {
		err = r.park.commit()
	} else if r.park != nil {
		r.park.abort()
	}
	if err != nil {
		return err
	}
	if skipped > 0 {
		d.log.Warn("bucket log spool lines not understood (torn by a crash?): skipped", "file", name, "lines", skipped)
	}
	f.Close()
	return os.Remove(path)
}

// line takes one record of the file.
func (r *fileRun) line(l spoolLine) error {
	id := l.target + "\x00" + l.prefix + "\x00" + l.source
	g := r.groups[id]
	if g == nil {
		g = &group{target: l.target, prefix: l.prefix, source: l.source}
		r.groups[id] = g
		r.order = append(r.order, g)
		if err := r.admit(g); err != nil {
			return err
		}
	}
	g.lines++
	if g.fate == dropIt {
		r.d.dropped(g.drop, g.target, g.source, 1)
		g.lines = 0
		return nil
	}
	g.body.Write(l.record)
	g.body.WriteByte('\n')
	if g.fate == holdIt {
		return r.hold(g)
	}
	if g.body.Len() >= groupMax {
		return r.put(g)
	}
	return nil
}

// admit decides a new group's fate: held while its target waits,
// dropped when the source's logging no longer names the target or the
// target refuses or is gone.
func (r *fileRun) admit(g *group) error {
	if r.d.waiting(g.target) {
		return r.fail(g, nil)
	}
	l, err := r.d.store.BucketLoggingOf(r.ctx, g.source)
	if err != nil {
		return r.fail(g, err)
	}
	if l == nil || l.TargetBucket != g.target {
		g.fate, g.drop = dropIt, DropConfigGone
		return nil
	}
	ok, err := r.d.store.LogDeliveryAllowed(r.ctx, r.d.authz, g.source, *l, r.key(g))
	switch {
	case errors.Is(err, meta.ErrBucketNotFound):
		g.fate, g.drop = dropIt, DropTargetGone
	case err != nil:
		return r.fail(g, err)
	case !ok:
		g.fate, g.drop = dropIt, DropNoConsent
	}
	return nil
}

// key is the name of g's next object.
func (r *fileRun) key(g *group) string {
	return service.LogObjectKey(g.prefix, r.when, uniqueString(r.name, g))
}

// put writes g's records as one object.
func (r *fileRun) put(g *group) error {
	if g.body.Len() == 0 {
		return nil
	}
	err := r.d.store.PutLogObject(r.ctx, g.target, r.key(g), g.body.Bytes())
	switch {
	case err == nil:
		r.d.spool.count.objects.Add(1)
		r.d.succeeded(g.target)
	case errors.Is(err, meta.ErrBucketNotFound):
		g.fate, g.drop = dropIt, DropTargetGone
		r.d.dropped(DropTargetGone, g.target, g.source, g.lines)
	case r.ctx.Err() != nil: // shutting down: the file stays as it is
		return r.ctx.Err()
	default:
		return r.fail(g, err)
	}
	g.body.Reset()
	g.lines = 0
	g.part++
	return nil
}

// fail holds the records of g's target: those read so far and those to
// come. A held file's delivery stops there.
func (r *fileRun) fail(g *group, err error) error {
	if err != nil {
		if r.ctx.Err() != nil {
			return r.ctx.Err()
		}
		r.d.failed(g.target, err)
	}
	if r.park == nil {
		return errHeldFails
	}
	for _, o := range r.order {
		if o.target == g.target && o.fate == deliverIt {
			o.fate = holdIt
			if err := r.hold(o); err != nil {
				return err
			}
		}
	}
	g.fate = holdIt
	return r.hold(g)
}

// hold moves g's records read so far to its target's held file.
func (r *fileRun) hold(g *group) error {
	if g.body.Len() == 0 {
		return nil
	}
	err := r.park.add(g.target, g.prefix, g.source, g.body.Bytes())
	g.body.Reset()
	g.lines = 0
	return err
}

// finish writes the groups' last objects.
func (r *fileRun) finish() error {
	for _, g := range r.order {
		if g.fate == deliverIt {
			if err := r.put(g); err != nil {
				return err
			}
		}
	}
	return nil
}

// bound drops the oldest held records while they take more than half
// the spool's bound (the other half is for what comes meanwhile), logs
// the records the full spool refused since the last round, forgets the
// targets with nothing held, and counts the spool's bytes afresh.
func (d *Delivery) bound() error {
	l, err := d.spool.list()
	if err != nil {
		return err
	}
	held := int64(0)
	for _, h := range l.held {
		held += h.size
	}
	var errs []error
	for _, h := range l.held {
		if held <= d.spool.max/2 {
			break
		}
		path := filepath.Join(d.spool.dir, h.name)
		n, err := countLines(path)
		if err == nil {
			err = os.Remove(path)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		held -= h.size
		l.bytes -= h.size
		d.dropped(DropEvicted, h.target, "", n)
	}
	d.spool.stored.Store(l.bytes)
	if n := d.spool.count.dropped[DropSpoolFull].Load(); n > d.full {
		if total, ok := d.warn.note(DropSpoolFull.String(), n-d.full, d.now()); ok {
			d.log.Warn("bucket log records dropped: the spool is at --bucket-log-spool-max", "records", total,
				"spool_bytes", d.spool.Bytes(), "max", d.spool.max)
		}
		d.full = n
	}
	kept := map[string]bool{}
	for _, h := range l.held {
		kept[h.target] = true
	}
	for t, w := range d.waits {
		if !kept[t] && w.round != d.round {
			delete(d.waits, t)
		}
	}
	d.spool.count.waiting.Store(int64(len(d.waits)))
	return errors.Join(errs...)
}

// countLines counts the records of a spool file.
func countLines(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, buf := 0, make([]byte, 64<<10)
	for {
		m, err := f.Read(buf)
		n += bytes.Count(buf[:m], []byte{'\n'})
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// uniqueString is the 16 upper-case hex characters ending a log object's
// name: a hash of the spool file, the group and its part, so that
// delivering the same file again writes the same names.
func uniqueString(file string, g *group) string {
	h := sha256.New()
	for _, s := range []string{file, g.target, g.prefix, g.source, strconv.Itoa(g.part)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return strings.ToUpper(hex.EncodeToString(h.Sum(nil)[:8]))
}
