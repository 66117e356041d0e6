// Formatting of sizes, dates and keys for display, and the encoding of keys
// into URL paths. Pure.

/** bytes formats n bytes with binary units: 1.5 MiB. */
export function bytes(n) {
  if (!Number.isFinite(n)) return '';
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < u.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${u[i]}`;
}

/** date formats an ISO time as local "YYYY-MM-DD HH:MM"; '' for none. */
export function date(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (x) => String(x).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/**
 * encodeKey encodes an object key for a URL path the way SigV4 does:
 * every byte but A-Z a-z 0-9 - _ . ~ escaped, '/' kept.
 */
export function encodeKey(key) {
  return key
    .split('/')
    .map((s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase()))
    .join('/');
}

/** baseName is the last segment of a key or prefix ("a/b/" → "b/"). */
export function baseName(key) {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  const i = trimmed.lastIndexOf('/');
  return key.slice(i + 1);
}

/** parentPrefix is the prefix a key lives under ("a/b/c" → "a/b/", "a" → ""). */
export function parentPrefix(key) {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key;
  const i = trimmed.lastIndexOf('/');
  return i < 0 ? '' : trimmed.slice(0, i + 1);
}

/** crumbs splits a prefix into breadcrumb steps: "a/b/" → [{name:"a", prefix:"a/"}, {name:"b", prefix:"a/b/"}]. */
export function crumbs(prefix) {
  const out = [];
  let acc = '';
  for (const seg of prefix.split('/').slice(0, -1)) {
    acc += seg + '/';
    out.push({ name: seg, prefix: acc });
  }
  return out;
}

/** validBucketName applies S3's bucket naming rules; returns '' or why not. */
export function validBucketName(name) {
  if (name.length < 3 || name.length > 63) return 'A bucket name has 3 to 63 characters.';
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) {
    return 'Lowercase letters, digits, dots and hyphens only, starting and ending with a letter or digit.';
  }
  if (/\.\./.test(name) || /^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'No two dots in a row, and not an IP address.';
  return '';
}

/** ENCRYPTION_NAMES are S3's names of its encryption modes, by the value of x-amz-server-side-encryption or SSEAlgorithm. */
export const ENCRYPTION_NAMES = { AES256: 'SSE-S3 (AES256)', 'aws:kms': 'SSE-KMS' };

/**
 * objectEncryption says how an object is kept, from HEAD's headers (a Headers): {mode, keyId}, mode a name of
 * ENCRYPTION_NAMES, 'SSE-C (customer key)' or 'None'.
 */
export function objectEncryption(hd) {
  if (hd.get('x-amz-server-side-encryption-customer-algorithm')) return { mode: 'SSE-C (customer key)', keyId: '' };
  const sse = hd.get('x-amz-server-side-encryption') || '';
  if (!sse) return { mode: 'None', keyId: '' };
  return { mode: ENCRYPTION_NAMES[sse] || sse, keyId: (sse === 'aws:kms' && hd.get('x-amz-server-side-encryption-aws-kms-key-id')) || '' };
}
