//go:build linux || darwin || freebsd

package disk

import "syscall"

// fsSpace returns the bytes available to unprivileged writers and the size
// of the file system holding dir.
func fsSpace(dir string) (free, total int64, ok bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), int64(st.Blocks) * int64(st.Bsize), true
}
