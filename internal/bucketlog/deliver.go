package bucketlog

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jogstore/jog/internal/meta"
)

// Store is where log objects go: service.Service.PutLogObject.
type Store interface {
	PutLogObject(ctx context.Context, bucket, key string, body []byte) error
}

// Delivery moves a spool's records into their target buckets.
type Delivery struct {
	spool *Spool
	store Store
	log   *slog.Logger
}

// NewDelivery returns the delivery of spool's records into store.
func NewDelivery(spool *Spool, store Store, log *slog.Logger) *Delivery {
	return &Delivery{spool: spool, store: store, log: log}
}

// Run delivers at once (what an earlier run or ended gateways left) and
// then every interval, until ctx ends.
func (d *Delivery) Run(ctx context.Context, interval time.Duration) {
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
// delivers every sealed file, oldest first. A file whose objects could
// not all be written stays for the next call.
func (d *Delivery) Deliver(ctx context.Context) error {
	var errs []error
	if err := d.spool.Adopt(); err != nil {
		errs = append(errs, fmt.Errorf("adopting ended gateways' spools: %w", err))
	}
	if err := d.spool.Seal(); err != nil {
		errs = append(errs, fmt.Errorf("sealing the spool: %w", err))
	}
	files, err := d.spool.Sealed()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, name := range files {
		if ctx.Err() != nil {
			break
		}
		if err := d.deliverFile(ctx, name); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// group is the records of one log object in the making.
type group struct {
	target, prefix, source string
	part                   int
	body                   bytes.Buffer
}

// deliverFile writes the objects of one sealed file, then removes it.
func (d *Delivery) deliverFile(ctx context.Context, name string) error {
	path := filepath.Join(d.spool.dir, name)
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	sealed, _ := sealTime(name)
	groups := map[string]*group{}
	var order []*group
	objects, lines := 0, 0
	put := func(g *group) error {
		if g.body.Len() == 0 {
			return nil
		}
		key := g.prefix + sealed.Format(nameTime) + "-" + uniqueString(name, g)
		err := d.store.PutLogObject(ctx, g.target, key, g.body.Bytes())
		if errors.Is(err, meta.ErrBucketNotFound) {
			d.log.Warn("bucket log target bucket is gone: records dropped", "target", g.target,
				"source", g.source, "bytes", g.body.Len())
			err = nil
		}
		if err == nil {
			objects++
		}
		g.body.Reset()
		g.part++
		return err
	}
	skipped, err := readLines(f, func(l spoolLine) error {
		id := l.target + "\x00" + l.prefix + "\x00" + l.source
		g := groups[id]
		if g == nil {
			g = &group{target: l.target, prefix: l.prefix, source: l.source}
			groups[id] = g
			order = append(order, g)
		}
		lines++
		g.body.Write(l.record)
		g.body.WriteByte('\n')
		if g.body.Len() >= groupMax {
			return put(g)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, g := range order {
		if err := put(g); err != nil {
			return err
		}
	}
	if skipped > 0 {
		d.log.Warn("bucket log spool lines not understood (torn by a crash?): skipped", "file", name, "lines", skipped)
	}
	f.Close()
	if err := os.Remove(path); err != nil {
		return err
	}
	d.log.Debug("bucket logs delivered", "file", name, "records", lines, "objects", objects)
	return nil
}

// uniqueString is the 16 upper-case hex characters ending a log object's
// name: a hash of the sealed file, the group and its part, so that
// delivering the same file again writes the same names.
func uniqueString(file string, g *group) string {
	h := sha256.New()
	for _, s := range []string{file, g.target, g.prefix, g.source, strconv.Itoa(g.part)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return strings.ToUpper(hex.EncodeToString(h.Sum(nil)[:8]))
}
