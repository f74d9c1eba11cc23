/**
 * The words synthetic facts are made of: topics (each with its own things and actions), people,
 * projects, places and times. Crossing them gives texts varied enough that search has to rank.
 */

export interface Topic {
  tag: string;
  title: string;
  things: readonly string[];
  actions: readonly string[];
}

export const TOPICS: readonly Topic[] = [
  { tag: 'coffee', title: 'Coffee', things: ['dark roast', 'espresso blend', 'pour-over kettle', 'burr grinder', 'oat milk latte', 'cold brew', 'Ethiopian beans'], actions: ['brew', 'order', 'grind', 'taste'] },
  { tag: 'running', title: 'Running', things: ['marathon plan', 'interval session', 'trail shoes', 'tempo run', 'heart rate monitor', 'half marathon', 'recovery jog'], actions: ['schedule', 'finish', 'track', 'skip'] },
  { tag: 'kubernetes', title: 'Kubernetes', things: ['helm chart', 'ingress controller', 'node pool', 'pod autoscaler', 'cluster upgrade', 'service mesh', 'secrets rotation'], actions: ['deploy', 'roll back', 'upgrade', 'debug'] },
  { tag: 'cooking', title: 'Cooking', things: ['sourdough starter', 'mushroom risotto', 'cast iron pan', 'tomato sauce', 'lentil curry', 'knife set', 'spice rack'], actions: ['cook', 'bake', 'prepare', 'season'] },
  { tag: 'music', title: 'Music', things: ['jazz playlist', 'vinyl collection', 'piano lessons', 'concert tickets', 'guitar strings', 'synthesizer patch', 'choir rehearsal'], actions: ['practice', 'record', 'listen to', 'tune'] },
  { tag: 'travel', title: 'Travel', things: ['train tickets', 'hotel booking', 'passport renewal', 'travel insurance', 'window seat', 'packing list', 'airport lounge'], actions: ['book', 'cancel', 'plan', 'confirm'] },
  { tag: 'health', title: 'Health', things: ['dentist appointment', 'vitamin D', 'sleep schedule', 'blood test', 'allergy medication', 'physiotherapy', 'eye exam'], actions: ['schedule', 'review', 'renew', 'postpone'] },
  { tag: 'finance', title: 'Finance', things: ['tax return', 'index fund', 'monthly budget', 'mortgage rate', 'expense report', 'savings account', 'invoice batch'], actions: ['file', 'review', 'pay', 'reconcile'] },
  { tag: 'reading', title: 'Reading', things: ['science fiction novel', 'history book', 'research paper', 'poetry collection', 'audiobook', 'book club pick', 'graphic novel'], actions: ['read', 'recommend', 'finish', 'annotate'] },
  { tag: 'garden', title: 'Garden', things: ['tomato seedlings', 'compost bin', 'rose bushes', 'herb planter', 'drip irrigation', 'apple tree', 'raised bed'], actions: ['plant', 'water', 'prune', 'harvest'] },
  { tag: 'database', title: 'Database', things: ['postgres replica', 'schema migration', 'query planner', 'connection pool', 'backup snapshot', 'slow query log', 'vacuum job'], actions: ['migrate', 'index', 'restore', 'tune'] },
  { tag: 'frontend', title: 'Frontend', things: ['react component', 'css grid layout', 'bundle size', 'accessibility audit', 'dark mode theme', 'form validation', 'design tokens'], actions: ['refactor', 'ship', 'review', 'test'] },
  { tag: 'security', title: 'Security', things: ['api key rotation', 'two factor login', 'pen test report', 'tls certificate', 'dependency audit', 'firewall rule', 'incident drill'], actions: ['rotate', 'audit', 'patch', 'enforce'] },
  { tag: 'family', title: 'Family', things: ['birthday party', 'school recital', 'grandparents visit', 'weekend picnic', 'holiday dinner', 'soccer practice', 'family photo album'], actions: ['organize', 'attend', 'plan', 'celebrate'] },
  { tag: 'hiring', title: 'Hiring', things: ['job description', 'interview loop', 'take-home exercise', 'offer letter', 'onboarding plan', 'reference check', 'candidate pipeline'], actions: ['draft', 'review', 'send', 'approve'] },
  { tag: 'writing', title: 'Writing', things: ['blog post', 'conference talk', 'newsletter issue', 'design doc', 'release notes', 'book chapter', 'grant proposal'], actions: ['write', 'edit', 'publish', 'outline'] },
  { tag: 'fitness', title: 'Fitness', things: ['deadlift program', 'yoga class', 'climbing gym', 'swim technique', 'kettlebell routine', 'cycling route', 'mobility drills'], actions: ['train', 'join', 'improve', 'log'] },
  { tag: 'home', title: 'Home', things: ['kitchen renovation', 'heat pump', 'solar panels', 'leaking faucet', 'bookshelf', 'smart thermostat', 'window insulation'], actions: ['install', 'repair', 'replace', 'inspect'] },
  { tag: 'ml', title: 'Machine learning', things: ['embedding model', 'training run', 'eval dataset', 'gpu quota', 'feature store', 'fine-tuning job', 'inference latency'], actions: ['train', 'evaluate', 'benchmark', 'deploy'] },
  { tag: 'language', title: 'Languages', things: ['Portuguese lessons', 'Japanese kanji', 'Spanish podcast', 'vocabulary flashcards', 'grammar workbook', 'conversation partner', 'German subtitles'], actions: ['study', 'practice', 'review', 'memorize'] },
  { tag: 'pets', title: 'Pets', things: ['dog walker', 'vet checkup', 'cat food brand', 'aquarium filter', 'puppy training', 'flea treatment', 'pet insurance'], actions: ['book', 'switch', 'schedule', 'buy'] },
  { tag: 'car', title: 'Car', things: ['winter tires', 'oil change', 'parking permit', 'charging cable', 'car insurance', 'brake pads', 'roof rack'], actions: ['replace', 'renew', 'check', 'buy'] },
  { tag: 'photography', title: 'Photography', things: ['prime lens', 'film camera', 'photo backup', 'lightroom preset', 'tripod', 'street photo walk', 'print portfolio'], actions: ['shoot', 'edit', 'back up', 'print'] },
  { tag: 'volunteering', title: 'Volunteering', things: ['food bank shift', 'beach cleanup', 'mentoring session', 'charity run', 'library fundraiser', 'shelter donation', 'tutoring program'], actions: ['join', 'lead', 'support', 'organize'] },
];

export const PEOPLE: readonly string[] = [
  'Alice', 'Bruno', 'Chen', 'Dana', 'Emeka', 'Farah', 'Gustavo', 'Hana', 'Ivan', 'Jasmine', 'Kenji', 'Leila', 'Marco', 'Nadia',
  'Oscar', 'Priya', 'Quentin', 'Rosa', 'Samir', 'Tove', 'Umar', 'Valentina', 'Wen', 'Ximena', 'Yusuf', 'Zoe', 'Caroline', 'Melanie',
  'Joanna', 'Nate',
];

export const PROJECTS: readonly string[] = [
  'Atlas', 'Borealis', 'Cinder', 'Delta', 'Ember', 'Fjord', 'Granite', 'Harbor', 'Iris', 'Juniper', 'Kestrel', 'Lumen', 'Mosaic',
  'Nimbus', 'Orchid', 'Pioneer', 'Quartz', 'Riverbend',
];

export const PLACES: readonly string[] = [
  'Lisbon', 'Oslo', 'Kyoto', 'Toronto', 'Nairobi', 'Porto', 'Berlin', 'Austin', 'Melbourne', 'Valparaiso', 'Edinburgh', 'Seoul',
  'Marrakesh', 'Reykjavik', 'Montreal', 'the office', 'home', 'the cabin',
];

export const WEEKDAYS: readonly string[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
export const MONTHS: readonly string[] = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
export const ROLES: readonly string[] = ['lead', 'sponsor', 'reviewer', 'designer', 'on-call engineer', 'product owner', 'mentor'];
export const RELATIONS: readonly string[] = ['met', 'work together', 'became friends', 'collaborate', 'trained together', 'share an interest'];
export const CONTEXTS: readonly string[] = ['travelling', 'working late', 'on weekends', 'in the morning', 'under deadline', 'with guests', 'after training'];
export const QUALITIES: readonly string[] = ['reliable', 'too expensive', 'surprisingly good', 'hard to find', 'worth the effort', 'overrated', 'a clear favourite'];
export const SOURCES: readonly string[] = ['claude-code/3f9a1c', 'claude-code/b71e02', 'cli', 'mcp/cursor', 'ingest/notes', 'mcp/claude-desktop'];
export const ASPECTS: readonly string[] = ['Notes', 'Plans', 'Decisions', 'People', 'Log', 'Guide'];
