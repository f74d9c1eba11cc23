/** Dates as people write them (fixed English, whatever the machine's locale): what questions and answers use. */

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'] as const;

/** "2023-05-08" → "8 May 2023". */
export function dateWords(date: string): string {
  const [year, month, day] = date.split('-').map(Number);
  return `${day} ${MONTHS[month! - 1]} ${year}`;
}

/** "2023-05" (or a full date) → "May 2023". */
export function monthWords(date: string): string {
  return `${MONTHS[Number(date.slice(5, 7)) - 1]} ${date.slice(0, 4)}`;
}
