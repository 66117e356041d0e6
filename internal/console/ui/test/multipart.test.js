import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planParts, useMultipart, runPool, MiB, MAX_PARTS, PART_SIZE } from '../dist/js/multipart.js';

test('planParts covers every byte once, in order, with parts of PART_SIZE but the last', () => {
  for (const size of [0, 1, PART_SIZE - 1, PART_SIZE, PART_SIZE + 1, 50 * MiB, 3 * PART_SIZE]) {
    const parts = planParts(size);
    let at = 0;
    parts.forEach((p, i) => {
      assert.equal(p.part, i + 1);
      assert.equal(p.start, at);
      if (i < parts.length - 1) assert.equal(p.end - p.start, PART_SIZE);
      at = p.end;
    });
    assert.equal(at, size, `size ${size}`);
    assert.equal(parts.length, Math.max(1, Math.ceil(size / PART_SIZE)));
  }
});

test('planParts grows the part size to stay within 10,000 parts', () => {
  const size = 5 * 1024 * 1024 * MiB; // 5 TiB
  const parts = planParts(size);
  assert.ok(parts.length <= MAX_PARTS, `${parts.length} parts`);
  assert.equal(parts[parts.length - 1].end, size);
  assert.equal((parts[0].end - parts[0].start) % MiB, 0);
});

test('planParts refuses parts under 5 MiB and bad sizes', () => {
  assert.throws(() => planParts(10, MiB));
  assert.throws(() => planParts(-1));
  assert.throws(() => planParts(1.5));
});

test('useMultipart starts above 16 MiB', () => {
  assert.equal(useMultipart(16 * MiB), false);
  assert.equal(useMultipart(16 * MiB + 1), true);
});

test('runPool keeps at most n calls pending and returns results in order', async () => {
  let pending = 0;
  let most = 0;
  const items = [...Array(20).keys()];
  const out = await runPool(items, 3, async (i) => {
    pending++;
    most = Math.max(most, pending);
    await new Promise((r) => setTimeout(r, (i * 7) % 5));
    pending--;
    return i * 2;
  });
  assert.deepEqual(
    out,
    items.map((i) => i * 2),
  );
  assert.equal(most, 3);
});

test('runPool rejects with the first failure and starts nothing after it', async () => {
  const started = [];
  await assert.rejects(
    runPool([...Array(10).keys()], 2, async (i) => {
      started.push(i);
      await new Promise((r) => setTimeout(r, 1));
      if (i === 1) throw new Error('part 2 failed');
      return i;
    }),
    /part 2 failed/,
  );
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(started.length <= 3, `started ${started}`);
  assert.deepEqual(await runPool([], 3, () => 1), []);
});
