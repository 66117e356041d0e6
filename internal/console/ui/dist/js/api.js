// The console backend's HTTP API (docs/CONSOLE.md): the session, and the
// S3, IAM, presign and metrics proxies. Every call but signing in carries
// the session's CSRF token; an expired session calls the onExpired hook.

import { parseError } from './xml.js';
import { encodeKey } from './format.js';

export const BASE = '/console/api';

/** APIError is a refused request: the HTTP status and the S3, IAM or console error code and message. */
export class APIError extends Error {
  constructor(status, code, message, requestId = '') {
    super(message || code || `HTTP ${status}`);
    this.status = status;
    this.code = code || `HTTP${status}`;
    this.requestId = requestId;
  }
}

let csrf = '';
let onExpired = () => {};

/** setExpiredHandler sets what runs when the server says the session is gone. */
export function setExpiredHandler(fn) {
  onExpired = fn;
}

/** errorFrom reads an error answer: console JSON, S3/IAM XML, or plain status. */
export async function errorFrom(res) {
  const body = await res.text().catch(() => '');
  return errorFromText(res.status, res.headers.get('Content-Type') || '', body);
}

export function errorFromText(status, type, body) {
  if (type.includes('json')) {
    try {
      const j = JSON.parse(body);
      return new APIError(status, j.code, j.message);
    } catch {
      /* fall through */
    }
  }
  const x = body ? parseError(body) : null;
  if (x) return new APIError(status, x.code, x.message, x.requestId);
  return new APIError(status, `HTTP${status}`, body.slice(0, 200) || `The server answered ${status}.`);
}

function expiredCheck(err) {
  if (err.status === 401 || err.code === 'ExpiredToken') {
    csrf = '';
    onExpired(err);
  }
  return err;
}

async function call(url, init = {}) {
  const headers = new Headers(init.headers || {});
  if (csrf) headers.set('X-Jog-Csrf', csrf);
  const res = await fetch(url, { ...init, headers, credentials: 'same-origin' });
  if (!res.ok) throw expiredCheck(await errorFrom(res));
  return res;
}

/** session reads a session answer and keeps its CSRF token for the calls that follow. */
async function session(res) {
  if (!res.ok) throw await errorFrom(res);
  const s = await res.json();
  csrf = s.csrf || '';
  return s;
}

/** getSession returns the current session, or null when signed out. */
export async function getSession() {
  const res = await fetch(`${BASE}/session`, { credentials: 'same-origin' });
  return res.status === 401 ? null : session(res);
}

/** signIn exchanges an access key and secret for a session. */
export async function signIn(accessKey, secretKey) {
  const res = await fetch(`${BASE}/session`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ accessKey, secretKey }),
  });
  return session(res);
}

/** signOut ends the session (the cookie is cleared by the server). */
export async function signOut() {
  try {
    await call(`${BASE}/session`, { method: 'DELETE' });
  } finally {
    csrf = '';
  }
}

/** csrfHeader is the header an XMLHttpRequest must carry. */
export function csrfHeaders() {
  return csrf ? { 'X-Jog-Csrf': csrf } : {};
}

/** query builds "?a=b&flag" from an object; a value of '' gives a bare name. */
export function query(q) {
  if (!q) return '';
  const parts = [];
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue;
    parts.push(v === '' ? encodeURIComponent(k) : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`);
  }
  return parts.length ? '?' + parts.join('&') : '';
}

/** s3url is the proxy URL of a bucket, or of a key in it, with a query. */
export function s3url(bucket = '', key = '', q = null) {
  let p = `${BASE}/s3/`;
  if (bucket) p += encodeURIComponent(bucket);
  if (bucket && key) p += '/' + encodeKey(key);
  return p + query(q);
}

/** s3 sends one S3 request through the proxy; resolves to the Response, rejects with APIError. */
export function s3(method, bucket, key = '', opts = {}) {
  return call(s3url(bucket, key, opts.query), { method, headers: opts.headers, body: opts.body, signal: opts.signal });
}

/** s3text is s3 resolving to the answer's body text. */
export async function s3text(method, bucket, key = '', opts = {}) {
  return (await s3(method, bucket, key, opts)).text();
}

/** iam sends one IAM Action (form-encoded) through the proxy; resolves to the XML text. */
export async function iam(action, params = {}) {
  const form = new URLSearchParams({ Action: action, Version: '2010-05-08', ...params });
  const res = await call(`${BASE}/iam`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
  });
  return res.text();
}

/**
 * presign returns a presigned GET URL of an object, on the S3 endpoint, valid for expires seconds:
 * with inline, served with Content-Disposition: inline (a preview); with download, as an attachment
 * named as the key (a link's download attribute is ignored across origins, and S3's is not the console's).
 */
export async function presign(bucket, key, expires, { versionId = '', inline = false, download = false } = {}) {
  const body = { bucket, key, expires };
  if (versionId) body.versionId = versionId;
  if (inline) body.inline = true;
  if (download) body.download = true;
  const res = await call(`${BASE}/presign`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()).url;
}

/** metrics returns the server's Prometheus text. */
export async function metrics() {
  return (await call(`${BASE}/metrics`)).text();
}

/**
 * xhrSend sends body with XMLHttpRequest (fetch reports no upload
 * progress): onProgress(loaded) as it goes; resolves to the XHR on 2xx,
 * rejects with APIError otherwise; abort() on the returned handle cancels.
 */
export function xhrSend(method, url, body, headers, onProgress) {
  const xhr = new XMLHttpRequest();
  const promise = new Promise((resolve, reject) => {
    xhr.open(method, url);
    for (const [k, v] of Object.entries({ ...headers, ...csrfHeaders() })) xhr.setRequestHeader(k, v);
    if (onProgress) xhr.upload.onprogress = (e) => onProgress(e.loaded);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve(xhr);
      else reject(expiredCheck(errorFromText(xhr.status, xhr.getResponseHeader('Content-Type') || '', xhr.responseText || '')));
    };
    xhr.onerror = () => reject(new APIError(0, 'NetworkError', 'The upload failed: the connection broke.'));
    xhr.onabort = () => reject(new APIError(0, 'Cancelled', 'Cancelled.'));
    xhr.send(body);
  });
  return { promise, abort: () => xhr.abort() };
}
