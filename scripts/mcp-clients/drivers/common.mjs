// What every client driver takes and prints. Argument 1 is the server (a JSON object: {"stdio":
// {command, args, env}} or {"http": url}); argument 2 the calls to make ([[tool, arguments]...]).
// Each driver prints one JSON document on stdout: the tools as the client converted them (name,
// description, the JSON Schema of their arguments) and each call's answer as the client hands it
// to a model ({"text"} with what the model reads, {"error"} when the client threw).
export function readArguments() {
  const [server, calls] = process.argv.slice(2);
  return { server: JSON.parse(server), calls: JSON.parse(calls ?? '[]') };
}

export function print(report) {
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** The text a model reads from an MCP tool result (content blocks), whatever shape the client returns. */
export function textOf(value) {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(textOf).join('');
  if (value && typeof value === 'object') {
    if (typeof value.text === 'string') return value.text;
    if (Array.isArray(value.content)) return textOf(value.content);
  }
  return JSON.stringify(value);
}
