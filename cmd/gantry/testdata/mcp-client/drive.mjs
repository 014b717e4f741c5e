// drive.mjs: an MCP client on the real TypeScript SDK (@modelcontextprotocol/sdk 1.32.2:
// Client, StdioClientTransport, StreamableHTTPClientTransport) that the end-to-end tests
// of `gantry mcp` (cmd/gantry/mcp_e2e_test.go) run against the built binary.
//
//   node drive.mjs '<scenario JSON>'
//
// Scenario:
//   {
//     "stdio": {"command": "/path/gantry", "args": ["mcp"], "cwd": "/abs", "env": {…}},
//     "http": {"url": "http://127.0.0.1:PORT/mcp", "token": "…"},   // one of the two
//     "elicit": ["Allow once", "decline", …],   // answers to elicitation requests, in
//                                               // order (absent: no elicitation capability)
//     "steps": [
//       {"op": "connect", "conn": "a"},         // a new connection (stdio: a new gantry)
//       {"op": "list", "conn": "a"},
//       {"op": "call", "conn": "a", "name": "read_file", "arguments": {…}},
//       {"op": "drop", "conn": "a", "name": "bash", "arguments": {…}, "marker": "…"},
//                                               // start the call, wait until a process whose
//                                               // command line holds marker runs, then drop
//                                               // the connection; the step says whether the
//                                               // process was still there 5 s later
//       {"op": "close", "conn": "a"},
//       {"op": "noToken"}                       // an HTTP request without the token
//     ]
//   }
//
// It prints ONE JSON object: {"steps": [{op, conn, ms, result | error, …}], "elicited":
// [messages], "driverError"}.
import { readFileSync, readdirSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const sc = JSON.parse(process.argv[2] ?? readFileSync(0, "utf8"));
const out = { steps: [], elicited: [], driverError: null };
const conns = {};
const answers = [...(sc.elicit ?? [])];

function processWith(marker) {
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, "utf8").includes(marker)) return true;
    } catch {}
  }
  return false;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}

async function connect(name) {
  const caps = sc.elicit ? { elicitation: {} } : {};
  const client = new Client({ name: "gantry-e2e", version: "1.0.0" }, { capabilities: caps });
  if (sc.elicit) {
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      out.elicited.push(req.params.message);
      const a = answers.shift() ?? "decline";
      if (a === "decline" || a === "cancel") return { action: a };
      return { action: "accept", content: { decision: a } };
    });
  }
  let transport;
  if (sc.stdio) {
    transport = new StdioClientTransport({ command: sc.stdio.command, args: sc.stdio.args, cwd: sc.stdio.cwd,
      env: { ...process.env, ...(sc.stdio.env ?? {}) }, stderr: "inherit" });
  } else {
    transport = new StreamableHTTPClientTransport(new URL(sc.http.url),
      { requestInit: { headers: { Authorization: `Bearer ${sc.http.token}` } } });
  }
  await client.connect(transport);
  conns[name] = { client, transport };
}

async function step(s) {
  const rec = { op: s.op, conn: s.conn };
  const t0 = performance.now();
  try {
    switch (s.op) {
      case "connect":
        await connect(s.conn);
        break;
      case "list":
        rec.result = await conns[s.conn].client.listTools();
        break;
      case "call":
        rec.result = await conns[s.conn].client.callTool({ name: s.name, arguments: s.arguments ?? {} });
        break;
      case "drop": {
        const c = conns[s.conn];
        const pending = c.client.callTool({ name: s.name, arguments: s.arguments ?? {} }).catch((e) => ({ error: String(e) }));
        rec.ran = await waitFor(() => processWith(s.marker), 10000);
        // The client goes away mid-call: stdio closes gantry's stdin (and the SDK ends
        // the process as a client does); HTTP aborts its requests.
        await c.transport.close();
        rec.pending = await Promise.race([pending, sleep(2000).then(() => "no answer")]);
        rec.goneWithin5s = await waitFor(() => !processWith(s.marker), 5000);
        delete conns[s.conn];
        break;
      }
      case "close":
        await conns[s.conn].client.close();
        delete conns[s.conn];
        break;
      case "noToken": {
        const r = await fetch(sc.http.url, { method: "POST", headers: { "Content-Type": "application/json",
          Accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }) });
        rec.status = r.status;
        await r.text();
        break;
      }
      default:
        throw new Error(`unknown op ${s.op}`);
    }
  } catch (e) {
    rec.error = String(e && e.message ? e.message : e);
  }
  rec.ms = performance.now() - t0;
  out.steps.push(rec);
}

try {
  for (const s of sc.steps) await step(s);
} catch (e) {
  out.driverError = String(e);
} finally {
  for (const c of Object.values(conns)) {
    try { await c.client.close(); } catch {}
  }
}
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
