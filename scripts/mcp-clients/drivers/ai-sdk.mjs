// The Vercel AI SDK's own MCP client (@ai-sdk/mcp): connect, convert every tool into an AI SDK
// tool (client.tools()), and run the calls through each tool's execute, as generateText would.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';
import { print, readArguments } from './common.mjs';

const { server, calls } = readArguments();
const transport = server.http ? { type: 'http', url: server.http } : new Experimental_StdioMCPTransport(server.stdio);
const client = await createMCPClient({ transport });
try {
  const tools = await client.tools();
  const schemaOf = (tool) => tool.inputSchema?.jsonSchema ?? tool.parameters?.jsonSchema ?? tool.inputSchema;
  const report = { tools: Object.entries(tools).map(([name, tool]) => ({ name, description: tool.description, inputSchema: await_(schemaOf(tool)) })), calls: [] };
  for (const [name, args] of calls) {
    try {
      const result = await tools[name].execute(args, { toolCallId: `call-${report.calls.length}`, messages: [] });
      report.calls.push({ name, isError: result.isError === true, text: result.content?.map((c) => c.text ?? '').join('') ?? '', structured: result.structuredContent ?? null });
    } catch (error) {
      report.calls.push({ name, error: error.message });
    }
  }
  print(report);
} finally {
  await client.close();
}

function await_(value) {
  return value;
}
