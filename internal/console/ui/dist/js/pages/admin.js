// Administration through the IAM proxy: users (with their access keys,
// groups and attached policies), groups (with members) and managed
// policies (with a JSON editor checked before saving).

import * as api from '../api.js';
import { h, fill, dialog, field, buttons, errText, button, submit, form, toolbar, table } from '../dom.js';
import { parseIAMList, parseIAMResult } from '../xml.js';
import { date } from '../format.js';
import { deleteButton } from '../confirm.js';
import { validJSON } from './settings.js';

/** listAll pages through an IAM List action (Marker) and returns every member. */
async function listAll(action, listName, params = {}) {
  const out = [];
  let marker = '';
  for (;;) {
    const res = parseIAMList(await api.iam(action, marker ? { ...params, Marker: marker } : params), listName);
    out.push(...res.items);
    if (!res.truncated || !res.marker) return out;
    marker = res.marker;
  }
}

/** TABS are the administration tabs and their test hooks (literal, so tests can find them). */
const TABS = [
  ['Users', 'admin-tab-users'],
  ['Groups', 'admin-tab-groups'],
  ['Policies', 'admin-tab-policies'],
];

function tabButton(name, test, cur, onclick) {
  return h(
    'button',
    {
      type: 'button',
      role: 'tab',
      'aria-selected': String(name === cur),
      class: name === cur ? 'tab active' : 'tab',
      'data-test': test,
      onclick,
    },
    name,
  );
}

export function adminPage(app, main) {
  document.title = 'Administration · JOG';
  const body = h('div');
  const tabs = h('div', { class: 'tabs', role: 'tablist' });
  const show = (name) => {
    fill(
      tabs,
      TABS.map(([n, test]) => tabButton(n, test, name, () => show(n))),
    );
    fill(body);
    // A refusal shows in place of the tab's content (not in the banner too).
    ({ Users: users, Groups: groups, Policies: policies })[name](app, body).catch((e) => {
      fill(body, h('p', { class: 'dialog-error', role: 'alert', 'data-test': 'admin-denied' }, errText(e)));
    });
  };
  fill(main, h('h1', null, 'Administration'), tabs, body);
  show('Users');
  return () => {};
}

/** ask opens a one-field dialog and runs act(value). */
function ask(title, label, act, test = null) {
  const input = h('input', { required: true, autocomplete: 'off', 'data-test': test });
  const p = dialog(
    title,
    (form, close) => [field(label, input), buttons(close, 'Create')],
    () => act(input.value.trim()),
  );
  input.focus();
  return p;
}

/**
 * createBar is a list's toolbar: its title, and a button that opens a
 * dialog (open() resolves once it closes, truthy when something was made)
 * and then shows the list anew (again()).
 */
function createBar(title, label, open, again, test = null) {
  return toolbar(
    'h2',
    title,
    button(label, () => open().then((ok) => ok && again()), 'primary', { 'data-test': test }),
  );
}

/** nameCell is the first cell of a list's row: the name, as a link-like button showing its details. */
function nameCell(name, show) {
  return h('td', null, button(name, show, 'linkish'));
}

/** actionList lists items by name(item), each with a link-like button running act(item). */
function actionList(items, name, label, act) {
  return h(
    'ul',
    null,
    items.map((x) =>
      h(
        'li',
        null,
        name(x),
        ' ',
        button(label, () => act(x), 'linkish'),
      ),
    ),
  );
}

async function users(app, box) {
  const list = await listAll('ListUsers', 'Users');
  const detail = h('div', { class: 'sub' });
  const again = () => users(app, box);
  fill(
    box,
    createBar(
      'Users',
      'Create user',
      () => ask('Create user', 'User name', (n) => api.iam('CreateUser', { UserName: n }), 'user-create-name'),
      again,
      'user-create-open',
    ),
    table(
      { class: 'list', 'data-test': 'user-list' },
      ['Name', h('th', { class: 'hide-narrow' }, 'ARN'), 'Created', ''],
      list.map((u) =>
        h(
          'tr',
          { 'data-test': 'user-row', 'data-user': u.UserName },
          nameCell(u.UserName, () => user(app, detail, u.UserName).catch(() => {})),
          h('td', { class: 'hide-narrow mono' }, u.Arn),
          h('td', null, date(u.CreateDate)),
          h(
            'td',
            null,
            deleteButton(
              'Delete user',
              `Delete ${u.UserName}? IAM refuses while the user has keys, groups or policies (DeleteConflict).`,
              () => api.iam('DeleteUser', { UserName: u.UserName }),
              again,
            ),
          ),
        ),
      ),
      'No users.',
    ),
    detail,
  );
}

async function user(app, box, name) {
  const [keys, groups, attached, all] = await Promise.all([
    listAll('ListAccessKeys', 'AccessKeyMetadata', { UserName: name }),
    listAll('ListGroupsForUser', 'Groups', { UserName: name }),
    listAll('ListAttachedUserPolicies', 'AttachedPolicies', { UserName: name }),
    listAll('ListPolicies', 'Policies').catch(() => []),
  ]).catch((e) => {
    app.showError(e);
    throw e;
  });
  const again = () => user(app, box, name).catch(() => {});
  const iam = (action, params) => api.iam(action, { UserName: name, ...params }).then(again, app.showError);
  const secret = h('div');
  const pick = h(
    'select',
    { 'aria-label': 'Policy to attach' },
    all.map((p) => h('option', { value: p.Arn }, p.PolicyName)),
  );
  const createKey = async () => {
    try {
      const k = parseIAMResult(await api.iam('CreateAccessKey', { UserName: name }), 'AccessKey');
      await again();
      fill(
        box.querySelector('.secret') || secret,
        h(
          'p',
          { class: 'secret-box', 'data-test': 'key-secret' },
          'New key — the secret is shown only now: ',
          h('code', null, k.AccessKeyId),
          ' / ',
          h('code', null, k.SecretAccessKey),
        ),
      );
    } catch (e) {
      app.showError(e);
    }
  };
  fill(
    box,
    h('h2', null, `User ${name}`),
    h('h3', null, 'Access keys'),
    table(
      { class: 'list compact' },
      null,
      keys.map((k) =>
        h(
          'tr',
          { 'data-test': 'key-row' },
          h('td', { class: 'mono' }, k.AccessKeyId),
          h('td', null, k.Status),
          h('td', null, date(k.CreateDate)),
          h(
            'td',
            null,
            deleteButton(
              'Delete access key',
              `Delete ${k.AccessKeyId}? Clients using it stop working.`,
              () => api.iam('DeleteAccessKey', { UserName: name, AccessKeyId: k.AccessKeyId }),
              again,
            ),
          ),
        ),
      ),
    ),
    button('Create access key', createKey, 'secondary', { 'data-test': 'key-create' }),
    h('div', { class: 'secret' }, secret),
    h('h3', null, 'Groups'),
    h('p', null, groups.length ? groups.map((g) => g.GroupName).join(', ') : 'None.'),
    h('h3', null, 'Attached policies'),
    actionList(
      attached,
      (p) => p.PolicyName,
      'Detach',
      (p) => iam('DetachUserPolicy', { PolicyArn: p.PolicyArn }),
    ),
    all.length > 0 &&
      h(
        'div',
        { class: 'row' },
        pick,
        button('Attach', () => iam('AttachUserPolicy', { PolicyArn: pick.value })),
      ),
  );
}

async function groups(app, box) {
  const list = await listAll('ListGroups', 'Groups');
  const detail = h('div', { class: 'sub' });
  const again = () => groups(app, box);
  fill(
    box,
    createBar('Groups', 'Create group', () => ask('Create group', 'Group name', (n) => api.iam('CreateGroup', { GroupName: n })), again),
    table(
      { class: 'list', 'data-test': 'group-list' },
      null,
      list.map((g) =>
        h(
          'tr',
          null,
          nameCell(g.GroupName, () => group(app, detail, g.GroupName).catch(app.showError)),
          h('td', null, date(g.CreateDate)),
          h(
            'td',
            null,
            deleteButton('Delete group', `Delete ${g.GroupName}?`, () => api.iam('DeleteGroup', { GroupName: g.GroupName }), again),
          ),
        ),
      ),
      'No groups.',
    ),
    detail,
  );
}

async function group(app, box, name) {
  const res = parseIAMList(await api.iam('GetGroup', { GroupName: name }), 'Users');
  const again = () => group(app, box, name).catch(app.showError);
  const iam = (action, user) => api.iam(action, { GroupName: name, UserName: user }).then(again, app.showError);
  const who = h('input', { 'aria-label': 'User name to add', placeholder: 'User name' });
  fill(
    box,
    h('h2', null, `Group ${name}`),
    actionList(
      res.items,
      (u) => u.UserName,
      'Remove',
      (u) => iam('RemoveUserFromGroup', u.UserName),
    ),
    form({ class: 'row' }, () => iam('AddUserToGroup', who.value.trim()), who, submit('Add user', 'secondary')),
  );
}

async function policies(app, box) {
  const list = await listAll('ListPolicies', 'Policies');
  const detail = h('div', { class: 'sub' });
  const again = () => policies(app, box);
  fill(
    box,
    createBar('Policies', 'Create policy', createPolicy, again),
    table(
      { class: 'list', 'data-test': 'policy-list' },
      null,
      list.map((p) =>
        h(
          'tr',
          null,
          nameCell(p.PolicyName, () => showPolicy(detail, p).catch(app.showError)),
          h('td', { class: 'hide-narrow mono' }, p.Arn),
          h('td', null, String(p.AttachmentCount || '0'), ' attached'),
          h(
            'td',
            null,
            deleteButton('Delete policy', `Delete ${p.PolicyName}?`, () => api.iam('DeletePolicy', { PolicyArn: p.Arn }), again),
          ),
        ),
      ),
      'No policies.',
    ),
    detail,
  );
}

async function showPolicy(box, p) {
  const v = parseIAMResult(await api.iam('GetPolicyVersion', { PolicyArn: p.Arn, VersionId: p.DefaultVersionId }), 'PolicyVersion');
  let doc = decodeURIComponent(v.Document || '');
  try {
    doc = JSON.stringify(JSON.parse(doc), null, 2);
  } catch {
    /* show it as it is */
  }
  fill(box, h('h2', null, `Policy ${p.PolicyName}`), h('pre', { class: 'mono' }, doc));
}

function createPolicy() {
  const name = h('input', { required: true, autocomplete: 'off' });
  const doc = h('textarea', { rows: 12, class: 'mono', spellcheck: 'false', 'aria-label': 'Policy document' });
  doc.value = JSON.stringify(
    { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: ['s3:GetObject'], Resource: ['arn:aws:s3:::example/*'] }] },
    null,
    2,
  );
  const p = dialog(
    'Create policy',
    (form, close) => [field('Name', name), field('Document (JSON)', doc), buttons(close, 'Create')],
    async () => {
      const why = validJSON(doc.value);
      if (why) throw new Error(why);
      await api.iam('CreatePolicy', { PolicyName: name.value.trim(), PolicyDocument: doc.value });
    },
  );
  name.focus();
  return p;
}
