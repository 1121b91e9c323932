// LangChain's MCP adapters (@langchain/mcp-adapters): every tool as a LangChain structured tool,
// invoked as an agent's tool node would.
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { print, readArguments, textOf } from './common.mjs';

const { server, calls } = readArguments();
const connection = server.http ? { transport: 'http', url: server.http } : { transport: 'stdio', command: server.stdio.command, args: server.stdio.args, env: server.stdio.env };
const client = new MultiServerMCPClient({ mcpServers: { tally: connection }, throwOnLoadError: true, prefixToolNameWithServerName: false, useStandardContentBlocks: false });
try {
  const tools = await client.getTools();
  const report = { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.schema })), calls: [] };
  for (const [name, args] of calls) {
    const tool = tools.find((t) => t.name === name);
    try {
      const output = await tool.invoke(args);
      report.calls.push({ name, text: textOf(Array.isArray(output) ? output[0] : output) });
    } catch (error) {
      report.calls.push({ name, error: error.message });
    }
  }
  print(report);
} finally {
  await client.close();
}
