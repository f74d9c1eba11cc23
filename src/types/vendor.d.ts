// stopword ships no type declarations.
declare module 'stopword' {
  export const eng: string[];
}
// The English list alone: the package's main file holds 62 languages and costs a search tens of ms to load.
declare module 'stopword/src/stopwords_eng.js' {
  export const eng: string[];
}
