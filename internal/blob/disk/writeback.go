package disk

// A blob file's bytes go through the page cache, so a GET soon after the
// PUT reads memory, not the device. So that the fsync at Commit does not
// have to write the whole blob at once, the writer hands each
// writebackChunk of dirty pages to the device as soon as it is written
// (sync_file_range on Linux): writeback overlaps the rest of the upload,
// and the fsync waits for the last chunk only (ADR 0009). The pages stay
// cached. Durability still rests on the fsync alone; the early writeback
// is a hint whose errors the fsync reports again.
const writebackChunk = 4 << 20
