/** Relative times resolved against the day a fact was said, with chrono-node, in `D Month YYYY` form. */
import { beforeAll, describe, expect, it } from 'vitest';
import { formatDay, loadRelativeDateResolver, type RelativeDateResolver } from '../../src/text/relative-dates.js';

let resolve: RelativeDateResolver;
beforeAll(async () => {
  resolve = await loadRelativeDateResolver();
});

// 2023-05-08 is a Monday.
const SAID = '2023-05-08';

describe('formatDay', () => {
  it('writes a day as LoCoMo answers do', () => {
    expect(formatDay('2023-05-07')).toBe('7 May 2023');
    expect(formatDay('2024-12-31')).toBe('31 December 2024');
  });
});

describe('relative times', () => {
  it.each([
    ['I went yesterday.', 'I went on 7 May 2023.'],
    ['I went to a school event last week.', 'I went to a school event the week of 1 May 2023.'],
    ['We hiked last weekend.', 'We hiked the weekend of 6 May 2023.'],
    ['We go camping next month.', 'We go camping in June 2023.'],
    ['I painted that lake sunrise last year!', 'I painted that lake sunrise in 2022!'],
    ['It arrived two days ago.', 'It arrived on 6 May 2023.'],
    ['I ran a charity race last Friday.', 'I ran a charity race on Friday, 5 May 2023.'],
    ['I fly tomorrow.', 'I fly on 9 May 2023.'],
    ['I moved here 4 years ago.', 'I moved here in 2019.'],
    ['since I started transitioning three years ago', 'since I started transitioning in 2020'],
    ['I bought it last month.', 'I bought it in April 2023.'],
    ['It opens next year.', 'It opens in 2024.'],
    ['The recital is this Friday.', 'The recital is on Friday, 12 May 2023.'],
    ['I was busy this week.', 'I was busy the week of 8 May 2023.'],
    ['I met them 2 weeks ago.', 'I met them the week of 24 April 2023.'],
    ['The results come in 3 days.', 'The results come on 11 May 2023.'],
    ['I finished it the day before yesterday.', 'I finished it on 6 May 2023.'],
  ])('%s', (input, expected) => {
    expect(resolve(input, SAID).text).toBe(expected);
  });

  it('keeps the part of the day it was said at', () => {
    expect(resolve('I saw a play tonight', SAID).text).toBe('I saw a play on the evening of 8 May 2023');
    expect(resolve('I ran this morning', SAID).text).toBe('I ran on the morning of 8 May 2023');
    expect(resolve('I slept badly last night', SAID).text).toBe('I slept badly on the night of 7 May 2023');
  });

  it('does not double a preposition already said', () => {
    expect(resolve('the show on yesterday', SAID).text).toBe('the show on 7 May 2023');
    expect(resolve('vegan since last year', SAID).text).toBe('vegan since 2022');
    expect(resolve('away until next month', SAID).text).toBe('away until June 2023');
    expect(resolve('busy from last Friday', SAID).text).toBe('busy from Friday, 5 May 2023');
    expect(resolve('I started earlier this week', SAID).text).toBe('I started earlier in the week of 8 May 2023');
  });

  it('keeps a vague count vague, anchored to the day it was said', () => {
    expect(resolve('I got it a few days ago', SAID).text).toBe('I got it a few days before 8 May 2023');
    expect(resolve('We met a couple of weeks ago', SAID).text).toBe('We met a couple of weeks before 8 May 2023');
  });

  it('capitalizes a resolved time that starts the sentence', () => {
    expect(resolve('Yesterday I went hiking.', SAID).text).toBe('On 7 May 2023 I went hiking.');
    expect(resolve('Last week was hard.', SAID).text).toBe('The week of 1 May 2023 was hard.');
  });

  it('lists what each phrase became', () => {
    expect(resolve('I went yesterday and I go again next month.', SAID).dates).toEqual([
      { said: 'yesterday', resolved: 'on 7 May 2023' },
      { said: 'next month', resolved: 'in June 2023' },
    ]);
  });

  it('leaves absolute dates, durations, bare weekdays and spans as written', () => {
    for (const text of [
      'The wedding was on 8 May, 2023.',
      'We married in May 2022.',
      "I've known these friends for 4 years.",
      'I go swimming on Friday.',
      'The last year has been tough.',
      'It was my last year of school.',
      "This year's festival was great.",
      'the next day we left',
      'I am happy now.',
      'Meet at 5pm.',
      'No time words at all.',
    ]) {
      expect(resolve(text, SAID)).toEqual({ text, dates: [] });
    }
  });

  it('resolves against the fact date in any process time zone and gives the same text every time', () => {
    const once = resolve('I went yesterday, and we fly next Friday.', '2024-01-01');
    expect(once.text).toBe('I went on 31 December 2023, and we fly on Friday, 12 January 2024.');
    expect(resolve('I went yesterday, and we fly next Friday.', '2024-01-01')).toEqual(once);
  });
});
