package meta

import "context"

// The version and upload listings of every backend: where a page starts
// (markers, a common prefix to skip), the ListKeyed walk, and the page's
// next markers. A backend supplies only the ordered scan.

// LiveSeq is the place of a key's live version among its versions: above
// every noncurrent version's sequence number, since it is the newest.
const LiveSeq = 1 << 62

// VersionEntry is a version with its place among its key's versions: Seq,
// the creation order within the key (newest highest), LiveSeq for the live
// version.
type VersionEntry struct {
	VersionSummary
	Seq int64
}

// VersionScan reads up to limit versions in (key, Seq descending) order:
// the versions of key below seq, then every version of the later keys
// below end ("" for no bound). seq LiveSeq+1 starts at key's newest
// version, 0 after its oldest.
type VersionScan func(ctx context.Context, key string, seq int64, end string, limit int) ([]VersionEntry, error)

// VersionSeq returns the Seq of version versionID of key, ErrVersionMarker
// when key has no such version.
type VersionSeq func(ctx context.Context, key, versionID string) (int64, error)

// ListVersions builds a page of ListObjectVersions (see
// ListVersionsOptions) from a backend's scan and marker lookup; rolledUp
// says scan rolls up the versions under each common prefix of
// opts.Prefix and opts.Delimiter to the first (KeyedList.RolledUp).
func ListVersions(ctx context.Context, opts ListVersionsOptions, seqOf VersionSeq, scan VersionScan, rolledUp bool) (VersionsPage, error) {
	var page VersionsPage
	if opts.Limit <= 0 {
		return page, nil
	}
	key, seq := opts.Prefix, int64(LiveSeq+1)
	if opts.KeyMarker != "" && opts.KeyMarker >= opts.Prefix {
		key, seq = opts.KeyMarker, 0
		if cp, ok := commonPrefix(opts.KeyMarker, opts.Prefix, opts.Delimiter); ok && cp == opts.KeyMarker {
			if key, seq = PrefixEnd(cp), LiveSeq+1; key == "" {
				return page, nil
			}
		} else if opts.VersionIDMarker != "" {
			var err error
			if seq, err = seqOf(ctx, opts.KeyMarker, opts.VersionIDMarker); err != nil {
				return page, err
			}
		}
	}
	if end := PrefixEnd(opts.Prefix); end != "" && key >= end {
		return page, nil
	}
	kp, err := ListKeyed(ctx, KeyedList[VersionEntry, versionPos]{
		Prefix: opts.Prefix, Delimiter: opts.Delimiter, Limit: opts.Limit,
		Scan: func(ctx context.Context, p versionPos, end string, limit int) ([]VersionEntry, error) {
			return scan(ctx, p.key, p.seq, end, limit)
		},
		Key:      func(e VersionEntry) string { return e.Key },
		After:    func(e VersionEntry) versionPos { return versionPos{e.Key, e.Seq} },
		At:       func(key string) versionPos { return versionPos{key, LiveSeq + 1} },
		RolledUp: rolledUp && opts.Delimiter != "",
	}, versionPos{key, seq})
	if err != nil {
		return VersionsPage{}, err
	}
	page = VersionsPage{CommonPrefixes: kp.CommonPrefixes, Truncated: kp.Truncated, NextKeyMarker: kp.LastPrefix}
	for _, e := range kp.Entries {
		page.Versions = append(page.Versions, e.VersionSummary)
	}
	if n := len(page.Versions); kp.LastPrefix == "" && n > 0 {
		page.NextKeyMarker, page.NextVersionIDMarker = page.Versions[n-1].Key, page.Versions[n-1].VersionID
	}
	return page, nil
}

// versionPos is a position in a version listing: key's versions below
// seq, then the later keys.
type versionPos struct {
	key string
	seq int64
}

// UploadPos is a position in an upload listing, which is in (key, upload
// ID) order: with Inclusive, Key's first upload; else just after Key's
// upload UploadID, or after every upload of Key when UploadID is "".
type UploadPos struct {
	Key, UploadID string
	Inclusive     bool
}

// UploadScan reads up to limit uploads in (key, upload ID) order from p
// on, below end ("" for no bound).
type UploadScan func(ctx context.Context, p UploadPos, end string, limit int) ([]Upload, error)

// ListUploads builds a page of ListUploads (see ListUploadsOptions) from a
// backend's scan; rolledUp as for ListVersions. Upload IDs increase with
// time, so (key, upload ID) order is key, then creation order.
func ListUploads(ctx context.Context, opts ListUploadsOptions, scan UploadScan, rolledUp bool) (UploadsPage, error) {
	var page UploadsPage
	if opts.Limit <= 0 {
		return page, nil
	}
	from := UploadPos{Key: opts.Prefix, Inclusive: true}
	if opts.KeyMarker != "" && opts.KeyMarker >= opts.Prefix {
		// An upload ID marker of "" (the key marker alone) starts after
		// every upload of the key; a key marker that is a common prefix
		// (a NextKeyMarker) after the whole group.
		from = UploadPos{Key: opts.KeyMarker, UploadID: opts.UploadIDMarker}
		if cp, ok := commonPrefix(opts.KeyMarker, opts.Prefix, opts.Delimiter); ok && cp == opts.KeyMarker {
			if from = (UploadPos{Key: PrefixEnd(cp), Inclusive: true}); from.Key == "" {
				return page, nil
			}
		}
	}
	kp, err := ListKeyed(ctx, KeyedList[Upload, UploadPos]{
		Prefix: opts.Prefix, Delimiter: opts.Delimiter, Limit: opts.Limit,
		Scan:     KeyedScan[Upload, UploadPos](scan),
		Key:      func(u Upload) string { return u.Key },
		After:    func(u Upload) UploadPos { return UploadPos{Key: u.Key, UploadID: u.UploadID} },
		At:       func(key string) UploadPos { return UploadPos{Key: key, Inclusive: true} },
		RolledUp: rolledUp && opts.Delimiter != "",
	}, from)
	if err != nil {
		return page, err
	}
	page = UploadsPage{Uploads: kp.Entries, CommonPrefixes: kp.CommonPrefixes, Truncated: kp.Truncated, NextKeyMarker: kp.LastPrefix}
	if n := len(kp.Entries); kp.LastPrefix == "" && n > 0 {
		page.NextKeyMarker, page.NextUploadIDMarker = kp.Entries[n-1].Key, kp.Entries[n-1].UploadID
	}
	return page, nil
}
