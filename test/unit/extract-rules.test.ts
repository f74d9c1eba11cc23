/**
 * Offline extraction: the signal scan that decides which turns are worth an extraction, the rules that
 * read explicit statements (and leave alone what only looks like one), and relative dates made absolute.
 */
import { describe, expect, it } from 'vitest';
import { resolveRelativeDates } from '../../src/extract/dates.js';
import type { DatedCandidate } from '../../src/extract/extracted.js';
import { extractByRules, matchClause, sentences } from '../../src/extract/rules.js';
import { scanTurns, signalsOf } from '../../src/extract/signals.js';
import type { Turn } from '../../src/extract/transcript.js';

// Tuesday 2026-06-09, 14:32 in Lisbon (UTC+1 in summer).
const AT = new Date('2026-06-09T13:32:00Z');
const TZ = 'Europe/Lisbon';

function extract(text: string): Array<{ category: string; text: string; tags: string[] }> {
  const turn: Turn = { role: 'user', text, at: AT, index: 0 };
  const candidate: DatedCandidate = { turn, signals: signalsOf(text), at: AT };
  return extractByRules(candidate, TZ).map(({ category, text: t, tags }) => ({ category, text: t, tags }));
}

describe('rule extraction', () => {
  it.each([
    ['I prefer dark roast coffee.', 'preference', 'Prefers dark roast coffee'],
    ['I really like my coffee black', 'preference', 'Likes their coffee black'],
    ['I love Python', 'preference', 'Loves Python'],
    ['I hate meetings before 10am!', 'preference', 'Hates meetings before 10am'],
    ["I don't like cilantro", 'preference', 'Dislikes cilantro'],
    ['Please remember that my dentist is Dr. Silva', 'fact', 'dentist:: Dr. Silva'],
    ['Remember that the staging server reboots every Sunday night', 'fact', 'The staging server reboots every Sunday night'],
    ['Remember: I have a dentist appointment tomorrow', 'fact', 'Has a dentist appointment on 2026-06-10'],
    ['My wife is Ana.', 'relationship', 'wife:: Ana'],
    ["My wife's name is Ana", 'fact', "wife's name:: Ana"],
    ['my favorite color is green-blue', 'preference', 'favorite color:: green-blue'],
    ['My name is Rui Costa', 'fact', 'name:: Rui Costa'],
    ['My birthday is on March 3', 'fact', 'birthday:: March 3'],
    ['My flight is next Friday', 'fact', 'flight:: 2026-06-12'],
    ['I live in Lisbon', 'fact', 'home city:: Lisbon'],
    ["I'm based in São Paulo, Brazil and I work remotely", 'fact', 'home city:: São Paulo, Brazil'],
    ['I just moved to New York City last month', 'fact', 'home city:: New York City'],
    ['Call me Rui.', 'preference', 'preferred name:: Rui'],
    ["I'm a software engineer at Acme", 'fact', 'Is a software engineer at Acme'],
    ['I am an amateur cyclist', 'fact', 'Is an amateur cyclist'],
    ["I'm allergic to peanuts", 'fact', 'Is allergic to peanuts'],
    ["I'm vegetarian", 'fact', 'Is vegetarian'],
    ["I'm 34 years old", 'fact', 'age:: 34'],
    ['I decided to move the blog to Hugo', 'decision', 'Decided to move the blog to Hugo'],
    ["We've decided on Postgres for the new service", 'decision', 'Decided (with others) on Postgres for the new service'],
    ['From now on, always use pnpm instead of npm', 'principle', 'Always use pnpm instead of npm'],
    ['By the way, I prefer tabs over spaces', 'preference', 'Prefers tabs over spaces'],
    ['I prefer dark roast coffee, by the way.', 'preference', 'Prefers dark roast coffee'],
  ])('%s', (input, category, text) => {
    expect(extract(input)).toEqual([{ category, text, tags: text.startsWith('home city::') ? ['location'] : [] }]);
  });

  it('reads several statements in one turn, one fact each', () => {
    const facts = extract('Thanks! I live in Porto and my wife is Ana. Also, I prefer green tea; call me Rui');
    expect(facts.map((f) => f.text)).toEqual(['home city:: Porto', 'wife:: Ana', 'Prefers green tea', 'preferred name:: Rui']);
  });

  it.each([
    // about the conversation or the code, not the person
    'I like that idea',
    'I like it, ship it',
    'I love how you refactored this',
    'I prefer the second option',
    'I hate when the tests are flaky',
    'My code is broken again',
    'my test is failing on CI',
    'My point is that the cache is stale',
    'My question is whether we need a lock',
    'My laptop is slow today',
    'My guess is the index is corrupt',
    'my bad',
    "I'm a bit confused by this error",
    "I'm a little lost here",
    "I'm not a fan of this approach",
    'I would like you to run the tests',
    "I'd like to see the diff",
    // questions, conditionals, hypotheticals
    'Do you remember what my name is?',
    'Do I prefer tabs?',
    'If I live in Lisbon, which time zone applies?',
    'What if I decided to use MySQL instead',
    'When I prefer verbose output I pass -v',
    'Suppose my name is Bob',
    'Can you call me later?',
    // instructions for now, not facts
    "Remember to run the linter before committing",
    "Don't forget to update the changelog",
    'Remember this',
    // lowercase "places" and non-names
    'I live in the terminal these days',
    'I moved to the new API yesterday',
    'Call me ASAP when it is done',
    'call me back',
    // code and quotes are not the person speaking
    '```\n# I prefer tabs\nmy_name = "x"  # my name is x\n```',
    '> I live in Lisbon\n\nWhat does this quote mean?',
    'Run `echo "I prefer tabs"` please',
  ])('no fact from: %s', (input) => {
    expect(extract(input)).toEqual([]);
  });

  it('keeps abbreviations, decimals and addresses inside one sentence', () => {
    expect(sentences('My dentist is Dr. Silva. My email is rui@example.com! Is it 3.5?').map((s) => [s.text, s.question])).toEqual([
      ['My dentist is Dr. Silva.', false],
      ['My email is rui@example.com!', false],
      ['Is it 3.5?', true],
    ]);
    expect(matchClause('my email is rui@example.com')).toEqual({ category: 'fact', text: 'email:: rui@example.com' });
  });
});

describe('relative dates', () => {
  it.each([
    ['Went hiking yesterday', 'Went hiking on 2026-06-08'],
    ['Yesterday I went hiking', 'On 2026-06-08 I went hiking'],
    ['The release is due tomorrow', 'The release is due 2026-06-10'],
    ['Met Ana the day before yesterday', 'Met Ana on 2026-06-07'],
    ['Saw the dentist last Friday', 'Saw the dentist on 2026-06-05'],
    ['Flying to Rome next Friday', 'Flying to Rome on 2026-06-12'],
    ['Dinner this Sunday', 'Dinner on 2026-06-14'],
    ['Traveling next week', 'Traveling the week of 2026-06-15'],
    ['Was sick last week', 'Was sick the week of 2026-06-01'],
    ['Started running last month', 'Started running in May 2026'],
    ['Moved here 3 days ago', 'Moved here on 2026-06-06'],
    ['Quit smoking two weeks ago', 'Quit smoking on 2026-05-26'],
    ['Visiting in 2 days', 'Visiting on 2026-06-11'],
    ['deadline:: next Monday', 'deadline:: 2026-06-15'],
    ['Graduated last year', 'Graduated in 2025'],
    ["Today's plan is fixed", "Today's plan is fixed"],
    ['Went hiking on Friday', 'Went hiking on Friday'],
  ])('%s', (input, expected) => {
    expect(resolveRelativeDates(input, AT, TZ)).toBe(expected);
  });

  it('counts days in the vault time zone', () => {
    // 23:30 UTC on the 9th is already the 10th in Tokyo.
    const late = new Date('2026-06-09T23:30:00Z');
    expect(resolveRelativeDates('yesterday', late, 'Asia/Tokyo')).toBe('on 2026-06-09');
    expect(resolveRelativeDates('yesterday', late, 'America/New_York')).toBe('on 2026-06-08');
  });
});

describe('signal scan', () => {
  const turns = (texts: Array<[Turn['role'], string]>): Turn[] => texts.map(([role, text], index) => ({ role, text, index }));

  it('passes on turns that may hold a memory, with the assistant turn before as context', () => {
    const result = scanTurns(
      turns([
        ['user', 'Can you fix the failing test in src/app.ts?'],
        ['assistant', 'Done. Which coffee should I order for you?'],
        ['user', 'I prefer dark roast'],
        ['assistant', 'Noted.'],
        ['user', 'My sister Ana visits next week'],
        ['user', 'We decided to drop Node 18 support'],
        ['user', 'Actually, my email changed: rui@new.example'],
        ['user', 'Remember the deploy key lives in 1Password'],
      ]),
    );
    expect(result.scanned).toBe(6);
    expect(result.candidates.map((c) => c.turn.index)).toEqual([2, 4, 5, 6, 7]);
    expect(result.candidates[0]!.signals).toContain('preference');
    expect(result.candidates[0]!.context).toBe('Done. Which coffee should I order for you?');
    expect(result.candidates[1]!.signals).toEqual(expect.arrayContaining(['relationship', 'date']));
    expect(result.candidates[2]!.signals).toContain('decision');
    expect(result.candidates[3]!.signals).toContain('correction');
    expect(result.candidates[4]!.signals).toContain('remember');
  });

  it.each([
    'Can you fix the failing test in src/app.ts?',
    'Thanks, that works.',
    'Run the linter please',
    'Why does this throw a TypeError?',
    'ok',
    'Let me check the logs and get back to you',
    'My test is failing again, see the output',
    "I'm a bit confused by the error",
    'Please refactor this function to use async/await',
    '```ts\n// remember: I prefer tabs, my name is x\nconst x = 1;\n```',
    'Today we need to finish the parser',
  ])('finds nothing in chatter: %s', (text) => {
    expect(signalsOf(text)).toEqual([]);
  });
});
