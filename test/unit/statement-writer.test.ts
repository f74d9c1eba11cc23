/** The offline dream's statement writer: a fact written as a statement that stands alone on a page. */
import { beforeAll, describe, expect, it } from 'vitest';
import { loadStatementWriter, type StatementContext, type StatementWriter } from '../../src/dream/statement.js';

let write: StatementWriter;
beforeAll(async () => {
  write = await loadStatementWriter();
});

// 2023-05-08 is a Monday.
const TURN: StatementContext = { date: '2023-05-08', owner: null, listener: 'Melanie' };
const OWNED: StatementContext = { date: '2023-05-08', owner: 'Alex', listener: null };
const text = (input: string, ctx: StatementContext = TURN): string => write(input, ctx).text;

describe('speaker labels', () => {
  it('strips the label and makes its name who "I" is', () => {
    const s = write('Caroline: Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful.', TURN);
    expect(s).toEqual({
      text: 'Caroline went to a LGBTQ support group on 7 May 2023 and it was so powerful.',
      speaker: 'Caroline',
      about: 'Caroline',
      chatter: false,
      question: false,
      dates: [{ said: 'yesterday', resolved: 'on 7 May 2023' }],
    });
  });

  it('reads names with letters beyond ASCII, of one or two words', () => {
    expect(write('Zoë: I adopted a pup.', TURN)).toMatchObject({ text: 'Zoë adopted a pup.', speaker: 'Zoë', about: 'Zoë' });
    expect(write('Björn Ek: I love sailing.', TURN)).toMatchObject({ text: 'Björn Ek loves sailing.', speaker: 'Björn Ek' });
  });

  it('leaves keyed facts exactly as written', () => {
    for (const keyed of ['home city:: Lisbon', '[diet:: pescatarian]', "Diego's allergy:: shellfish", 'Caroline:: counselor']) {
      expect(write(keyed, TURN)).toEqual({ text: keyed, speaker: null, about: null, chatter: false, question: false, dates: [] });
    }
  });

  it('does not take a note heading for a speaker', () => {
    expect(write('Note: I moved the standup to Tuesdays.', OWNED)).toMatchObject({ speaker: null, about: 'Alex', text: 'Note: Alex moved the standup to Tuesdays.' });
    expect(write('Reminder: renew the passport.', OWNED).speaker).toBeNull();
  });
});

describe('greetings, vocatives and interjections', () => {
  it.each([
    ['Caroline: Hi Melanie, I finished the painting.', 'Caroline finished the painting.'],
    ['Caroline: Wow, I finished the painting!', 'Caroline finished the painting!'],
    ['Caroline: Yeah, I painted that lake sunrise.', 'Caroline painted that lake sunrise.'],
    ['Caroline: Oh, I forgot my keys.', 'Caroline forgot her keys.'],
    ['Caroline: Haha I burned the toast.', 'Caroline burned the toast.'],
    ['Caroline: Yeah Mel, I start the job in June.', 'Caroline starts the job in June.'],
    ['Nate: Anytime Joanna! I adopted a turtle.', 'Nate adopted a turtle.'],
    ['Caroline: Thanks, Melanie! I started a new job.', 'Caroline started a new job.'],
    ['Caroline: I started a new job, Mel!', 'Caroline started a new job!'],
    ['Caroline: I started a new job. Talk soon!', 'Caroline started a new job.'],
    ['Caroline: Well, I am off to do some research.', 'Caroline is off to do some research.'],
    ['Caroline: Oh my gosh, I won the raffle!', 'Caroline won the raffle!'],
  ])('%s', (input, expected) => {
    expect(text(input)).toBe(expected);
  });
});

describe('first person', () => {
  it.each([
    ['Caroline: I love hiking.', 'Caroline loves hiking.'],
    ['Caroline: I am a counselor.', 'Caroline is a counselor.'],
    ["Caroline: I'm a counselor.", 'Caroline is a counselor.'],
    ['Caroline: I have two cats.', 'Caroline has two cats.'],
    ["Caroline: I've got two cats.", 'Caroline has got two cats.'],
    ["Caroline: I'll start in June.", 'Caroline will start in June.'],
    ["Caroline: I'd love to visit Sweden.", 'Caroline would love to visit Sweden.'],
    ["Caroline: I'd never been there.", 'Caroline had never been there.'],
    ["Caroline: I don't eat meat.", "Caroline doesn't eat meat."],
    ["Caroline: I haven't seen it.", "Caroline hasn't seen it."],
    ['Caroline: I went to Paris.', 'Caroline went to Paris.'],
    ['Caroline: I was tired.', 'Caroline was tired.'],
    ['Caroline: I really enjoy pottery.', 'Caroline really enjoys pottery.'],
    ['Caroline: I can swim.', 'Caroline can swim.'],
    ['Caroline: I watch birds and fix bikes.', 'Caroline watches birds and fixes bikes.'],
    ['Caroline: My sister lives in Oslo.', "Caroline's sister lives in Oslo."],
    ['Caroline: The blue bike is mine.', "The blue bike is Caroline's."],
    ['Caroline: The group gave me courage.', 'The group gave Caroline courage.'],
    ['Caroline: Jon and I went skiing.', 'Jon and Caroline went skiing.'],
    ['Caroline: I read that book last year.', 'Caroline read that book in 2022.'],
  ])('%s', (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('names the speaker once a sentence and then uses a pronoun when the name says which', () => {
    expect(text("Caroline: I'm keen on counseling - I'd love to support my friends.")).toBe("Caroline is keen on counseling - she would love to support her friends.");
    expect(text('Nate: I think I lost my keys.')).toBe('Nate thinks he lost his keys.');
    expect(text('Caroline: The group helped me embrace myself.')).toBe('The group helped Caroline embrace herself.');
  });

  it('repeats the name when it does not tell a pronoun', () => {
    expect(text('Farid Haddad: I think I lost my keys.')).toBe("Farid Haddad thinks Farid Haddad lost Farid Haddad's keys.");
  });

  it('resolves "I" to the vault owner when there is no label, and leaves it when there is no owner', () => {
    expect(write("I'm vegetarian now.", OWNED)).toMatchObject({ text: 'Alex is vegetarian now.', speaker: null, about: 'Alex' });
    expect(write('I moved to Lisbon last weekend.', { ...OWNED, owner: null })).toMatchObject({ text: 'I moved to Lisbon the weekend of 6 May 2023.', about: null });
  });

  it('keeps "we" as said', () => {
    expect(text('Melanie: We went camping last month.', { ...TURN, listener: 'Caroline' })).toBe('We went camping in April 2023.');
  });
});

describe('"you"', () => {
  it('becomes the listener where the listener is clearly meant', () => {
    expect(text("Caroline: I'm really proud of you for taking part!")).toBe('Caroline is really proud of Melanie for taking part!');
    expect(text("Caroline: You've got guts.")).toBe('Melanie has got guts.');
    expect(text("Caroline: You're doing great and your kids are lucky.")).toBe("Melanie is doing great and Melanie's kids are lucky.");
    expect(text('Caroline: I wanted to tell you about my event.')).toBe("Caroline wanted to tell Melanie about Caroline's event.");
  });

  it('stays when it is generic or there is no listener', () => {
    expect(text('Caroline: Painting helps when you feel low.')).toBe('Painting helps when you feel low.');
    expect(text('Caroline: You never know what happens.')).toBe('You never know what happens.');
    expect(text("Caroline: I'm proud of you.", { ...TURN, listener: null })).toBe('Caroline is proud of you.');
  });
});

describe('relative times', () => {
  it('are resolved against the fact date, each listed', () => {
    expect(write('Caroline: I passed the interviews last Friday!', TURN)).toMatchObject({
      text: 'Caroline passed the interviews on Friday, 5 May 2023!',
      dates: [{ said: 'last Friday', resolved: 'on Friday, 5 May 2023' }],
    });
    expect(text('Caroline: I went to a school event last week.')).toBe('Caroline went to a school event the week of 1 May 2023.');
    expect(text("Caroline: I'm going to a conference next month.")).toBe('Caroline is going to a conference in June 2023.');
    // A counted span said with "ago" is news of its own ("how long ago?"): kept beside the year it names.
    expect(text('Caroline: I moved here 4 years ago.')).toBe('Caroline moved here 4 years ago (2019).');
    expect(text('Caroline: A friend made it for my 18th birthday ten years ago.')).toBe("A friend made it for Caroline's 18th birthday ten years ago (2013).");
    expect(text('Caroline: I got a puppy two weeks ago.')).toBe('Caroline got a puppy two weeks ago (the week of 24 April 2023).');
    expect(text('Caroline: Last Friday was amazing.')).toBe('Friday, 5 May 2023 was amazing.');
    expect(text('Caroline: I have been vegan since last year.')).toBe('Caroline has been vegan since 2022.');
  });

  it('leave absolute dates as written', () => {
    expect(text('Caroline: I married on 8 May, 2019.')).toBe('Caroline married on 8 May, 2019.');
  });
});

describe('chatter and questions', () => {
  it.each([
    'Caroline: Catch ya later!',
    'Caroline: Thanks!',
    "Caroline: That's awesome!",
    "Caroline: Wow, that's so cool!",
    'Caroline: Bye!',
    'Caroline: Take care',
    'Caroline: See you!',
    'Caroline: Me too!',
    'Caroline: Glad to hear it',
    'Caroline: Hey Mel! Good to see you!',
    'Caroline: Thanks, Mel!',
    'Caroline: I totally agree, Melanie.',
    'Caroline: Thanks, Melanie, for letting me join your journey.',
    'Caroline: Haha',
  ])('%s is chatter', (input) => {
    expect(write(input, TURN)).toMatchObject({ chatter: true, question: false });
  });

  it('marks a question, and calls it chatter when it says nothing of the speaker', () => {
    expect(write('Caroline: Did you hear any inspiring stories?', TURN)).toMatchObject({ chatter: true, question: true, text: 'Did you hear any inspiring stories?' });
    expect(write('Caroline: Hey Mel! How was it?', TURN)).toMatchObject({ chatter: true, question: true, text: 'How was it?' });
  });

  it('keeps the statement a question carries and drops the question', () => {
    expect(write('Caroline: I started pottery last week — have you tried it?', TURN)).toMatchObject({
      text: 'Caroline started pottery the week of 1 May 2023.',
      chatter: false,
      question: false,
    });
    expect(write('Caroline: Hey Mel! I adopted a dog. Do you have pets?', TURN)).toMatchObject({ text: 'Caroline adopted a dog.', chatter: false, question: false });
  });

  it('never marks a statement with content as chatter', () => {
    for (const input of [
      'Caroline: Thanks! I got the job at Northwind.',
      'Caroline: Wow, my sister moved to Tromsø.',
      'Caroline: The support group has made me feel accepted.',
      'Diego is allergic to shellfish.',
      'Caroline: Sounds great! I am in for the show.',
      'Caroline: Glad to hear it. We are moving to Lisbon.',
    ]) {
      expect(write(input, TURN).chatter, input).toBe(false);
    }
  });
});

describe('texts with nothing to resolve', () => {
  it('pass through unchanged', () => {
    for (const input of ['Diego is allergic to shellfish', 'Project Lantern ships in Q3.', 'Met Diego at [[Northwind Labs]] #work']) {
      expect(write(input, OWNED)).toEqual({ text: input, speaker: null, about: 'Alex', chatter: false, question: false, dates: [] });
    }
  });

  it('lose only the label and greeting', () => {
    expect(text('Melanie: Hey Caroline! The transgender stories were so inspiring.')).toBe('The transgender stories were so inspiring.');
  });
});

describe('determinism', () => {
  it('gives the same statement for the same text and context, also from a new writer', async () => {
    const inputs = ['Caroline: Hey Mel! I went to a LGBTQ support group yesterday and it was so powerful.', "Nate: I'm gonna adopt a turtle next month, what do you think?", 'Zoë: Wow! I love my new bike.'];
    const first = inputs.map((i) => write(i, TURN));
    const again = await loadStatementWriter();
    expect(inputs.map((i) => again(i, TURN))).toEqual(first);
    expect(inputs.map((i) => write(i, TURN))).toEqual(first);
  });
});

describe('turns that leave out their subject', () => {
  it.each([
    ['Caroline: Gonna continue my edu and check out career options.', 'Caroline is going to continue her edu and check out career options.'],
    ['Tim: Planning a trip there next month.', 'Tim is planning a trip there in June 2023.'],
    ['Tim: Excited to try this.', 'Tim is excited to try this.'],
    ['Tim: Love experimenting with spices.', 'Tim loves experimenting with spices.'],
    ['John: Made this tasty soup recently - it was real good!', 'John made this tasty soup recently - it was real good!'],
    ["Nate: Haven't seen a movie in ages.", "Nate hasn't seen a movie in ages."],
    ['Andrew: Can\'t wait till Toby and I bond better.', "Andrew can't wait till Toby and Andrew bond better."],
  ])('%s', (input, expected) => {
    expect(text(input)).toBe(expected);
  });

  it('leaves a sentence whose subject is a gerund, a description, or a command', () => {
    expect(text('Tim: Thinking about the possibilities pumps me up.')).toBe('Thinking about the possibilities pumps Tim up.');
    expect(text('Gina: Impressed by your commitment to the studio.')).toBe("Impressed by Melanie's commitment to the studio.");
    expect(text('Gina: Remember to stretch before dancing.')).toBe('Remember to stretch before dancing.');
  });

  it('leaves a turn without a label as written', () => {
    expect(write('Planning a trip to Lisbon.', OWNED).text).toBe('Planning a trip to Lisbon.');
  });
});

describe('informal contractions', () => {
  it('reads "gonna", "wanna" and "gotta" after "I"', () => {
    expect(text("Caroline: I'm gonna show my paintings.")).toBe('Caroline is gonna show her paintings.');
    expect(text('Caroline: I wanna learn the violin.')).toBe('Caroline wants to learn the violin.');
    expect(text('Caroline: I gotta finish my thesis.')).toBe('Caroline has to finish her thesis.');
  });
});

describe('reactions', () => {
  it('judging a thing with one adjective is chatter; saying what it is, is not', () => {
    expect(write('Tim: That castle looks amazing!', TURN).chatter).toBe(true);
    expect(write('Tim: Your garden is gorgeous.', TURN).chatter).toBe(true);
    expect(write('Tim: The castle is in Scotland.', TURN).chatter).toBe(false);
    expect(write('Tim: That castle looks amazing! I visited it in 2019.', TURN)).toMatchObject({ chatter: false, text: 'Tim visited it in 2019.' });
  });

  it('a short exclamation about "that", a leave-taking or a "yum" is chatter; one naming a thing, a number or the speaker is not', () => {
    for (const input of ['Audrey: That view is stunning!', "Andrew: That's a really big decision!", 'James: This photo rocks!', 'John: I have to go.', 'Joanna: Yum!']) {
      expect(write(input, TURN).chatter, input).toBe(true);
    }
    for (const input of ["Nate: That's my favorite!", "Jon: That's why I opened the studio in Paris!", "Gina: It's 5 years old!", 'James: I have to go to the dentist tomorrow.']) {
      expect(write(input, TURN).chatter, input).toBe(false);
    }
    expect(write('Joanna: Yum! I have to try that one.', TURN)).toMatchObject({ chatter: false, text: 'Joanna has to try that one.' });
  });

  it('a judgement after the turn\'s own news is about that news and stays; before any, it reacts and goes', () => {
    expect(text('John: Max and I went camping last summer. We hiked and swam. It was a really peaceful and awesome experience.')).toBe(
      'Max and John went camping last summer. We hiked and swam. It was a really peaceful and awesome experience.',
    );
    expect(text('John: That view is stunning! I hiked there in 2019.')).toBe('John hiked there in 2019.');
    expect(write('John: It was a really peaceful and awesome experience.', TURN).chatter).toBe(true);
  });
});

describe('questions that carry a statement', () => {
  it('keep a statement about a third party and drop one about the listener', () => {
    expect(write("John: That's right, his name is Ned, how could I forget?!", TURN)).toMatchObject({ chatter: false, text: "That's right, his name is Ned." });
    expect(write("John: That's great news - what did you do?", TURN)).toMatchObject({ chatter: true, question: true });
    expect(write('John: Your painting is lovely - how long did it take?', TURN)).toMatchObject({ chatter: true, question: true });
  });
});

describe('commands and idioms', () => {
  it('are not read as the speaker doing them', () => {
    expect(text('John: Guess what it was!')).toBe('Guess what it was!');
    expect(text('Maria: Been a few days since we chatted. I donated my car.')).toBe('Been a few days since we chatted. Maria donated her car.');
    expect(write("Melanie: Tell me, what's your vision for the future?", TURN)).toMatchObject({ chatter: true, question: true });
  });
});

describe('one rule for a speaker label (entities.ts speakerOf), in the writer and in entity recognition', () => {
  it('reads the same labels as speakers as speakerOf does, so a category heading is never a speaker in either', async () => {
    const { speakerOf } = await import('../../src/dream/entities.js');
    const texts = ['Entities: Alice Berg likes tea.', 'Relationships: Diego has a shellfish allergy.', 'Note: the boiler needs a check.', 'Anytime: happy to help.', 'Caroline: I went home.', 'Deborah: Jolene! Congrats on the job.', 'Amara Nwosu: I moved to Tromsø.'];
    for (const text of texts) expect(write(text, { date: '2023-05-08', owner: null, listener: null }).speaker, text).toBe(speakerOf(text));
    expect(speakerOf('Entities: Alice Berg likes tea.')).toBeNull();
    expect(speakerOf('Amara Nwosu: I moved to Tromsø.')).toBe('Amara Nwosu');
  });
});
