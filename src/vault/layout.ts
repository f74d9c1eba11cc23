/** Folders of the vault layout (DESIGN §2) that the program treats specially. */

/** Archiving moves a page here; nothing is ever deleted. Archived pages are searched only on request. */
export const ARCHIVE_DIR = '5_Archives/';

/** Daily and weekly digests. They list what was learned; their citations do not place a fact. */
export const DIGESTS_DIR = '4_Resources/digests/';
