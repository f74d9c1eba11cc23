// stopword ships no type declarations.
declare module 'stopword' {
  export const eng: string[];
}
