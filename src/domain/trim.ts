// Trimming a repeated character from the ends of a text with a scan: `/x+$/` tries every start of
// a run of x and so costs the square of a long run's length.

/** `text` without the `char`s it ends with. */
export function trimEnd(text: string, char: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === char) end--;
  return text.slice(0, end);
}

/** `text` without the `char`s it starts and ends with. */
export function trimBoth(text: string, char: string): string {
  let start = 0;
  while (start < text.length && text[start] === char) start++;
  return trimEnd(text.slice(start), char);
}
