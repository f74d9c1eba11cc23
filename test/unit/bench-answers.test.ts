import { describe, expect, test } from 'vitest';
import { answerForms, containsAnswer, goldText, isShortAnswer, normalizeAnswer } from '../../bench/answers.js';
import { score } from '../../bench/loop.js';

describe('normalizeAnswer', () => {
  test.each([
    ['The Sunday before 25 May 2023', 'sunday before 25 may 2023'],
    ['"Finding Freedom"', 'finding freedom'],
    ['An apple, a pear.', 'apple pear'],
    ['six months', '6 months'],
    ['Twenty-one years', '21 years'],
    ['ninety', '90'],
    ['May 7th, 2023', 'may 7 2023'],
    ['the 7th of May 2023', '7 may 2023'],
    ['May of 2023', 'may 2023'],
    ['2023-05-07', '2023 5 7'],
    ['Jun 7', 'june 7'],
    ['Mar the ceremony', 'mar ceremony'],
    ['ＦＵＬＬ width', 'full width'],
    ['Tromsø’s harbour', 'tromsø s harbour'],
  ])('%s → %s', (input, expected) => {
    expect(normalizeAnswer(input)).toBe(expected);
  });
  test('keeps "of" that is not inside a date', () => {
    expect(normalizeAnswer('a cup of tea')).toBe('cup of tea');
  });
});

describe('answerForms', () => {
  test('a full date in its other orders and as ISO', () => {
    expect(answerForms('7 May 2023').sort()).toEqual(['2023 5 7', '7 may 2023', 'may 7 2023']);
    expect(answerForms('May 7, 2023').sort()).toEqual(['2023 5 7', '7 may 2023', 'may 7 2023']);
  });
  test('a date inside a longer answer keeps its words around it', () => {
    expect(answerForms('The week before 9 June 2023')).toContain('week before june 9 2023');
    expect(answerForms('The week before 9 June 2023')).toContain('week before 2023 6 9');
  });
  test('a day, week or weekend said relative to a date is also that period as a resolved statement writes it', () => {
    expect(answerForms('The Friday before 15 July 2023')).toContain('14 july 2023');
    expect(answerForms('The friday before 15 July 2023')).toContain('2023 7 14');
    expect(answerForms('The Monday after 15 July 2023')).toContain('17 july 2023');
    expect(answerForms('The week before 9 June 2023')).toContain('week of 29 may 2023');
    expect(answerForms('The week of 23 August 2023')).toContain('week of 21 august 2023');
    expect(answerForms('The weekend before 17 July 2023')).toContain('weekend of 15 july 2023');
    expect(answerForms('The weekend of 24June, 2022.')).toContain('weekend of 25 june 2022');
    expect(answerForms('The weekend after 3June, 2022.')).toContain('weekend of 4 june 2022');
  });
  test('read strictly, a relative date is matched only as written', () => {
    expect(answerForms('The Friday before 15 July 2023', { resolve: false })).not.toContain('14 july 2023');
    expect(containsAnswer(['On Friday, 14 July 2023 she went.'], answerForms('The Friday before 15 July 2023'))).toBe(true);
    expect(containsAnswer(['On Friday, 14 July 2023 she went.'], answerForms('The Friday before 15 July 2023', { resolve: false }))).toBe(false);
  });
  test('a phrase with more than the relative date is not resolved', () => {
    expect(answerForms('Saturday before 25 May 2023 with friends')).not.toContain('20 may 2023 with friends');
    expect(answerForms('early August, 2023')).toEqual(['early august 2023']);
  });
  test('a day without a year in both orders; a month with its year and a year alone stand as they are', () => {
    expect(answerForms('13 August').sort()).toEqual(['13 august', 'august 13']);
    expect(answerForms('May 2023')).toEqual(['may 2023']);
    expect(answerForms('2022')).toEqual(['2022']);
  });
});

describe('containsAnswer', () => {
  const has = (gold: string, text: string): boolean => containsAnswer([text], answerForms(gold));
  test.each([
    ['7 May 2023', 'We met on 7 May 2023.'],
    ['7 May 2023', 'We met on May 7, 2023.'],
    ['7 May 2023', 'We met on 2023-05-07.'],
    ['7 May 2023', 'We met on May 7th 2023.'],
    ['7 May 2023', 'We met on the 7th of May, 2023.'],
    ['2022', 'Caroline: I moved here in 2022!'],
    ['May 2023', 'Sometime in May 2023 she left.'],
    ['six months', 'It took 6 months.'],
    ['Rome', 'Gina: Paris and Rome were lovely.'],
  ])('%s is in "%s"', (gold, text) => {
    expect(has(gold, text)).toBe(true);
  });
  test.each([
    ['7 May 2023', 'We met on 17 May 2023.'],
    ['7 May 2023', 'We met on 7 May 2024.'],
    ['2022', 'Room 20223 is free.'],
    ['May 2023', 'We met on May 7, 2023.'],
    ['Rome', 'Romeo and Juliet'],
    ['8 May 2023', 'See [[Caroline 2023-05-08]] for the day.'],
  ])('%s is not in "%s"', (gold, text) => {
    expect(has(gold, text)).toBe(false);
  });
  test('an answer never spans two results', () => {
    expect(containsAnswer(['in Paris', 'Rome later'], answerForms('Paris Rome'))).toBe(false);
    expect(containsAnswer(['nothing here', 'Paris, Rome'], answerForms('Paris Rome'))).toBe(true);
  });
});

describe('which answers are scored', () => {
  test('up to five words, never a bare yes or no', () => {
    expect(isShortAnswer('The week before 9 June 2023')).toBe(true);
    expect(isShortAnswer('She lost her job and started a business')).toBe(false);
    expect(isShortAnswer('Yes')).toBe(false);
    expect(isShortAnswer('No.')).toBe(false);
    expect(isShortAnswer('...')).toBe(false);
  });
  test('numbers are answers too; anything else is none', () => {
    expect(goldText(2022)).toBe('2022');
    expect(goldText('Rome')).toBe('Rome');
    expect(goldText(undefined)).toBeNull();
    expect(goldText(['a'])).toBeNull();
  });
});

describe('containment in the loop score', () => {
  const ranked = (texts: string[]) => ({ items: texts.map(() => new Set(['x'])), chars: texts.map((t) => t.length), texts, viaMaxChars: [new Set<string>(), new Set<string>(), new Set<string>()] });
  test('only the results that fit in 1,400 characters count, the first always', () => {
    const long = 'a'.repeat(1000);
    expect(score(ranked([long, `${'b'.repeat(390)} Rome`]), ['x'], 'Rome').answer).toBe(true);
    expect(score(ranked([long, `${'b'.repeat(400)} Rome`]), ['x'], 'Rome').answer).toBe(false);
    expect(score(ranked([`${'a'.repeat(2000)} Rome`]), ['x'], 'Rome').answer).toBe(true);
  });
  test('at most the top 10, and no answer is no score', () => {
    const short = Array.from({ length: 10 }, () => 'nothing');
    expect(score(ranked([...short, 'Rome']), ['x'], 'Rome').answer).toBe(false);
    expect(score(ranked(['Rome']), ['x']).answer).toBeNull();
  });
});
