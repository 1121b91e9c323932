// The options of the whole program (`tally --json --profile work …`), as cli/program.ts parses them and
// every command's context carries them.
export interface GlobalOptions {
  json: boolean;
  /** --jq EXPR: the JSON document through jq (json is true too). */
  jq?: string;
  csv: boolean;
  /** Seconds for the whole command. */
  timeout: number;
  /** Whether --timeout was given (not the default): it then bounds waits that otherwise run longer. */
  timeoutGiven?: boolean;
  debug: boolean;
  /** Tables: never drop or shorten a column to fit the terminal. */
  wide: boolean;
  /** Tables: every digit the service sent, unrounded. */
  exact: boolean;
  profile?: string;
  baseUrl?: string;
  demo: boolean;
  allowHttp: boolean;
  /** --no-pager: tall tables are written directly, never through a pager. */
  noPager?: boolean;
  /** --tz: the zone of labels and of times written without an offset. */
  tz?: string;
  /** --all-profiles: the command for every stored profile. */
  allProfiles?: boolean;
  /** --profiles a,b: the command for these profiles. */
  profiles?: string;
  /** --currency CODE: amounts shown also in this currency, at a dated rate. */
  currency?: string;
  /** --rate R: that currency per yuan, instead of asking the rate source. */
  rate?: string;
  /** Set by fleets and digests: a rate limit is waited out (its window reopening) within --timeout. */
  patient?: boolean;
}
