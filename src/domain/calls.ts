// The per-call log's entries, whose shape the service does not publish: which field names a call
// (to see each once however often the log is read), when it happened and what it cost, found in
// the records themselves (decimal strings are money, a time-like name holds the time).
import { describeColumns, isTimeName } from './records.js';
import { type JsonObject, isJsonNumber, numberText } from './json.js';
import { isDecimalString } from './decimal-text.js';
import { moneyFieldOf } from './money-field.js';

export interface CallFields {
  /** The field that names a call (`id`, `request_id`), when the records have one. */
  id?: string;
  /** The field holding when the call happened. */
  time?: string;
  /** The money field that holds the call's cost. */
  cost?: string;
}

const ID_NAMES = /^(id|request_id|requestId|call_id|callId|log_id|logId|trace_id|traceId|uuid)$/;
const TIME_PREFERRED = /^(created_at|createdAt|created|timestamp|time|ts|at|request_time|requested_at)$/;

/** The id, time and cost fields of log entries, each only when the records hold one. */
export function callFields(records: JsonObject[]): CallFields {
  const columns = describeColumns(records);
  const id = columns.find((c) => ID_NAMES.test(c.name))?.name;
  const times = columns.filter((c) => c.kind === 'time');
  const time = (times.find((c) => TIME_PREFERRED.test(c.name)) ?? times[0])?.name;
  const money = columns.filter((c) => c.kind === 'money' && !isTimeName(c.name));
  const cost = moneyFieldOf(money.map((c) => c.name));
  return { ...(id ? { id } : {}), ...(time ? { time } : {}), ...(cost ? { cost } : {}) };
}


/** What names one call: its id, or (a log without ids) the whole entry as the gateway sent it. */
export function callIdentity(record: JsonObject, fields: CallFields): string {
  const id = fields.id === undefined ? undefined : record[fields.id];
  if (typeof id === 'string' && id !== '') return `id:${id}`;
  if (id !== undefined && isJsonNumber(id)) return `id:${numberText(id)}`;
  return `entry:${JSON.stringify(record)}`;
}

/** The call's cost as the gateway wrote it (a decimal string), or undefined when it holds none tally can read as money. */
export function callCost(record: JsonObject, fields: CallFields): string | undefined {
  const value = fields.cost === undefined ? undefined : record[fields.cost];
  return isDecimalString(value) ? value : undefined;
}
