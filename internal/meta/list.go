package meta

import (
	"context"
	"strings"
)

// ScanFunc returns up to limit latest-version object summaries of one bucket
// in byte-wise key order, starting at start (inclusive when inclusive is true,
// else exclusive) and stopping before end ("" means no upper bound).
type ScanFunc func(ctx context.Context, start string, inclusive bool, end string, limit int) ([]ObjectSummary, error)

// scanBatch bounds one ScanFunc call when many keys are skipped.
const scanBatch = 1000

// skipBatch is the first batch after a common prefix (and the first batch of
// a delimited listing): rows of the same group after the first are thrown
// away, so a directory of many subdirectories must not fetch scanBatch rows
// per subdirectory. Batches double while their rows are all used.
const skipBatch = 8

// List builds a ListPage from an ordered key scan, applying prefix, delimiter
// grouping, After and Limit exactly as S3 does. Backends implement ScanFunc
// (one indexed range query) and share this logic, so all of them page alike.
func List(ctx context.Context, scan ScanFunc, opts ListOptions) (ListPage, error) {
	return list(ctx, scan, false, opts)
}

// GroupedScanFunc is a ScanFunc that rolls keys up as it scans: of the keys
// that share a common prefix under prefix and delimiter, it returns only the
// first, and goes on from the first key past that prefix. A backend can do
// that inside one query (a skip scan), where List needs a query per group.
type GroupedScanFunc func(ctx context.Context, start string, inclusive bool, end, prefix, delimiter string, limit int) ([]ObjectSummary, error)

// ListGrouped is List over a GroupedScanFunc.
func ListGrouped(ctx context.Context, scan GroupedScanFunc, opts ListOptions) (ListPage, error) {
	return list(ctx, func(ctx context.Context, start string, inclusive bool, end string, limit int) ([]ObjectSummary, error) {
		return scan(ctx, start, inclusive, end, opts.Prefix, opts.Delimiter, limit)
	}, opts.Delimiter != "", opts)
}

// list is List; rolledUp says scan returns one row per common prefix.
func list(ctx context.Context, scan ScanFunc, rolledUp bool, opts ListOptions) (ListPage, error) {
	var page ListPage
	if opts.Limit <= 0 {
		return page, nil
	}
	end := PrefixEnd(opts.Prefix)
	start, inclusive := opts.Prefix, true
	if opts.After >= opts.Prefix {
		start, inclusive = opts.After, false
		if cp, ok := commonPrefix(opts.After, opts.Prefix, opts.Delimiter); ok && cp == opts.After {
			// After names a common prefix returned earlier: skip all its keys.
			start, inclusive = PrefixEnd(cp), true
			if start == "" {
				return page, nil // the group is all 0xff bytes: nothing can follow
			}
		}
	}
	if end != "" && start >= end && start != "" {
		return page, nil
	}
	count := 0
	size := scanBatch // the next batch size, before the page's own bound
	if opts.Delimiter != "" && !rolledUp {
		size = skipBatch
	}
	for {
		batch := min(opts.Limit-count+1, size) // one more than fits: is the page truncated?
		rows, err := scan(ctx, start, inclusive, end, batch)
		if err != nil {
			return ListPage{}, err
		}
		skipped := false // broke off the batch to skip past a common prefix
		for _, o := range rows {
			if count == opts.Limit {
				page.Truncated = true
				return page, nil
			}
			count++
			if cp, grouped := commonPrefix(o.Key, opts.Prefix, opts.Delimiter); grouped {
				page.CommonPrefixes = append(page.CommonPrefixes, cp)
				page.NextAfter = cp
				start, inclusive = PrefixEnd(cp), true
				if rolledUp {
					if start == "" {
						return page, nil // nothing can follow the group
					}
					continue // the next row is past the group already
				}
				skipped = true
				break
			}
			page.Objects = append(page.Objects, o)
			page.NextAfter = o.Key
			start, inclusive = o.Key, false
		}
		if skipped && (start == "" || end != "" && start >= end) {
			return page, nil // nothing can follow the group
		}
		if !skipped && len(rows) < batch {
			return page, nil
		}
		if skipped {
			size = skipBatch
		} else {
			size = min(2*size, scanBatch)
		}
	}
}

// CommonPrefixOf returns the common prefix key rolls up to under prefix and
// delimiter, if any.
func CommonPrefixOf(key, prefix, delimiter string) (string, bool) {
	return commonPrefix(key, prefix, delimiter)
}

// commonPrefix returns the common prefix key rolls up to, if any.
func commonPrefix(key, prefix, delimiter string) (string, bool) {
	if delimiter == "" || !strings.HasPrefix(key, prefix) {
		return "", false
	}
	i := strings.Index(key[len(prefix):], delimiter)
	if i < 0 {
		return "", false
	}
	return key[:len(prefix)+i+len(delimiter)], true
}

// PrefixEnd returns the smallest string greater than every string that starts
// with prefix, or "" when there is none (empty prefix or all 0xff bytes).
func PrefixEnd(prefix string) string {
	b := []byte(prefix)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}
