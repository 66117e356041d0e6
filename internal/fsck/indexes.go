package fsck

import (
	"context"

	"github.com/jogstore/jog/internal/meta"
)

// indexes checks (and with Repair rebuilds) the indexes the metadata store
// derives from its objects. It reads one snapshot per bucket, so a running
// server's writes cause no false findings.
func (c *checker) indexes(ctx context.Context) error {
	ic, ok := c.meta.(meta.IndexChecker)
	if !ok {
		return nil
	}
	return ic.CheckIndexes(ctx, c.opts.Repair, func(ip meta.IndexProblem) {
		p := Problem{Kind: Index, Bucket: ip.Bucket, Key: ip.Name, Detail: ip.Detail}
		c.sum.Index++
		if ip.Repaired {
			p.Action = ActionRebuilt
			c.sum.IndexRebuilt++
		}
		c.report(p)
	})
}
