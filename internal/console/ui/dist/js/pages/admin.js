// Administration through the IAM proxy: users (with their access keys,
// groups and attached policies), groups (with members) and managed
// policies (with a JSON editor checked before saving).

import * as api from '../api.js';
import { h, fill, dialog, field, buttons, errText } from '../dom.js';
import { parseIAMList, parseIAMResult } from '../xml.js';
import { date } from '../format.js';
import { confirmPlain } from '../confirm.js';
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
function ask(title, label, submit, act, test = '') {
  const input = h('input', { required: true, autocomplete: 'off', 'data-test': test || null });
  const p = dialog(
    title,
    (form, close) => [field(label, input), buttons(close, submit)],
    () => act(input.value.trim()),
  );
  input.focus();
  return p;
}

/**
 * createBar is a list's toolbar: its title, and a button that asks for a
 * name, runs create(name) and, once it succeeded, again() (the list anew).
 * tests names the button's and the field's data-test hooks.
 */
function createBar(title, label, field, create, again, tests = {}) {
  return h(
    'div',
    { class: 'toolbar' },
    h('h2', null, title),
    h(
      'button',
      {
        type: 'button',
        class: 'primary',
        'data-test': tests.open || null,
        onclick: () => ask(label, field, 'Create', create, tests.name).then((ok) => ok && again()),
      },
      label,
    ),
  );
}

async function users(app, box) {
  const list = await listAll('ListUsers', 'Users');
  const detail = h('div', { class: 'sub' });
  fill(
    box,
    createBar(
      'Users',
      'Create user',
      'User name',
      (n) => api.iam('CreateUser', { UserName: n }),
      () => users(app, box),
      {
        open: 'user-create-open',
        name: 'user-create-name',
      },
    ),
    h(
      'table',
      { class: 'list', 'data-test': 'user-list' },
      h(
        'thead',
        null,
        h('tr', null, h('th', null, 'Name'), h('th', { class: 'hide-narrow' }, 'ARN'), h('th', null, 'Created'), h('th', null, '')),
      ),
      h(
        'tbody',
        null,
        list.length
          ? list.map((u) =>
              h(
                'tr',
                { 'data-test': 'user-row', 'data-user': u.UserName },
                h(
                  'td',
                  null,
                  h(
                    'button',
                    { type: 'button', class: 'linkish', onclick: () => user(app, detail, u.UserName).catch(() => {}) },
                    u.UserName,
                  ),
                ),
                h('td', { class: 'hide-narrow mono' }, u.Arn),
                h('td', null, date(u.CreateDate)),
                h(
                  'td',
                  null,
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'linkish danger-text',
                      onclick: () =>
                        confirmPlain(
                          'Delete user',
                          `Delete ${u.UserName}? IAM refuses while the user has keys, groups or policies (DeleteConflict).`,
                          () => api.iam('DeleteUser', { UserName: u.UserName }),
                        ).then((ok) => ok && users(app, box)),
                    },
                    'Delete',
                  ),
                ),
              ),
            )
          : h('tr', null, h('td', { colspan: 4, class: 'empty' }, 'No users.')),
      ),
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
  const secret = h('div');
  const pick = h(
    'select',
    { 'aria-label': 'Policy to attach' },
    all.map((p) => h('option', { value: p.Arn }, p.PolicyName)),
  );
  fill(
    box,
    h('h2', null, `User ${name}`),
    h('h3', null, 'Access keys'),
    h(
      'table',
      { class: 'list compact' },
      h(
        'tbody',
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
              h(
                'button',
                {
                  type: 'button',
                  class: 'linkish danger-text',
                  onclick: () =>
                    confirmPlain('Delete access key', `Delete ${k.AccessKeyId}? Clients using it stop working.`, () =>
                      api.iam('DeleteAccessKey', { UserName: name, AccessKeyId: k.AccessKeyId }),
                    ).then((ok) => ok && again()),
                },
                'Delete',
              ),
            ),
          ),
        ),
      ),
    ),
    h(
      'button',
      {
        type: 'button',
        class: 'secondary',
        'data-test': 'key-create',
        onclick: async () => {
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
        },
      },
      'Create access key',
    ),
    h('div', { class: 'secret' }, secret),
    h('h3', null, 'Groups'),
    h('p', null, groups.length ? groups.map((g) => g.GroupName).join(', ') : 'None.'),
    h('h3', null, 'Attached policies'),
    h(
      'ul',
      null,
      attached.map((p) =>
        h(
          'li',
          null,
          p.PolicyName,
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'linkish',
              onclick: () => api.iam('DetachUserPolicy', { UserName: name, PolicyArn: p.PolicyArn }).then(again, app.showError),
            },
            'Detach',
          ),
        ),
      ),
    ),
    all.length > 0 &&
      h(
        'div',
        { class: 'row' },
        pick,
        h(
          'button',
          {
            type: 'button',
            class: 'secondary',
            onclick: () => api.iam('AttachUserPolicy', { UserName: name, PolicyArn: pick.value }).then(again, app.showError),
          },
          'Attach',
        ),
      ),
  );
}

async function groups(app, box) {
  const list = await listAll('ListGroups', 'Groups');
  const detail = h('div', { class: 'sub' });
  fill(
    box,
    createBar(
      'Groups',
      'Create group',
      'Group name',
      (n) => api.iam('CreateGroup', { GroupName: n }),
      () => groups(app, box),
    ),
    h(
      'table',
      { class: 'list', 'data-test': 'group-list' },
      h(
        'tbody',
        null,
        list.length
          ? list.map((g) =>
              h(
                'tr',
                null,
                h(
                  'td',
                  null,
                  h(
                    'button',
                    { type: 'button', class: 'linkish', onclick: () => group(app, detail, g.GroupName).catch(app.showError) },
                    g.GroupName,
                  ),
                ),
                h('td', null, date(g.CreateDate)),
                h(
                  'td',
                  null,
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'linkish danger-text',
                      onclick: () =>
                        confirmPlain('Delete group', `Delete ${g.GroupName}?`, () =>
                          api.iam('DeleteGroup', { GroupName: g.GroupName }),
                        ).then((ok) => ok && groups(app, box)),
                    },
                    'Delete',
                  ),
                ),
              ),
            )
          : h('tr', null, h('td', { class: 'empty' }, 'No groups.')),
      ),
    ),
    detail,
  );
}

async function group(app, box, name) {
  const res = parseIAMList(await api.iam('GetGroup', { GroupName: name }), 'Users');
  const again = () => group(app, box, name).catch(app.showError);
  const who = h('input', { 'aria-label': 'User name to add', placeholder: 'User name' });
  fill(
    box,
    h('h2', null, `Group ${name}`),
    h(
      'ul',
      null,
      res.items.map((u) =>
        h(
          'li',
          null,
          u.UserName,
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'linkish',
              onclick: () => api.iam('RemoveUserFromGroup', { GroupName: name, UserName: u.UserName }).then(again, app.showError),
            },
            'Remove',
          ),
        ),
      ),
    ),
    h(
      'form',
      {
        class: 'row',
        onsubmit: (e) => {
          e.preventDefault();
          api.iam('AddUserToGroup', { GroupName: name, UserName: who.value.trim() }).then(again, app.showError);
        },
      },
      who,
      h('button', { type: 'submit', class: 'secondary' }, 'Add user'),
    ),
  );
}

async function policies(app, box) {
  const list = await listAll('ListPolicies', 'Policies');
  const detail = h('div', { class: 'sub' });
  fill(
    box,
    h(
      'div',
      { class: 'toolbar' },
      h('h2', null, 'Policies'),
      h(
        'button',
        { type: 'button', class: 'primary', onclick: () => createPolicy().then((ok) => ok && policies(app, box)) },
        'Create policy',
      ),
    ),
    h(
      'table',
      { class: 'list', 'data-test': 'policy-list' },
      h(
        'tbody',
        null,
        list.length
          ? list.map((p) =>
              h(
                'tr',
                null,
                h(
                  'td',
                  null,
                  h(
                    'button',
                    { type: 'button', class: 'linkish', onclick: () => showPolicy(detail, p).catch(app.showError) },
                    p.PolicyName,
                  ),
                ),
                h('td', { class: 'hide-narrow mono' }, p.Arn),
                h('td', null, String(p.AttachmentCount || '0'), ' attached'),
                h(
                  'td',
                  null,
                  h(
                    'button',
                    {
                      type: 'button',
                      class: 'linkish danger-text',
                      onclick: () =>
                        confirmPlain('Delete policy', `Delete ${p.PolicyName}?`, () => api.iam('DeletePolicy', { PolicyArn: p.Arn })).then(
                          (ok) => ok && policies(app, box),
                        ),
                    },
                    'Delete',
                  ),
                ),
              ),
            )
          : h('tr', null, h('td', { class: 'empty' }, 'No policies.')),
      ),
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
