/** Folders of the vault layout (DESIGN §2) that the program treats specially. */

/** Archiving moves a page here; nothing is ever deleted. Archived pages are searched only on request. */
export const ARCHIVE_DIR = '5_Archives/';

/**
 * The `n`th archive name of the page `rel`: 5_Archives/<rel> first, then `<name> (2).md`, `(3)`, … beside
 * it, so a page that goes cold again while an archived copy of its name exists is archived too, and no
 * archived page is ever overwritten.
 */
export function archiveName(rel: string, n: number): string {
  return n <= 1 ? `${ARCHIVE_DIR}${rel}` : `${ARCHIVE_DIR}${rel.replace(/\.md$/u, '')} (${n}).md`;
}

/** The runner's review pages (unsorted facts, conflicts, insights): a person works them off; never archived. */
export const INBOX_DIR = '0_Inbox/';

/** Daily and weekly digests. They list what was learned; their citations do not place a fact. */
export const DIGESTS_DIR = '4_Resources/digests/';

/** The dream's record pages of small talk (dream/records.ts): greetings and thanks, cited off entity pages. */
export const RECORDS_DIR = '4_Resources/Small talk/';

/** The generated dashboard (charts of the memory's health), rewritten by the daemon's health job. */
export const DASHBOARD_PAGE = '4_Resources/Dashboard.md';

/**
 * Pages the program generates (digests, the dashboard): they list or chart what is known, so their
 * citations never place a fact and the dream never treats their lines as a person's.
 */
export function isGeneratedPage(rel: string): boolean {
  return rel.startsWith(DIGESTS_DIR) || rel === DASHBOARD_PAGE;
}
