// Drives POST /mcp with the official MCP TypeScript SDK, as an agent would:
// initialize, tools/list, a free tool, a paid tool with an API key, and the
// same paid tool without one (HTTP 402). Prints one JSON line with what it
// saw; query/mcp_interop_test.go checks it.
//
// usage: node client.mjs URL API_KEY FREE_TOOL FREE_ARGS_JSON PAID_TOOL PAID_ARGS_JSON
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, key, freeTool, freeArgs, paidTool, paidArgs] = process.argv.slice(2);

async function connect(headers) {
  const client = new Client({ name: "mi-interop", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return client;
}

const text = (r) => (r.content || []).filter((c) => c.type === "text").map((c) => c.text).join("");
const out = {};
try {
  const anon = await connect({});
  const tools = await anon.listTools();
  out.tools = tools.tools.map((t) => t.name).sort();
  out.schemasAreObjects = tools.tools.every((t) => t.inputSchema && t.inputSchema.type === "object");
  const free = await anon.callTool({ name: freeTool, arguments: JSON.parse(freeArgs) });
  out.free = { isError: !!free.isError, text: text(free) };
  try {
    await anon.callTool({ name: paidTool, arguments: JSON.parse(paidArgs) });
    out.unpaid = { error: null };
  } catch (e) {
    out.unpaid = { error: String(e && e.message ? e.message : e), code: e && e.code };
  }
  await anon.close().catch(() => {});
  const paying = await connect({ "X-API-Key": key });
  const paid = await paying.callTool({ name: paidTool, arguments: JSON.parse(paidArgs) });
  out.paid = { isError: !!paid.isError, text: text(paid) };
  await paying.close().catch(() => {});
} catch (e) {
  out.fatal = String(e && e.stack ? e.stack : e);
}
console.log(JSON.stringify(out));
