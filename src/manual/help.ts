// `tally help TOPIC`: a topic of the manual, as shipped (docs/TOPIC.md in the package, an asset of
// the single executable), printed as written (Markdown reads as plain text). A word that is
// neither a command nor a topic is refused with the topic most likely meant.
import { shippedText } from '../external.js';
import { TOPICS, topicOf } from './topics.js';

/** The topic's text; a refusal (exit 2) for a word that names no topic; neither (empty text) when commander should answer. */
export function helpTopic(word: string): { ok: boolean; text: string } {
  const topic = topicOf(word);
  if (!topic) {
    // An option (`tally help --json`) or the like: commander's help answers it.
    if (word.startsWith('-')) return { ok: false, text: '' };
    return { ok: false, text: `tally: "${word.replace(/[^\x20-\x7e]/g, '?')}" is neither a command nor a topic of the manual. Topics: ${TOPICS.map((t) => t.name).join(', ')}; tally --help lists the commands.\n` };
  }
  const text = shippedText(`docs/${topic.name}.md`);
  if (text === undefined) return { ok: false, text: `tally: the manual is not installed with this tally (docs/${topic.name}.md is missing); reinstall tally, or read it at docs/${topic.name}.md in its repository\n` };
  return { ok: true, text: text.endsWith('\n') ? text : `${text}\n` };
}
