// Text inside the reports' formats: XML 1.0 for JUnit (characters XML cannot carry at all are
// dropped, the markup characters escaped) and Markdown table cells.
const XML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

export function xmlText(text: string): string {
  return text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/[&<>"']/g, (c) => XML_ESCAPES[c] ?? c);
}

/** A Markdown table cell: pipes escaped, lines joined. */
export function markdownCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

/** A JUnit XML document: its `testsuites` element with the totals, around suites already written. */
export function junitDocument(name: string, totals: { tests: number; failures: number; skipped: number }, suites: readonly string[]): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlText(name)}" tests="${totals.tests}" failures="${totals.failures}" errors="0" skipped="${totals.skipped}" time="0">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}
