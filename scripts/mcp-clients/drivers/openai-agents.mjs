// The OpenAI Agents SDK's MCP server classes (@openai/agents-core): connect, convert every tool into
// a function tool as an agent would (in strict mode, as the SDK does by default for function tools:
// every argument required and nullable, so a model sends null for the ones it leaves out), and
// invoke each with the arguments the model would send.
import { MCPServerStdio, MCPServerStreamableHttp, RunContext, getAllMcpTools } from '@openai/agents-core';
import { print, readArguments } from './common.mjs';

const { server, calls } = readArguments();
const strict = process.env.STRICT !== '0';
const mcp = server.http ? new MCPServerStreamableHttp({ url: server.http, name: 'tally' }) : new MCPServerStdio({ ...server.stdio, name: 'tally' });
await mcp.connect();
try {
  const tools = await getAllMcpTools({ mcpServers: [mcp], convertSchemasToStrict: strict, runContext: new RunContext({}) });
  const report = { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.parameters, strict: t.strict })), calls: [] };
  for (const [name, args] of calls) {
    const tool = tools.find((t) => t.name === name);
    // In strict mode the model sends every argument, null for those it leaves out.
    const sent = strict ? Object.fromEntries(Object.keys(tool.parameters.properties ?? {}).map((k) => [k, args[k] ?? null])) : args;
    try {
      const output = await tool.invoke(new RunContext({}), JSON.stringify(sent));
      report.calls.push({ name, sent, text: typeof output === 'string' ? output : JSON.stringify(output) });
    } catch (error) {
      report.calls.push({ name, sent, error: error.message });
    }
  }
  print(report);
} finally {
  await mcp.close();
}
