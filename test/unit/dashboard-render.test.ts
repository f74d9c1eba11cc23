/** The dashboard's text for states with little to draw: words instead of an empty frame or a pie of one slice. */
import { describe, expect, it } from 'vitest';
import { renderDashboard } from '../../src/dashboard/dashboard.js';
import type { DashboardData } from '../../src/dashboard/data.js';

const days = ['2026-06-08', '2026-06-09', '2026-06-10'];

function data(over: Partial<DashboardData>): DashboardData {
  return {
    today: '2026-06-10',
    days,
    facts_per_day: [0, 0, 0],
    facts_total_per_day: [0, 0, 0],
    top_entities: [],
    pending_per_day: [null, null, null],
    pending_now: { days: 0, facts: 0 },
    dreams_per_day: { ok: [0, 0, 0], skipped: [0, 0, 0], failed: [0, 0, 0] },
    recent_dreams: [],
    skipped_days: [],
    tokens_per_day: [0, 0, 0],
    conflicts: [],
    ...over,
  };
}

const section = (text: string, heading: string): string => text.split(`## ${heading}\n`)[1]!.split('\n## ')[0]!;

describe('renderDashboard', () => {
  it('says "no backlog" in words when the backlog stayed at zero, and draws nothing for an empty vault', () => {
    const { text, charts } = renderDashboard(data({ pending_per_day: [0, 0, 0] }));
    expect(charts).toEqual([]);
    expect(section(text, 'Pending backlog')).toContain('No backlog');
    expect(section(text, 'Memory growth')).toContain('No facts yet.');
    expect(section(text, 'Top entities')).toContain('No page cites a fact yet');
  });

  it('draws the backlog only with two points, at least one above zero', () => {
    expect(renderDashboard(data({ pending_per_day: [null, null, 4], pending_now: { days: 1, facts: 4 } })).text).toContain('Not enough health snapshots yet');
    const { charts } = renderDashboard(data({ pending_per_day: [null, 2, 4], pending_now: { days: 1, facts: 4 } }));
    expect(charts).toEqual([expect.stringContaining('Facts waiting for a dream')]);
  });

  it('draws the outcomes pie only for two outcomes or more', () => {
    const one = renderDashboard(data({ dreams_per_day: { ok: [1, 0, 2], skipped: [0, 0, 0], failed: [0, 0, 0] } }));
    expect(one.charts.some((c) => c.startsWith('pie'))).toBe(false);
    expect(section(one.text, 'Dreams and what they placed')).toContain('All 3 dreams of the last 3 days: consolidated.');
    const two = renderDashboard(data({ dreams_per_day: { ok: [1, 0, 2], skipped: [0, 0, 0], failed: [0, 1, 0] } }));
    expect(two.charts.filter((c) => c.startsWith('pie showData'))).toHaveLength(1);
  });

  it('lists the top entities with their fact counts and charts the growth', () => {
    const { text, charts } = renderDashboard(data({ facts_per_day: [2, 0, 1], facts_total_per_day: [5, 5, 6], top_entities: [{ path: '3_Personal/Ana.md', title: 'Ana', facts: 4 }] }));
    expect(section(text, 'Top entities')).toContain('- [[3_Personal/Ana|Ana]]: 4 facts');
    expect(charts[0]).toContain('line [5, 5, 6]');
    expect(section(text, 'Memory growth')).toContain('6 live facts now');
  });
});
