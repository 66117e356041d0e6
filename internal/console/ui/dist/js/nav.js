// In-app links: ROOT, and <a> elements that navigate without reloading.

import { h } from './dom.js';

export const ROOT = '/console/';

let go = (href) => {
  location.href = href;
};

/** setNavigate sets the function links navigate with (main.js's). */
export function setNavigate(fn) {
  go = fn;
}

/** link is an <a> that navigates inside the app (a modified click opens a tab as usual). */
export function link(href, attrs, ...children) {
  return h(
    'a',
    {
      ...attrs,
      href,
      onclick: (e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        go(href);
      },
    },
    ...children,
  );
}

/** bucketHref is the objects page of bucket at prefix. */
export function bucketHref(bucket, prefix = '') {
  return `${ROOT}b/${encodeURIComponent(bucket)}/${prefix.split('/').map(encodeURIComponent).join('/')}`;
}
