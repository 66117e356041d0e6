// What the signed-in principal may do, asked of the server rather than
// found out by trying: JOG's GetBucketPermissions and GetObjectPermissions
// (GET /{bucket}[/{key}]?permissions&actions=…, docs/CONSOLE-api.md),
// decided by the code that authorizes the real requests. A page disables
// what is not allowed and says why.

import * as api from './api.js';
import { h } from './dom.js';
import { parseXML, kids, kid, text } from './xml.js';

/** parsePermissions reads a Permissions answer: {principal, resource, allowed: {action: bool}, notificationTargets: bool|null}. */
export function parsePermissions(xml) {
  const root = parseXML(xml).documentElement;
  const allowed = {};
  for (const p of kids(root, 'Permission')) allowed[text(p, 'Action')] = text(p, 'Allowed') === 'true';
  const targets = kid(root, 'NotificationTargets');
  return {
    principal: text(root, 'Principal'),
    resource: text(root, 'Resource'),
    allowed,
    notificationTargets: targets ? targets.textContent === 'true' : null,
  };
}

/**
 * Permissions answers may(action) for one bucket or key: true when allowed, and when the server could not be
 * asked (an older server, a failed request), so that the page offers the action and S3's own answer decides.
 */
export class Permissions {
  constructor(answer = null) {
    this.answer = answer;
  }
  may(action) {
    return !this.answer || this.answer.allowed[action] !== false;
  }
  /** notificationTargets is false only when the server said it has none. */
  get notificationTargets() {
    return !this.answer || this.answer.notificationTargets !== false;
  }
}

/** ask asks the server about actions on bucket (key '') or on a key; resolves to a Permissions, never rejects. */
export async function ask(bucket, key, actions) {
  try {
    return new Permissions(
      parsePermissions(await api.s3text('GET', bucket, key, { query: { permissions: '', actions: actions.join(',') } })),
    );
  } catch {
    return new Permissions();
  }
}

/** uploadKey is the key the upload buttons ask about under prefix: a policy's "prefix/*" matches it. */
export const uploadKey = (prefix) => `${prefix}*`;

/** why is the reason an action is unavailable, as the page shows it. */
export function why(action) {
  return `Your policy doesn't allow ${action}.`;
}

/**
 * deny disables the controls els of an action that is not allowed, titled with the reason, and returns the
 * note that shows it: "label: Your policy doesn't allow action." (the reason alone without a label).
 */
export function deny(action, label, ...els) {
  for (const el of els) {
    if (!el) continue;
    el.disabled = true;
    el.setAttribute('title', why(action));
  }
  return h(
    'p',
    { class: 'hint denied', 'data-test': 'not-allowed', 'data-action': action },
    label ? `${label}: ${why(action)}` : why(action),
  );
}

/**
 * readOnly makes a settings section's body read only when action is not allowed: every control in box is
 * disabled, and a note says why. Returns whether it did.
 */
export function readOnly(perms, action, box) {
  if (perms.may(action)) return false;
  const controls = ['input', 'select', 'textarea', 'button'].flatMap((t) => [...box.querySelectorAll(t)]);
  box.append(deny(action, 'Read only', ...controls));
  return true;
}
