package disk

import (
	"sync"
	"unsafe"
)

// Direct I/O moves blob bytes from a process buffer straight to the device,
// without a copy into the page cache: on this project's machine it halves
// the CPU a write costs (ADR 0006). But a blob written so is not cached, and
// small objects are often read soon after they are written, so a blob's
// first directMin bytes go through the page cache and only the rest is
// direct. Buffers and the length of every direct write are multiples of
// directAlign, which covers the logical block size of common devices; the
// unaligned tail of a blob is written through the page cache.
const (
	directAlign   = 4096
	directBufSize = 512 << 10
	directMin     = 4 << 20
)

var directBufs = sync.Pool{New: func() any { b := alignedBuf(directBufSize); return &b }}

// alignedBuf returns n bytes whose first byte sits on a directAlign boundary.
func alignedBuf(n int) []byte {
	b := make([]byte, n+directAlign)
	off := 0
	if r := int(uintptr(unsafe.Pointer(&b[0])) & (directAlign - 1)); r != 0 {
		off = directAlign - r
	}
	return b[off : off+n : off+n]
}
