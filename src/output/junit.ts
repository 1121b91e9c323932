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

interface JunitGroup {
  /** A fleet's profile: its own testsuite, its cases named by it. */
  profile?: string;
  checks: JunitCheck[];
  lines: { text: string }[];
  skipped: string[];
  /** The profile could not be checked at all: one errored case says why. */
  error?: string;
}

/** One testsuite per group (a single run has one, named "tally check"). */
export function junitXml(groups: JunitGroup[], timestamp: string): string {
  const suites = groups.map((g) => {
    const failures = g.checks.filter((c) => c.level === 'fail').length;
    const skips = g.checks.filter((c) => g.skipped.includes(c.name)).length;
    const name = g.profile === undefined ? 'tally check' : `tally check (${g.profile})`;
    const classname = g.profile === undefined ? 'tally.check' : `tally.check.${g.profile}`;
    const cases = g.checks.map((check, i) => {
      const text = xmlText(g.lines[i]!.text);
      const open = `    <testcase classname="${xmlText(classname)}" name="${xmlText(check.name)}" time="0">`;
      if (g.skipped.includes(check.name)) return `${open}\n      <skipped message="${text}"/>\n    </testcase>`;
      if (check.level === 'fail') return `${open}\n      <failure message="${text}" type="budget">${text}</failure>\n    </testcase>`;
      if (check.level === 'warn') return `${open}\n      <system-out>WARN ${text}</system-out>\n    </testcase>`;
      return `${open}\n      <system-out>PASS ${text}</system-out>\n    </testcase>`;
    });
    const errors = g.error === undefined ? 0 : 1;
    if (g.error !== undefined) cases.push(`    <testcase classname="${xmlText(classname)}" name="profile" time="0">\n      <error message="${xmlText(g.error)}" type="not-measured">${xmlText(g.error)}</error>\n    </testcase>`);
    const tests = g.checks.length + errors;
    return { tests, failures, skips, errors, text: [`  <testsuite name="${xmlText(name)}" tests="${tests}" failures="${failures}" errors="${errors}" skipped="${skips}" time="0" timestamp="${xmlText(timestamp)}">`, ...cases, '  </testsuite>'] };
  });
  const sum = (key: 'tests' | 'failures' | 'skips' | 'errors') => suites.reduce((n, s) => n + s[key], 0);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="tally check" tests="${sum('tests')}" failures="${sum('failures')}" errors="${sum('errors')}" skipped="${sum('skips')}" time="0">`,
    ...suites.flatMap((s) => s.text),
    '</testsuites>',
    '',
  ].join('\n');
}
