//go:build !(linux || darwin || freebsd)

package disk

// fsSpace is unknown on this platform: no reserve is kept.
func fsSpace(dir string) (free, total int64, ok bool) { return 0, 0, false }
