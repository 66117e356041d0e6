// Sign-in: an access key and secret exchanged for a session cookie.

import * as api from '../api.js';
import { h, fill, field, submit, form } from '../dom.js';

export function signinPage(app, main) {
  const err = h('p', { class: 'signin-error', 'data-test': 'signin-error', role: 'alert', hidden: true });
  const ak = h('input', { name: 'accessKey', autocomplete: 'username', required: true, 'data-test': 'signin-access-key', autofocus: true });
  const sk = h('input', {
    name: 'secretKey',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    'data-test': 'signin-secret-key',
  });
  const go = submit('Sign in', 'primary', { 'data-test': 'signin-submit' });
  const signIn = async () => {
    err.hidden = true;
    go.disabled = true;
    try {
      app.session = await api.signIn(ak.value.trim(), sk.value);
      sk.value = '';
      const back = location.pathname.startsWith('/console/') ? location.pathname + location.search : '/console/';
      app.navigate(back, true);
    } catch (x) {
      err.hidden = false;
      err.textContent =
        x.status === 401 || x.code === 'InvalidAccessKeyId' || x.code === 'SignatureDoesNotMatch'
          ? `The access key or secret is wrong (${x.code}).`
          : `${x.code}: ${x.message}`;
      go.disabled = false;
      sk.select();
    }
  };
  fill(
    main,
    form({ class: 'signin card' }, signIn, h('h1', null, 'Sign in to JOG'), field('Access key', ak), field('Secret key', sk), err, go),
  );
  ak.focus();
}
