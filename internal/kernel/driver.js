// gantry's JavaScript kernel: cells in, results out, as JSON lines on the descriptors
// gantry gives it (3: to the kernel, 4: from it), never on stdout. One context lives
// from cell to cell. Run as `node --expose-internals driver.js` (for Node's own acorn).
'use strict';
const fs = require('fs');
const vm = require('vm');
const util = require('util');
const readline = require('readline');
const acorn = require('internal/deps/acorn/acorn/dist/acorn');

const IN = 3;
const OUT = 4;
const MAX_TEXT = 1 << 20;

function send(msg) {
  const data = Buffer.from(JSON.stringify(msg) + '\n');
  let off = 0;
  while (off < data.length) {
    try {
      off += fs.writeSync(OUT, data, off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      process.exit(0); // gantry is gone
    }
  }
}

// What the process itself wrote (a child's inherited output) comes before what is
// sent next: gantry reads up to this mark on both streams first.
function sync() {
  for (const fd of [1, 2]) {
    try { fs.writeSync(fd, '\x1egantry-sync\x1e'); } catch {}
  }
}

function cap(s) {
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) + `… (${s.length} characters)` : s;
}

function show(v) {
  if (typeof v === 'string') return v;
  return util.inspect(v, { depth: 4, maxArrayLength: 100, maxStringLength: 10000, breakLength: 100 });
}

function bundle(v) {
  if (v && typeof v === 'object' && typeof v._repr_markdown_ === 'function') {
    return { 'text/markdown': String(v._repr_markdown_()) };
  }
  return { 'text/plain': cap(typeof v === 'string' ? util.inspect(v) : show(v)) };
}

// console: text goes to gantry in order with displays.
function stream(name) {
  return (...args) => { sync(); send({ type: 'stream', name, text: util.format(...args) + '\n', sync: true }); };
}
const cellConsole = {
  log: stream('stdout'), info: stream('stdout'), debug: stream('stdout'),
  error: stream('stderr'), warn: stream('stderr'), trace: stream('stderr'),
  dir: (v) => { sync(); send({ type: 'stream', name: 'stdout', text: show(v) + '\n', sync: true }); },
  table: (v) => { sync(); send({ type: 'stream', name: 'stdout', text: show(v) + '\n', sync: true }); },
};

function display(...objs) {
  for (const o of objs) {
    const data = bundle(o);
    sync();
    send({ type: 'display', data, sync: true });
  }
}

// gantry's tools, from a cell: await tool(name, args).
let toolSeq = 0;
const waiting = new Map();
class ToolError extends Error {
  constructor(m) { super(m); this.name = 'ToolError'; }
}
function tool(name, args) {
  const id = ++toolSeq;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    send({ type: 'tool_call', id, name, args: args || {} });
  });
}

const context = vm.createContext({
  console: cellConsole, display, tool, ToolError, require, module, process, Buffer,
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate,
  URL, URLSearchParams, TextEncoder, TextDecoder, fetch: globalThis.fetch, structuredClone,
  queueMicrotask, AbortController, performance: globalThis.performance,
});

// The names a pattern (let {a, b: [c]} = …) binds.
function names(p, out) {
  if (!p) return out;
  switch (p.type) {
    case 'Identifier': out.push(p.name); break;
    case 'ObjectPattern': for (const q of p.properties) names(q.type === 'RestElement' ? q.argument : q.value, out); break;
    case 'ArrayPattern': for (const q of p.elements) names(q, out); break;
    case 'RestElement': names(p.argument, out); break;
    case 'AssignmentPattern': names(p.left, out); break;
  }
  return out;
}

// A cell as the body of an async function whose top-level declarations become
// properties of the context (so that a later cell sees them, and may declare them
// again), returning its last expression. Node 20's vm does not take top-level await.
function transform(src) {
  const ast = acorn.parse(src, { ecmaVersion: 'latest', sourceType: 'script', allowAwaitOutsideFunction: true,
    allowReturnOutsideFunction: false, allowHashBang: true });
  const edits = []; // [start, end, text]
  const hoisted = [];
  const body = ast.body;
  for (let i = 0; i < body.length; i++) {
    const st = body[i];
    const code = src.slice(st.start, st.end);
    if (st.type === 'VariableDeclaration') {
      const parts = [];
      for (const d of st.declarations) {
        for (const n of names(d.id, [])) hoisted.push(n);
        if (d.init) {
          const target = src.slice(d.id.start, d.id.end);
          parts.push(`(${target} = ${src.slice(d.init.start, d.init.end)})`);
        } else if (d.id.type === 'Identifier') {
          parts.push(`(${d.id.name} = undefined)`);
        }
      }
      edits.push([st.start, st.end, parts.length ? parts.join(', ') + ';' : ';']);
    } else if (st.type === 'FunctionDeclaration' && st.id) {
      hoisted.push(st.id.name);
      edits.push([st.start, st.end, ';']);
      edits.unshift([0, 0, `${st.id.name} = ${code};\n`]);
    } else if (st.type === 'ClassDeclaration' && st.id) {
      hoisted.push(st.id.name);
      edits.push([st.start, st.end, `${st.id.name} = ${code};`]);
    } else if (i === body.length - 1 && st.type === 'ExpressionStatement' && !src.slice(st.start, st.end).trimEnd().endsWith(';')) {
      edits.push([st.start, st.end, `return (${src.slice(st.expression.start, st.expression.end)});`]);
    } else if (i === body.length - 1 && st.type === 'ExpressionStatement') {
      edits.push([st.start, st.end, `${src.slice(st.expression.start, st.expression.end)}; return undefined;`]);
    }
  }
  let out = '';
  let at = 0;
  const pre = edits.filter((e) => e[0] === 0 && e[1] === 0).map((e) => e[2]).join('');
  for (const [s, e, t] of edits.filter((x) => !(x[0] === 0 && x[1] === 0)).sort((a, b) => a[0] - b[0])) {
    out += src.slice(at, s) + t;
    at = e;
  }
  out += src.slice(at);
  for (const n of hoisted) {
    if (!Object.prototype.hasOwnProperty.call(context, n)) context[n] = undefined;
  }
  return `(async () => {\n${pre}${out}\n})()`;
}

let cellNo = 0;
let active = null; // the running cell's reporter

process.on('uncaughtException', (e) => { if (active) active(e); });
process.on('unhandledRejection', (e) => { if (active) active(e); });
process.on('SIGINT', () => {}); // the vm's breakOnSigint interrupts a running cell

// Each byte on the control descriptor (5) interrupts the running cell: a worker thread
// reads it (the main thread may be busy in the cell) and sends SIGINT to this process
// from inside, so that it reaches the interpreter in a sandbox too.
{
  const { Worker } = require('worker_threads');
  const watcher = new Worker(`
    const fs = require('fs');
    const buf = Buffer.alloc(64);
    for (;;) {
      let n;
      try { n = fs.readSync(5, buf, 0, buf.length, null); } catch (e) { if (e.code === 'EAGAIN' || e.code === 'EINTR') continue; break; }
      if (n === 0) break;
      process.kill(process.pid, 'SIGINT');
    }`, { eval: true });
  watcher.unref();
}

function errorMessage(e) {
  if (e instanceof Error || (e && typeof e === 'object' && 'stack' in e)) {
    const stack = String(e.stack || e);
    // The cell's own frames, not the driver's.
    const lines = stack.split('\n').filter((l, i) => i === 0 || l.includes('<cell-'));
    return { ename: e.name || 'Error', evalue: e.message || '', traceback: lines.join('\n') + '\n' };
  }
  return { ename: 'Error', evalue: show(e), traceback: 'Uncaught ' + show(e) + '\n' };
}

async function execute(id, src) {
  cellNo++;
  const filename = `<cell-${cellNo}>`;
  let status = 'ok';
  let failed = null;
  const done = new Promise((resolve) => { active = (e) => { failed = e; resolve(); }; });
  try {
    let code;
    try {
      code = transform(src);
    } catch (e) {
      if (e instanceof SyntaxError) {
        const where = e.loc ? ` (line ${e.loc.line}, column ${e.loc.column + 1})` : '';
        send({ type: 'error', ename: 'SyntaxError', evalue: e.message, traceback: `SyntaxError: ${e.message.replace(/ \(\d+:\d+\)$/, '')}${where}\n` });
        return 'error';
      }
      throw e;
    }
    const script = new vm.Script(code, { filename });
    const promise = script.runInContext(context, { breakOnSigint: true, displayErrors: false });
    const value = await Promise.race([promise, done.then(() => { throw failed; })]);
    if (value !== undefined) {
      context._ = value;
      const data = bundle(value);
      sync();
      send({ type: 'result', data, sync: true });
    }
  } catch (e) {
    status = (e && e.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') ? 'interrupted' : 'error';
    const m = errorMessage(e);
    if (status === 'interrupted') { m.ename = 'Interrupted'; m.traceback = 'Interrupted: the cell was stopped\n'; }
    send({ type: 'error', ...m });
  } finally {
    active = null;
  }
  return status;
}

const rl = readline.createInterface({ input: fs.createReadStream(null, { fd: IN, autoClose: false }) });
let queue = Promise.resolve();
rl.on('line', (line) => {
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  if (msg.type === 'tool_result') {
    const w = waiting.get(msg.id);
    if (w) {
      waiting.delete(msg.id);
      if (msg.error) w.reject(new ToolError(msg.text || '')); else w.resolve(msg.text || '');
    }
  } else if (msg.type === 'execute') {
    queue = queue.then(async () => {
      const status = await execute(msg.id, msg.code || '');
      sync();
      send({ type: 'done', id: msg.id, status, sync: true });
    });
  }
});
rl.on('close', () => process.exit(0));
send({ type: 'ready', language: 'javascript', version: process.version });
