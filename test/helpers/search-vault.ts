/**
 * A small vault to search through the CLI (a log with a keyed fact and two pages, one with frontmatter), for
 * tests that compare how a search is answered — which modules it loads, what a build or an install answers —
 * rather than what it finds.
 */
export const SEARCH_VAULT_FILES: Readonly<Record<string, string>> = {
  'logs/2026-06-01.md': [
    '# 2026-06-01',
    '',
    '## 09:00 · cli',
    '- [preference] Drinks the morning coffee black, without sugar #coffee ^f-aaaaaaaaa1',
    '- [fact] home city:: Lisbon #location ^f-aaaaaaaaa2',
    '- [decision] Publishes the site from the main branch every Friday ^f-aaaaaaaaa3',
    '',
  ].join('\n'),
  '2_Areas/Coffee.md': ['---', 'title: Coffee', 'tags: [coffee]', '---', '# Coffee', '', '## Brewing', '', '- Pour-over at 94 degrees, a 1:16 ratio', '- A coffee grinder set to medium', ''].join('\n'),
  '2_Areas/Publishing.md': ['# Publishing', '', '## How to publish a site', '', 'Build, then publish the site with one command.', ''].join('\n'),
};
