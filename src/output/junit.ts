// The JUnit XML report of `tally check --junit FILE`, as GitLab, Jenkins, CircleCI and the common
// GitHub test reporters read it: one testsuite, one testcase per condition; a failed condition
// has a <failure>, one skipped by --fail-open a <skipped>, a warning passes with its words in
// <system-out>. Whatever the gateway sent is escaped: the file is well-formed whatever it holds.

interface JunitCheck {
  name: string;
  level: 'pass' | 'warn' | 'fail';
}

/** Text for XML 1.0: the five markup characters escaped, characters XML cannot hold replaced. */
export function xmlText(text: string): string {
  return text
    .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export function junitXml(checks: JunitCheck[], lines: { text: string }[], skipped: string[], timestamp: string): string {
  const failures = checks.filter((c) => c.level === 'fail').length;
  const skips = checks.filter((c) => skipped.includes(c.name)).length;
  const cases = checks.map((check, i) => {
    const text = xmlText(lines[i]!.text);
    const open = `    <testcase classname="tally.check" name="${xmlText(check.name)}" time="0">`;
    if (skipped.includes(check.name)) return `${open}\n      <skipped message="${text}"/>\n    </testcase>`;
    if (check.level === 'fail') return `${open}\n      <failure message="${text}" type="budget">${text}</failure>\n    </testcase>`;
    if (check.level === 'warn') return `${open}\n      <system-out>WARN ${text}</system-out>\n    </testcase>`;
    return `${open}\n      <system-out>PASS ${text}</system-out>\n    </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tally check" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skips}" time="0">`,
    `  <testsuite name="tally check" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skips}" time="0" timestamp="${xmlText(timestamp)}">`,
    ...cases,
    '  </testsuite>',
    '</testsuites>',
    '',
  ].join('\n');
}
