// The console's shell: the session, the header and navigation, the error
// banner and the router. Routes (all under /console/):
//   /console/                          buckets (or sign-in)
//   /console/b/<bucket>/<prefix>       objects under a prefix
//   /console/b/<bucket>/<key>?details  an object's details beside its folder
//   /console/settings/<bucket>         a bucket's settings
//   /console/users                     administration (IAM)
//   /console/dashboard                 live metrics

import * as api from './api.js';
import { h, fill, errText, button } from './dom.js';
import { signinPage } from './pages/signin.js';
import { bucketsPage } from './pages/buckets.js';
import { objectsPage } from './pages/objects.js';
import { settingsPage } from './pages/settings.js';
import { adminPage } from './pages/admin.js';
import { dashboardPage } from './pages/dashboard.js';
import { uploadPanel } from './upload.js';
import { ROOT, link, setNavigate } from './nav.js';

const app = {
  session: null,
  main: null,
  banner: null,
  header: null,
  cleanup: null,
  navigate,
  showError,
  clearError,
  render,
};

/** navigate goes to path (under /console/) and renders it. */
function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  render();
}

function showError(err) {
  if (err && err.code === 'Cancelled') return;
  app.banner.hidden = false;
  fill(app.banner, h('span', { class: 'error-text' }, errText(err)), button('×', clearError, 'close', { 'aria-label': 'Dismiss' }));
}

function clearError() {
  app.banner.hidden = true;
  app.banner.replaceChildren();
}

function renderHeader() {
  const s = app.session;
  fill(
    app.header,
    link(ROOT, { class: 'brand' }, 'JOG'),
    s &&
      h(
        'nav',
        { 'aria-label': 'Main' },
        link(ROOT, { 'data-test': 'nav-buckets' }, 'Buckets'),
        link(ROOT + 'users', { 'data-test': 'nav-users' }, 'Users'),
        link(ROOT + 'dashboard', { 'data-test': 'nav-dashboard' }, 'Dashboard'),
      ),
    s &&
      h(
        'div',
        { class: 'who' },
        h('span', { 'data-test': 'whoami', title: s.arn || '' }, s.principal || s.accessKey),
        button('Sign out', doSignOut, 'secondary', { 'data-test': 'signout' }),
      ),
  );
}

async function doSignOut() {
  try {
    await api.signOut();
  } catch (e) {
    if (e.status !== 401) showError(e);
  }
  app.session = null;
  navigate(ROOT);
}

function route() {
  let path = location.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    /* a malformed escape: route the raw path */
  }
  const rest = path.startsWith(ROOT) ? path.slice(ROOT.length) : '';
  if (rest.startsWith('b/')) {
    const r = rest.slice(2);
    const i = r.indexOf('/');
    return { page: 'objects', bucket: i < 0 ? r : r.slice(0, i), rest: i < 0 ? '' : r.slice(i + 1) };
  }
  if (rest.startsWith('settings/')) return { page: 'settings', bucket: rest.slice(9).replace(/\/$/, '') };
  if (rest === 'users' || rest.startsWith('users/')) return { page: 'admin', rest: rest.slice(6) };
  if (rest === 'dashboard') return { page: 'dashboard' };
  return { page: 'buckets' };
}

/** render draws the page of the current URL. */
async function render() {
  if (app.cleanup) {
    app.cleanup();
    app.cleanup = null;
  }
  clearError();
  renderHeader();
  if (!app.session) {
    document.title = 'Sign in · JOG';
    signinPage(app, app.main);
    return;
  }
  const r = route();
  fill(app.main);
  try {
    if (r.page === 'objects') app.cleanup = objectsPage(app, app.main, r.bucket, r.rest, new URLSearchParams(location.search));
    else if (r.page === 'settings') app.cleanup = settingsPage(app, app.main, r.bucket);
    else if (r.page === 'admin') app.cleanup = adminPage(app, app.main);
    else if (r.page === 'dashboard') app.cleanup = dashboardPage(app, app.main);
    else app.cleanup = bucketsPage(app, app.main);
  } catch (e) {
    showError(e);
  }
}

async function start() {
  app.header = document.getElementById('header');
  app.main = document.getElementById('main');
  app.banner = document.getElementById('error-banner');
  api.setExpiredHandler(() => {
    if (!app.session) return;
    app.session = null;
    render();
    showError({ code: 'ExpiredToken', message: 'Your session has ended; sign in again.' });
  });
  setNavigate(navigate);
  window.addEventListener('popstate', render);
  window.addEventListener('jog-upload-failed', (ev) => showError(ev.detail));
  document.body.append(uploadPanel(app));
  try {
    app.session = await api.getSession();
  } catch (e) {
    app.session = null;
    render();
    showError(e);
    return;
  }
  render();
}

start();
