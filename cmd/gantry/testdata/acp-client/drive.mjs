// drive.mjs: an ACP client, built on the real TypeScript SDK (@agentclientprotocol/sdk
// 2.4.0, its client() app and ndJsonStream), that the end-to-end tests of `gantry acp`
// (cmd/gantry/acp_e2e_test.go) run against the built binary.
//
//   node drive.mjs < scenario.json        (or: node drive.mjs '<scenario JSON>')
//
// It spawns the agent, plays the scenario's steps, records everything it sees, and
// prints ONE JSON object on stdout. The agent's stderr, and the driver's own
// diagnostics, go to this process's stderr.
//
// Scenario:
//   {
//     "agent": {"command": "/path/gantry", "args": ["acp"], "cwd": "/abs"},
//     "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
//     "buffers": {"/abs/file": "text"},   // the editor's open buffers (served by fs/read_text_file;
//                                          // other paths are read from disk; writes go to buffers only)
//     "permissions": ["allow_once", "allow_always", "reject_once", "reject_always", "hold", "cancelled"],
//                                          // the answers to permission requests, in order (default
//                                          // allow_once); "hold" keeps the request unanswered, sends
//                                          // session/cancel, then answers it "cancelled"
//     "steps": [
//       {"op": "initialize"},                       // done first anyway when absent
//       {"op": "new", "cwd": "/abs"},               // session/new; the session becomes the current one
//       {"op": "load", "sessionId": "…", "cwd": "/abs"},
//       {"op": "prompt", "text": "…", "session": 0,   // session: the Nth session made by "new"
//                                                   // (default: the current one)
//        "cancelWhen": {"status": "in_progress", "process": "marker", "delayMs": 0}},
//                                                   // session/cancel once a tool_call_update of that
//                                                   // status arrives (and, with process, once a process
//                                                   // whose command line holds the marker runs; the
//                                                   // step then says whether it still ran when the
//                                                   // prompt answered); {"update": "agent_message_chunk"}
//                                                   // cancels on the first update of that kind instead
//       {"op": "set_mode", "modeId": "plan"},
//       {"op": "set_config_option", "configId": "mode", "value": "plan"},
//       {"op": "list"},
//       {"op": "sleep", "ms": 100}
//     ],
//     "holdMs": 200,        // how long a "hold" keeps a permission request before the cancel
//     "settleMs": 50,       // a wait after the last step, for updates sent just after it
//     "timeoutMs": 60000    // the whole scenario's bound (then the agent is killed)
//   }
//
// Result:
//   {
//     "steps": [{"op", "request", "result" | "error", "ms",
//                "cancel", "cancelToResponseMs", "processAtResponse", "processGoneAfterMs"}],
//     "updates": [session/update params, as the SDK delivered them],
//     "permissionRequests": [{"params", "answer", "outcome", "heldMs"}],
//     "fsReads": [{"path", "line", "limit", "served": "buffer"|"disk"|"missing"}],
//     "fsWrites": [{"path", "content"}],
//     "buffers": {…},                     // the buffers at the end
//     "cancels": [{"sessionId", "reason", "at"}],
//     "wire": [{"dir": "sent"|"recv", "at": ms, "msg": {…}} | {"dir", "at", "raw": "not JSON"}],
//     "sdkErrors": ["what the SDK complained about (console.error)"],
//     "driverError": "…" | null,
//     "agentExit": {"code", "signal"}, "agentPid": 123
//   }
import { spawn } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const started = Date.now();
const now = () => Date.now() - started;

function readScenario() {
  const arg = process.argv[2];
  if (arg !== undefined && arg !== "-") return JSON.parse(arg);
  return JSON.parse(readFileSync(0, "utf8"));
}

const sc = readScenario();
const out = {
  steps: [],
  updates: [],
  permissionRequests: [],
  fsReads: [],
  fsWrites: [],
  buffers: {},
  cancels: [],
  wire: [],
  sdkErrors: [],
  driverError: null,
  agentExit: null,
};

// The SDK reports what it could not parse or handle with console.error: keep it.
const consoleError = console.error.bind(console);
console.error = (...args) => {
  out.sdkErrors.push(args.map((a) => (typeof a === "string" ? a : safeJSON(a))).join(" "));
  consoleError(...args);
};

function safeJSON(v) {
  try {
    return JSON.stringify(v, (_k, x) => (x instanceof Error ? { name: x.name, message: x.message } : x));
  } catch {
    return String(v);
  }
}

// The wire: every line each way, in the order it crossed.
function tap(dir) {
  const decoder = new TextDecoder();
  let pending = "";
  const record = (line) => {
    if (line.trim() === "") {
      out.wire.push({ dir, at: now(), raw: line });
      return;
    }
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      out.wire.push({ dir, at: now(), raw: line.length > 4096 ? line.slice(0, 4096) + "…" : line });
      return;
    }
    out.wire.push({ dir, at: now(), msg });
  };
  return new TransformStream({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let i;
      while ((i = pending.indexOf("\n")) >= 0) {
        record(pending.slice(0, i));
        pending = pending.slice(i + 1);
      }
      controller.enqueue(chunk);
    },
    flush() {
      pending += decoder.decode();
      if (pending !== "") record(pending);
    },
  });
}

// processRunning reports whether a process whose command line holds marker exists.
function processRunning(marker) {
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`).toString().replaceAll("\0", " ");
      if (cmd.includes(marker)) return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond, ms, what) {
  const deadline = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

const buffers = { ...(sc.buffers ?? {}) };
const answers = [...(sc.permissions ?? [])];
let agentCtx = null; // the ClientContext, for the permission handler's session/cancel

async function sendCancel(sessionId, reason) {
  out.cancels.push({ sessionId, reason, at: now() });
  await agentCtx.notify(acp.methods.agent.session.cancel, { sessionId });
}

// The prompt step waiting to cancel on an update: {sessionId, status, process, delayMs, fired}.
let cancelWatch = null;

function watchUpdate(params) {
  const w = cancelWatch;
  const u = params.update;
  if (!w || w.fired || params.sessionId !== w.sessionId) return;
  if (w.update ? u.sessionUpdate !== w.update : u.sessionUpdate !== "tool_call_update" || u.status !== w.status) return;
  w.fired = true;
  w.done = (async () => {
    if (w.process) await waitFor(() => processRunning(w.process), 15000, `a process running ${w.process}`);
    w.processSeen = Boolean(w.process);
    if (w.delayMs) await sleep(w.delayMs);
    await sendCancel(w.sessionId, w.update ? `${w.update} update` : `tool_call_update ${w.status}`);
  })().catch((e) => {
    w.error = String(e?.message ?? e);
  });
}

function optionOf(params, kind) {
  return params.options.find((o) => o.kind === kind);
}

const app = acp
  .client({ name: "gantry-e2e-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    out.updates.push(params);
    watchUpdate(params);
  })
  .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
    const want = answers.length > 0 ? answers.shift() : "allow_once";
    const rec = { params, answer: want, at: now() };
    out.permissionRequests.push(rec);
    if (want === "hold") {
      // Keep it pending, cancel the turn, then answer cancelled as the protocol asks.
      await sleep(sc.holdMs ?? 200);
      await sendCancel(params.sessionId, "held permission request");
      rec.heldMs = now() - rec.at;
      rec.outcome = { outcome: "cancelled" };
      return { outcome: rec.outcome };
    }
    if (want === "cancelled") {
      rec.outcome = { outcome: "cancelled" };
      return { outcome: rec.outcome };
    }
    const opt = optionOf(params, want);
    if (!opt) {
      rec.outcome = { outcome: "cancelled" };
      rec.missing = `no option of kind ${want}`;
      return { outcome: rec.outcome };
    }
    rec.outcome = { outcome: "selected", optionId: opt.optionId };
    return { outcome: rec.outcome };
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => {
    const rec = { path: params.path, line: params.line ?? null, limit: params.limit ?? null };
    out.fsReads.push(rec);
    let text;
    if (Object.hasOwn(buffers, params.path)) {
      rec.served = "buffer";
      text = buffers[params.path];
    } else {
      try {
        text = readFileSync(params.path, "utf8");
        rec.served = "disk";
      } catch {
        rec.served = "missing";
        throw acp.RequestError.resourceNotFound(params.path);
      }
    }
    if (params.line != null || params.limit != null) {
      const lines = text.split("\n");
      const from = Math.max(0, (params.line ?? 1) - 1);
      const to = params.limit != null ? from + params.limit : lines.length;
      text = lines.slice(from, to).join("\n");
    }
    return { content: text };
  })
  .onRequest(acp.methods.client.fs.writeTextFile, ({ params }) => {
    out.fsWrites.push({ path: params.path, content: params.content });
    buffers[params.path] = params.content;
    return {};
  });

async function runStep(ctx, step, state) {
  const rec = { op: step.op };
  out.steps.push(rec);
  const t0 = Date.now();
  const call = async (method, params) => {
    rec.request = params;
    try {
      rec.result = await ctx.request(method, params);
    } catch (e) {
      rec.error = e instanceof acp.RequestError ? { code: e.code, message: e.message, data: e.data ?? null } : { message: String(e?.message ?? e) };
    }
  };
  switch (step.op) {
    case "initialize":
      await call(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: sc.clientCapabilities ?? { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: "gantry-e2e-client", version: "0.0.1" },
      });
      break;
    case "new":
      await call(acp.methods.agent.session.new, { cwd: step.cwd ?? sc.agent.cwd, mcpServers: [] });
      if (rec.result) {
        state.sessionId = rec.result.sessionId;
        (state.sessions ??= []).push(rec.result.sessionId);
      }
      break;
    case "load":
      await call(acp.methods.agent.session.load, { sessionId: step.sessionId, cwd: step.cwd ?? sc.agent.cwd, mcpServers: [] });
      if (rec.result) state.sessionId = step.sessionId;
      break;
    case "prompt": {
      const sessionId = step.sessionId ?? (step.session !== undefined ? state.sessions[step.session] : state.sessionId);
      if (step.cancelWhen) cancelWatch = { sessionId, ...step.cancelWhen, fired: false };
      await call(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text: step.text }] });
      if (cancelWatch) {
        await cancelWatch.done;
        rec.cancel = { fired: cancelWatch.fired, processSeen: cancelWatch.processSeen ?? false, error: cancelWatch.error ?? null };
        const sent = out.cancels.at(-1);
        if (sent) rec.cancelToResponseMs = Date.now() - started - sent.at;
        cancelWatch = null;
      }
      if (step.cancelWhen?.process) {
        // Is the cancelled command's process gone by the time the turn ended?
        const marker = step.cancelWhen.process;
        rec.processAtResponse = processRunning(marker);
        const t1 = Date.now();
        while (processRunning(marker) && Date.now() - t1 < 5000) await sleep(10);
        rec.processGoneAfterMs = processRunning(marker) ? null : Date.now() - t1;
      }
      break;
    }
    case "set_mode":
      await call(acp.methods.agent.session.setMode, { sessionId: step.sessionId ?? state.sessionId, modeId: step.modeId });
      break;
    case "set_config_option":
      await call(acp.methods.agent.session.setConfigOption, {
        sessionId: step.sessionId ?? state.sessionId,
        configId: step.configId,
        value: step.value,
      });
      break;
    case "list":
      await call(acp.methods.agent.session.list, {});
      break;
    case "sleep":
      await sleep(step.ms ?? 100);
      break;
    default:
      throw new Error(`unknown step op ${JSON.stringify(step.op)}`);
  }
  rec.ms = Date.now() - t0;
}

async function main() {
  const child = spawn(sc.agent.command, sc.agent.args ?? ["acp"], {
    cwd: sc.agent.cwd,
    env: process.env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  out.agentPid = child.pid;
  const exited = new Promise((resolve) => {
    child.on("exit", (code, signal) => resolve({ code, signal }));
    child.on("error", (e) => resolve({ code: null, signal: null, error: String(e.message) }));
  });

  const toAgent = tap("sent");
  void toAgent.readable.pipeTo(Writable.toWeb(child.stdin)).catch(() => {});
  const fromAgent = Readable.toWeb(child.stdout).pipeThrough(tap("recv"));
  const stream = acp.ndJsonStream(toAgent.writable, fromAgent);

  const timeout = setTimeout(() => {
    out.driverError = `the scenario took longer than ${sc.timeoutMs ?? 60000} ms`;
    finish(child, exited, true);
  }, sc.timeoutMs ?? 60000);

  try {
    await app.connectWith(stream, async (ctx) => {
      agentCtx = ctx;
      const state = { sessionId: null };
      const steps = sc.steps ?? [];
      if (steps[0]?.op !== "initialize") await runStep(ctx, { op: "initialize" }, state);
      for (const step of steps) await runStep(ctx, step, state);
      await sleep(sc.settleMs ?? 50); // updates sent just after the last response
    });
  } catch (e) {
    out.driverError = String(e?.stack ?? e);
  }
  clearTimeout(timeout);
  await finish(child, exited, false);
}

let finishing = null;
function finish(child, exited, killNow) {
  if (finishing) return finishing;
  finishing = (async () => {
    try {
      child.stdin.end(); // closing stdin is how a client stops the agent
    } catch {
      // already closed
    }
    if (killNow) child.kill("SIGKILL");
    const t = setTimeout(() => child.kill("SIGKILL"), 10000);
    out.agentExit = await exited;
    clearTimeout(t);
    out.buffers = buffers;
    process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
  })();
  return finishing;
}

main().catch((e) => {
  out.driverError = String(e?.stack ?? e);
  process.stdout.write(JSON.stringify(out) + "\n", () => process.exit(0));
});
