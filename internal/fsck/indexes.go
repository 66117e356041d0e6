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

// versions checks that a key's versions, delete markers and locks agree
// (meta.VersionChecker); it repairs nothing.
func (c *checker) versions(ctx context.Context) error {
	vc, ok := c.meta.(meta.VersionChecker)
	if !ok {
		return nil
	}
	return vc.CheckVersions(ctx, func(vp meta.VersionProblem) {
		c.sum.Versions++
		c.report(Problem{Kind: Versions, Bucket: vp.Bucket, Key: vp.Key, VersionID: vp.VersionID, Detail: vp.Detail})
	})
}
