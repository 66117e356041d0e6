// The upload queue: files and folders from a picker or a drop, two files
// at a time, each a single PUT with progress or, above 16 MiB, a multipart
// upload of three parts at a time; cancel per file (aborting the multipart
// upload). The panel lists every file with its state and a <progress>.

import * as api from './api.js';
import { h, button } from './dom.js';
import { bytes } from './format.js';
import { parseUploadId, parseError, completeMultipartXML } from './xml.js';
import { planParts, useMultipart, runPool, CONCURRENCY } from './multipart.js';

/** FILES_AT_ONCE: files uploading at the same time. */
const FILES_AT_ONCE = 2;
/** PART_ATTEMPTS: tries per part when the connection breaks or the server answers 5xx. */
const PART_ATTEMPTS = 3;

const queue = [];
let list = null;
let panel = null;
let active = 0;

/** uploadPanel builds the (initially hidden) panel; main.js adds it once. */
export function uploadPanel() {
  list = h('ul', { class: 'uploads', 'data-test': 'upload-list', id: 'upload-list' });
  // The panel folds to its title bar so that it hides nothing it covers.
  const toggle = () => {
    const open = fold.getAttribute('aria-expanded') !== 'true';
    fold.setAttribute('aria-expanded', String(open));
    fold.textContent = open ? 'Hide' : 'Show';
    panel.classList.toggle('folded', !open);
  };
  const fold = button('Hide', toggle, 'secondary', { 'aria-expanded': 'true', 'aria-controls': 'upload-list', 'data-test': 'upload-fold' });
  panel = h(
    'section',
    { class: 'upload-panel', 'aria-label': 'Uploads', hidden: true },
    h(
      'div',
      { class: 'panel-head' },
      h('h2', null, 'Uploads'),
      h('div', { class: 'actions' }, button('Clear finished', clearFinished, 'secondary', { 'data-test': 'upload-clear' }), fold),
    ),
    list,
  );
  return panel;
}

/** enqueue adds [{file, name, key}] for bucket and starts uploading. */
export function enqueue(bucket, files) {
  for (const f of files) {
    const item = { bucket, key: f.key, name: f.name, file: f.file, state: 'queued', loaded: 0, cancel: null, cancelled: false };
    item.progress = h('progress', { max: String(Math.max(1, f.file.size)), value: 0 });
    item.note = h('span', { class: 'note' }, `${bytes(f.file.size)} · queued`);
    item.cancelBtn = button('Cancel', () => cancel(item), 'linkish', { 'data-test': 'upload-cancel', 'aria-label': `Cancel ${f.name}` });
    item.row = h(
      'li',
      { 'data-test': 'upload-row', 'data-name': f.name, 'data-key': f.key, 'data-state': 'queued' },
      h('span', { class: 'name', title: `${bucket}/${f.key}` }, f.name),
      item.progress,
      item.note,
      item.cancelBtn,
    );
    list.append(item.row);
    queue.push(item);
  }
  panel.hidden = false;
  pump();
}

function setState(item, state, note) {
  item.state = state;
  item.row.dataset.state = state;
  item.note.textContent = note;
  if (state !== 'queued' && state !== 'uploading') item.cancelBtn.remove();
}

// setLoaded shows the bytes sent so far; never less than shown before (a
// part sent again after a broken connection counts once).
function setLoaded(item, n) {
  const loaded = Math.max(item.loaded, n);
  item.loaded = loaded;
  item.progress.value = loaded;
  const pct = item.file.size ? Math.floor((100 * loaded) / item.file.size) : 100;
  item.note.textContent = `${bytes(loaded)} of ${bytes(item.file.size)} · ${pct}%`;
}

function pump() {
  while (active < FILES_AT_ONCE) {
    const item = queue.find((i) => i.state === 'queued');
    if (!item) return;
    active++;
    setState(item, 'uploading', 'starting');
    run(item)
      .then(() => {
        item.progress.value = item.file.size;
        setState(item, 'done', `${bytes(item.file.size)} · done`);
        window.dispatchEvent(new CustomEvent('jog-uploaded', { detail: { bucket: item.bucket, key: item.key } }));
      })
      .catch((e) => {
        if (item.cancelled) setState(item, 'cancelled', 'cancelled');
        else {
          setState(item, 'failed', `${e.code}: ${e.message}`);
          // Shown in the banner too (main.js), as any refused action is.
          window.dispatchEvent(new CustomEvent('jog-upload-failed', { detail: e }));
        }
      })
      .finally(() => {
        active--;
        pump();
      });
  }
}

function cancel(item) {
  item.cancelled = true;
  if (item.state === 'queued') setState(item, 'cancelled', 'cancelled');
  else if (item.cancel) item.cancel();
}

function clearFinished() {
  for (let i = queue.length - 1; i >= 0; i--) {
    if (queue[i].state !== 'queued' && queue[i].state !== 'uploading') {
      queue[i].row.remove();
      queue.splice(i, 1);
    }
  }
  if (queue.length === 0) panel.hidden = true;
}

function cancelled() {
  return new api.APIError(0, 'Cancelled', 'Cancelled.');
}

async function run(item) {
  const type = item.file.type || 'application/octet-stream';
  if (!useMultipart(item.file.size)) {
    const x = api.xhrSend('PUT', api.s3url(item.bucket, item.key), item.file, { 'Content-Type': type }, (n) => setLoaded(item, n));
    item.cancel = x.abort;
    await x.promise;
    return;
  }
  await multipart(item, type);
}

/** multipart uploads item in parts; on failure or cancel it aborts the upload. */
async function multipart(item, type) {
  const { bucket, key, file } = item;
  const init = await api.s3text('POST', bucket, key, { query: { uploads: '' }, headers: { 'Content-Type': type } });
  const uploadId = parseUploadId(init);
  const inflight = new Set();
  item.cancel = () => inflight.forEach((x) => x.abort());
  const parts = planParts(file.size);
  const loaded = new Array(parts.length).fill(0);
  const report = () =>
    setLoaded(
      item,
      loaded.reduce((a, b) => a + b, 0),
    );
  try {
    if (item.cancelled) throw cancelled();
    const etags = await runPool(parts, CONCURRENCY, async (p, i) => {
      for (let attempt = 1; ; attempt++) {
        if (item.cancelled) throw cancelled();
        const url = api.s3url(bucket, key, { partNumber: String(p.part), uploadId });
        const x = api.xhrSend('PUT', url, file.slice(p.start, p.end), {}, (n) => {
          loaded[i] = n;
          report();
        });
        inflight.add(x);
        try {
          const xhr = await x.promise;
          loaded[i] = p.end - p.start;
          report();
          return { part: p.part, etag: xhr.getResponseHeader('ETag') };
        } catch (e) {
          // A broken connection or a 5xx is retried (twice); a refusal is not.
          const transient = e.code !== 'Cancelled' && (e.status === 0 || e.status >= 500);
          if (!transient || attempt >= PART_ATTEMPTS || item.cancelled) throw e;
          loaded[i] = 0;
        } finally {
          inflight.delete(x);
        }
      }
    });
    if (item.cancelled) throw cancelled();
    item.note.textContent = 'completing';
    const res = await api.s3text('POST', bucket, key, {
      query: { uploadId },
      headers: { 'Content-Type': 'application/xml' },
      body: completeMultipartXML(etags),
    });
    // CompleteMultipartUpload may answer 200 with an <Error> body.
    const err = parseError(res);
    if (err) throw new api.APIError(200, err.code, err.message, err.requestId);
  } catch (e) {
    inflight.forEach((x) => x.abort());
    await api.s3('DELETE', bucket, key, { query: { uploadId } }).catch(() => {});
    throw e;
  }
}

/**
 * filesFromDrop reads a drop's files, walking dropped folders:
 * [{file, name}] with name the path inside what was dropped.
 */
export async function filesFromDrop(dt) {
  const entries = [...(dt.items || [])].filter((i) => i.kind === 'file').map((i) => (i.webkitGetAsEntry ? i.webkitGetAsEntry() : null));
  if (entries.length === 0 || entries.some((e) => !e)) return [...dt.files].map((f) => ({ file: f, name: f.name }));
  const out = [];
  const walk = async (entry) => {
    if (entry.isFile) {
      const file = await new Promise((res, rej) => entry.file(res, rej));
      out.push({ file, name: entry.fullPath.replace(/^\//, '') });
    } else if (entry.isDirectory) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => reader.readEntries(res, rej));
        if (batch.length === 0) break;
        for (const e of batch) await walk(e);
      }
    }
  };
  for (const e of entries) await walk(e);
  return out;
}
