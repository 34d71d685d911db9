import { describe, expect, it } from 'vitest';
import { UrgentSeals } from '../../../shared/wal/urgent-seals.ts';

describe('UrgentSeals', () => {
  const max = 1_000;
  const counted = (shard: number, bytes: number) => new Map([[shard, bytes]]);

  it('makes a shard urgent once its unsealed bytes reach three quarters of a generation', () => {
    const seals = new UrgentSeals();
    seals.note('t', max, counted(0, 749));
    expect(seals.isUrgent('t', 0)).toBe(false);
    seals.note('t', max, counted(0, 750));
    expect(seals.isUrgent('t', 0)).toBe(true);
    expect(seals.isDue('t', 0)).toBe(true);
    expect(seals.isUrgent('t', 1)).toBe(false);
    expect(seals.isUrgent('other', 0)).toBe(false);
  });

  it('is not due again while the bytes grow, and is due again once a seal took some', () => {
    const seals = new UrgentSeals();
    seals.note('t', max, counted(0, 800));
    seals.asked('t', 0);
    seals.note('t', max, counted(0, 900));
    expect(seals.isUrgent('t', 0)).toBe(true);
    expect(seals.isDue('t', 0)).toBe(false);
    // A seal took some bytes, and more arrived past the share than it left.
    seals.note('t', max, counted(0, 850));
    expect(seals.isDue('t', 0)).toBe(true);
  });

  it('forgets a shard whose bytes fall below the share, so the next rise asks again', () => {
    const seals = new UrgentSeals();
    seals.note('t', max, counted(0, 800));
    seals.asked('t', 0);
    seals.note('t', max, counted(0, 100));
    expect(seals.isUrgent('t', 0)).toBe(false);
    seals.note('t', max, counted(0, 760));
    expect(seals.isDue('t', 0)).toBe(true);
  });

  it('records an ask only for a shard still urgent', () => {
    const seals = new UrgentSeals();
    seals.asked('t', 0);
    seals.note('t', max, counted(0, 800));
    expect(seals.isDue('t', 0)).toBe(true);
  });
});
