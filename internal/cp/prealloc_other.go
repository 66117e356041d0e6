//go:build !linux

package cp

import "os"

// preallocate sizes f for the parallel writes of a download.
func preallocate(f *os.File, size int64) error { return f.Truncate(size) }
