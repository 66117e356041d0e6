// The multipart planner: which byte ranges become which parts, and a pool
// that runs at most n part uploads at a time. Pure, so node:test covers it.

export const MiB = 1024 * 1024;
/** MULTIPART_THRESHOLD: files larger than this go up in parts. */
export const MULTIPART_THRESHOLD = 16 * MiB;
/** PART_SIZE: the size of every part but the last, unless the file needs bigger ones. */
export const PART_SIZE = 16 * MiB;
/** MAX_PARTS is S3's limit on parts per upload. */
export const MAX_PARTS = 10000;
/** CONCURRENCY: parts in flight per file. */
export const CONCURRENCY = 3;

/**
 * planParts splits size bytes into parts of partSize (grown in whole MiB
 * when size would need more than MAX_PARTS): [{part, start, end}], end
 * exclusive, part numbers from 1. An empty file is one empty part.
 */
export function planParts(size, partSize = PART_SIZE) {
  if (!Number.isSafeInteger(size) || size < 0) throw new RangeError('size must be a non-negative integer');
  if (!(partSize >= 5 * MiB)) throw new RangeError('parts are at least 5 MiB');
  if (Math.ceil(size / partSize) > MAX_PARTS) partSize = Math.ceil(size / MAX_PARTS / MiB) * MiB;
  const parts = [];
  let start = 0;
  do {
    const end = Math.min(start + partSize, size);
    parts.push({ part: parts.length + 1, start, end });
    start = end;
  } while (start < size);
  return parts;
}

/** useMultipart says whether a file of size bytes goes up in parts. */
export function useMultipart(size) {
  return size > MULTIPART_THRESHOLD;
}

/**
 * runPool calls fn(item) for every item with at most n calls pending at a
 * time, and resolves to the results in item order. The first failure
 * rejects it and starts no more calls (pending ones run to their end).
 */
export function runPool(items, n, fn) {
  return new Promise((resolve, reject) => {
    const results = new Array(items.length);
    let next = 0;
    let done = 0;
    let failed = false;
    if (items.length === 0) {
      resolve(results);
      return;
    }
    const start = () => {
      if (failed || next >= items.length) return;
      const i = next++;
      Promise.resolve()
        .then(() => fn(items[i], i))
        .then(
          (r) => {
            results[i] = r;
            done++;
            if (done === items.length) resolve(results);
            else start();
          },
          (e) => {
            if (!failed) {
              failed = true;
              reject(e);
            }
          },
        );
    };
    for (let k = 0; k < Math.min(n, items.length); k++) start();
  });
}
