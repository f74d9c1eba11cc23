/**
 * A hub's lead reads its parts' statements, kept by the text a part was read from while no rule changed it
 * (lead.ts `statedItems`, `statementsOf`; issue 31): a part changed in this run, in place or read anew, is read again.
 */
import { describe, expect, it } from 'vitest';
import { writeLead } from '../../src/dream/lead.js';
import { Page } from '../../src/dream/page.js';

const read = (rel: string, text: string): Page => new Page(rel, text.replace(/\n$/, '').split('\n'), false, text);

const HUB = '---\ntype: person\n---\n# Ana\n\n## Parts\n\n- [[Ana 2024-01]]\n';
const part = (statement: string): string => `---\ntype: person\npart_of: "[[Ana]]"\n---\n# Ana 2024-01\n\n## Notes\n\n- ${statement} [[2024-01-02#^f-aaaaaaaaa1]]\n`;

function leadOf(partPage: Page): string {
  const hub = read('3_Personal/Ana.md', HUB);
  writeLead(hub, () => [partPage]);
  return hub.lines.find((l) => l.startsWith('**Ana** is')) ?? '';
}

describe("a hub's lead from its parts", () => {
  it('reads a part again when its text or its lines changed, and gives the same lead for the same part', () => {
    const tea = leadOf(read('3_Personal/Ana 2024-01.md', part('Ana likes green tea')));
    expect(tea).toContain('Ana likes green tea.');
    expect(leadOf(read('3_Personal/Ana 2024-01.md', part('Ana likes green tea')))).toBe(tea);

    // Read anew with another text.
    expect(leadOf(read('3_Personal/Ana 2024-01.md', part('Ana likes black coffee')))).toContain('Ana likes black coffee.');

    // The same text as read before, its statement changed in place by a rule of this run.
    const changed = read('3_Personal/Ana 2024-01.md', part('Ana likes green tea'));
    const at = changed.lines.findIndex((l) => l.includes('green tea'));
    changed.lines[at] = changed.lines[at]!.replace('green tea', 'mint tea');
    const lead = leadOf(changed);
    expect(lead).toContain('Ana likes mint tea.');
    expect(lead).not.toContain('green tea');
  });
});
