// The two small text packages ship no type declarations.
declare module 'stopword' {
  export const eng: string[];
}
declare module 'wink-porter2-stemmer' {
  export default function stem(word: string): string;
}
