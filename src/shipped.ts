// The JSON files tally ships (schemas/), read from the package or the single executable's assets.
import { InstallError } from './errors.js';
import { shippedText } from './external.js';

/** A JSON file tally ships (a schema): its text and document; a missing or damaged one says the install is damaged. */
export function shippedJson(path: string): { text: string; document: Record<string, unknown> } {
  const text = shippedText(path);
  try {
    if (text !== undefined) return { text, document: JSON.parse(text) as Record<string, unknown> };
  } catch {
    // Below: not JSON is as damaged as missing.
  }
  throw new InstallError(`${path} is ${text === undefined ? 'missing or not a file tally wrote' : 'not the JSON tally ships'}`);
}
