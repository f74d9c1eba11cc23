/**
 * The entities a LoCoMo conversation's wiki should have a page for, found independently of the dream so the
 * loop (loop.ts) can check its pages: the two speakers, plus every capitalized name that compromise reads as a
 * person, place or organization in at least three turns (each turn's own text, without the speaker label).
 * A name that starts a speaker's name ("Mel" for Melanie, "Jo" for Joanna) is that speaker's nickname, not a
 * new entity. A rule this simple admits a few names a reader would not page (a dog breed read as a place, a
 * book's hero); the report lists every name so a reader can judge.
 */
import nlp from 'compromise';
import type { LocomoConversation } from './locomo.js';

export type EntityKind = 'person' | 'place' | 'organization';

export interface ExpectedEntity {
  name: string;
  kind: EntityKind;
  /** Turns naming it (0 for a speaker who is never named). */
  turns: number;
  speaker: boolean;
}

export interface ExpectedEntities {
  entities: ExpectedEntity[];
  /** Nicknames folded into a speaker: nickname → speaker. */
  nicknames: Map<string, string>;
}

export const MIN_TURNS = 3;

/** "Caroline's" → "Caroline"; punctuation at the edges dropped; null unless it starts with a capital letter. */
export function cleanName(text: string): string | null {
  const name = text
    .replace(/['’]s\b/gu, '')
    .replace(/[^\p{L}\p{N} .&'-]+/gu, ' ')
    .replace(/\s+/gu, ' ')
    .trim()
    .replace(/^[.&'-]+|[.&'-]+$/gu, '')
    .trim();
  return /^\p{Lu}/u.test(name) ? name : null;
}

export function expectedEntities(conv: LocomoConversation): ExpectedEntities {
  const speakers = conv.speakers.filter((s) => s !== '');
  const nicknameOf = (name: string): string | undefined =>
    speakers.find((s) => s !== name && !name.includes(' ') && s.toLowerCase().startsWith(name.toLowerCase()));
  const turnsOf = new Map<string, number>();
  const kindsOf = new Map<string, Map<EntityKind, number>>();
  const nicknames = new Map<string, string>();
  for (const session of conv.sessions) {
    for (const turn of session.turns) {
      const doc = nlp(turn.text);
      const seen = new Map<string, EntityKind>();
      const found: Array<[EntityKind, Array<{ text: string }>]> = [
        ['person', doc.people().json() as Array<{ text: string }>],
        ['place', doc.places().json() as Array<{ text: string }>],
        ['organization', doc.organizations().json() as Array<{ text: string }>],
      ];
      for (const [kind, matches] of found) {
        for (const match of matches) {
          const name = cleanName(match.text);
          if (name === null || seen.has(name)) continue;
          seen.set(name, kind);
        }
      }
      for (const [name, kind] of seen) {
        const speaker = nicknameOf(name);
        if (speaker !== undefined) {
          nicknames.set(name, speaker);
          continue;
        }
        turnsOf.set(name, (turnsOf.get(name) ?? 0) + 1);
        const kinds = kindsOf.get(name) ?? new Map<EntityKind, number>();
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
        kindsOf.set(name, kinds);
      }
    }
  }
  const entities: ExpectedEntity[] = speakers.map((name) => ({ name, kind: 'person', turns: turnsOf.get(name) ?? 0, speaker: true }));
  const named = [...turnsOf]
    .filter(([name, turns]) => turns >= MIN_TURNS && !speakers.includes(name))
    .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
  for (const [name, turns] of named) {
    // The kind compromise gave most often (a tie: person, then place, then organization).
    const kinds = [...kindsOf.get(name)!].sort(([a, x], [b, y]) => y - x || ORDER.indexOf(a) - ORDER.indexOf(b));
    entities.push({ name, kind: kinds[0]![0], turns, speaker: false });
  }
  return { entities, nicknames: new Map([...nicknames].sort(([a], [b]) => a.localeCompare(b))) };
}

const ORDER: EntityKind[] = ['person', 'place', 'organization'];
