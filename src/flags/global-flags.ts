// The whole program's flags, declared once as data: commander's options for the program (cli/
// program.ts) come from it, and so does the reading of a plain command line without commander
// (flags/simple-line.ts). Its help is the program's --help, as written here.
import { declareFlags } from './declare.js';

export const GLOBAL_FLAGS = declareFlags({
  json: { kind: 'switch', help: 'print one JSON document on stdout' },
  jq: { kind: 'value', value: 'expression', help: 'filter the JSON document with jq (implies --json; strings print raw)' },
  csv: { kind: 'switch', help: 'print CSV (commands that list records)' },
  wide: { kind: 'switch', help: 'tables: never hide or shorten a column to fit the terminal' },
  exact: { kind: 'switch', help: 'tables: every digit the service sent, unrounded' },
  color: { kind: 'negated', help: 'no colour (also NO_COLOR, CLICOLOR=0; FORCE_COLOR, CLICOLOR_FORCE=1 force it)' },
  timeout: { kind: 'value', value: 'seconds', default: '30', help: 'deadline for the whole command' },
  debug: { kind: 'switch', help: 'log each request to stderr (credentials redacted)' },
  profile: { kind: 'value', value: 'name', help: 'profile to use (env TALLY_PROFILE; default "default")' },
  baseUrl: { kind: 'value', value: 'url', help: 'gateway base URL (env TALLY_BASE_URL)' },
  demo: { kind: 'switch', help: 'run against the built-in sandbox gateway with a demo key' },
  tz: { kind: 'value', value: 'zone', help: "zone of labels and of times without an offset: an IANA name, UTC or +HH:MM (default: TZ, else the machine's)" },
  allowHttp: { kind: 'switch', help: 'allow plain http:// to a non-loopback host' },
  allProfiles: { kind: 'switch', help: 'the command for every stored profile (balance, status, forecast, budget, check, billing, usage, statusline)' },
  profiles: { kind: 'value', value: 'a,b', help: 'the command for these profiles' },
  pager: { kind: 'negated', help: 'never page a table taller than the terminal ($TALLY_PAGER, $PAGER, less -FRX)' },
  currency: { kind: 'value', value: 'code', help: 'show amounts also in this currency (ISO 4217: USD, EUR, JPY) at a dated rate; the yuan stay (config: currency)' },
  rate: { kind: 'value', value: 'rate', help: 'with --currency: that currency per yuan, instead of asking the rate source (config: rate_source)' },
});
