# gantry's Python kernel: cells in, results out, as JSON lines on the descriptors
# gantry gives it (3: to the kernel, 4: from it), never on stdout. One namespace
# lives from cell to cell. Written for Python 3.8 and later, standard library only.
import ast
import asyncio
import base64
import fcntl
import inspect
import io
import json
import linecache
import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import timeit
import traceback
import types

# The protocol's descriptors move out of the way (a cell that closes 3 or 4 closes
# nothing of ours) and are not inherited by what a cell starts.
_IN = fcntl.fcntl(3, fcntl.F_DUPFD_CLOEXEC, 200)
_OUT = fcntl.fcntl(4, fcntl.F_DUPFD_CLOEXEC, 200)
_CTL = fcntl.fcntl(5, fcntl.F_DUPFD_CLOEXEC, 200)
os.close(3)
os.close(4)
os.close(5)
_in = os.fdopen(_IN, "rb")
_out_lock = threading.Lock()

MAX_TEXT = 1 << 20  # characters of one value shown
SYNC_MARK = b"\x1egantry-sync\x1e"
TABLE_ROWS, TABLE_COLS = 30, 20


def _sync():
    # What the process itself wrote (a subprocess, C code) comes before what is sent
    # next: gantry reads up to this mark on both streams first.
    for fd in (1, 2):
        try:
            os.write(fd, SYNC_MARK)
        except OSError:
            pass


def _send(msg):
    data = (json.dumps(msg) + "\n").encode()
    with _out_lock:
        view = memoryview(data)
        while view:
            n = os.write(_OUT, view)
            view = view[n:]


class _Stream(io.TextIOBase):
    """sys.stdout and sys.stderr: text goes to gantry in order with displays."""

    def __init__(self, name):
        self.name = name
        self._buf = []
        self._size = 0
        self._lock = threading.Lock()

    def writable(self):
        return True

    def write(self, s):
        if not isinstance(s, str):
            raise TypeError("write() argument must be str, not %s" % type(s).__name__)
        with self._lock:
            self._buf.append(s)
            self._size += len(s)
            if self._size >= 8192:
                self._flush_locked()
        return len(s)

    def _flush_locked(self):
        if self._buf:
            text = "".join(self._buf)
            self._buf, self._size = [], 0
            _sync()
            _send({"type": "stream", "name": self.name, "text": text, "sync": True})

    def flush(self):
        with self._lock:
            self._flush_locked()

    def isatty(self):
        return False

    @property
    def encoding(self):
        return "utf-8"


_stdout, _stderr = _Stream("stdout"), _Stream("stderr")
sys.stdout, sys.stderr = _stdout, _stderr


def _flush():
    _stdout.flush()
    _stderr.flush()


# What a cell prints before it starts a program comes before that program's output
# (which reaches gantry on another path): a program's start flushes the streams.
def _flushing(f):
    def wrapper(*args, **kwargs):
        _flush()
        return f(*args, **kwargs)

    wrapper.__wrapped__ = f
    wrapper.__name__ = getattr(f, "__name__", "wrapper")
    wrapper.__doc__ = getattr(f, "__doc__", None)
    return wrapper


os.system = _flushing(os.system)
os.popen = _flushing(os.popen)
subprocess.Popen.__init__ = _flushing(subprocess.Popen.__init__)


# --- what a value looks like ------------------------------------------------------


def _cap(s, n=MAX_TEXT):
    if len(s) > n:
        return s[:n] + "… (%d characters)" % len(s)
    return s


def _cell_text(v):
    s = str(v)
    return s.replace("|", "\\|").replace("\n", " ")


def _frame_markdown(df):
    """A DataFrame as a Markdown table, at most TABLE_ROWS rows and TABLE_COLS columns
    (the first and last ones), saying what was cut."""
    rows, cols = df.shape
    cut_rows = rows > TABLE_ROWS
    cut_cols = cols > TABLE_COLS
    if cut_rows:
        half = TABLE_ROWS // 2
        view = df.iloc[list(range(half)) + list(range(rows - half, rows))]
    else:
        view = df
    col_idx = list(range(cols))
    if cut_cols:
        half = TABLE_COLS // 2
        col_idx = list(range(half)) + list(range(cols - half, cols))
    names = [str(df.columns[i]) for i in col_idx]
    head = [""] + names
    if cut_cols:
        head.insert(TABLE_COLS // 2 + 1, "…")
    lines = ["| " + " | ".join(_cell_text(h) for h in head) + " |", "|" + "---|" * len(head)]
    for k in range(len(view)):
        cells = [_cell_text(view.index[k])] + [_cell_text(view.iat[k, i]) for i in col_idx]
        if cut_cols:
            cells.insert(TABLE_COLS // 2 + 1, "…")
        lines.append("| " + " | ".join(cells) + " |")
        if cut_rows and k == TABLE_ROWS // 2 - 1:
            lines.append("| " + " | ".join(["…"] * len(head)) + " |")
    notes = []
    if cut_rows:
        notes.append("%d of %d rows shown" % (TABLE_ROWS, rows))
    if cut_cols:
        notes.append("%d of %d columns shown" % (TABLE_COLS, cols))
    text = "\n".join(lines)
    text += "\n\n[%d rows × %d columns%s]" % (rows, cols, "; " + ", ".join(notes) if notes else "")
    return text


def _is_frame(v):
    t = type(v)
    return t.__name__ == "DataFrame" and t.__module__.startswith("pandas")


def _is_series(v):
    t = type(v)
    return t.__name__ == "Series" and t.__module__.startswith("pandas")


def _figure_png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode()


def _bundle(v):
    """What gantry shows of a value: text, Markdown, a PNG image."""
    if _is_frame(v):
        return {"text/markdown": _frame_markdown(v)}
    if _is_series(v):
        return {"text/markdown": _frame_markdown(v.to_frame())}
    t = type(v)
    if t.__name__ == "Figure" and t.__module__.startswith("matplotlib"):
        return {"image/png": _figure_png(v)}
    for meth, key in (("_repr_png_", "image/png"), ("_repr_markdown_", "text/markdown")):
        f = getattr(v, meth, None)
        if callable(f):
            try:
                r = f()
            except Exception:
                r = None
            if r:
                if key == "image/png" and isinstance(r, bytes):
                    r = base64.b64encode(r).decode()
                return {key: r}
    try:
        text = repr(v)
    except Exception as e:  # a repr that fails is said, not raised
        text = "<repr failed: %s: %s>" % (type(e).__name__, e)
    return {"text/plain": _cap(text)}


def display(*objs):
    """Show each object as the cell's output (a table, an image, text)."""
    _flush()
    for o in objs:
        data = _bundle(o)
        _sync()
        _send({"type": "display", "data": data, "sync": True})


def _flush_figures():
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return
    for num in plt.get_fignums():
        fig = plt.figure(num)
        png = _figure_png(fig)
        _sync()
        _send({"type": "display", "data": {"image/png": png}, "sync": True})
    plt.close("all")


# --- gantry's tools, from a cell ----------------------------------------------------


class ToolError(Exception):
    """A tool call gantry refused or that failed; its message is the tool's sentence."""


_tool_seq = [0]


def tool(name, args=None, **kwargs):
    """Call one of gantry's tools, with the same permissions as the model's calls.
    Returns the tool's text; raises ToolError when it fails or is refused."""
    a = dict(args or {})
    a.update(kwargs)
    _flush()
    _tool_seq[0] += 1
    tid = _tool_seq[0]
    _send({"type": "tool_call", "id": tid, "name": name, "args": a})
    while True:
        line = _in.readline()
        if not line:
            raise SystemExit(0)  # gantry is gone
        msg = json.loads(line)
        if msg.get("type") == "tool_result" and msg.get("id") == tid:
            break
    if msg.get("error"):
        raise ToolError(msg.get("text", ""))
    return msg.get("text", "")


# --- IPython idioms -----------------------------------------------------------------


def _sh(cmd, capture=False):
    p = subprocess.run(cmd, shell=True, executable="/bin/bash", stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = p.stdout.decode(errors="replace")
    if capture:
        return out.splitlines()
    sys.stdout.write(out)
    if p.returncode != 0:
        sys.stdout.write("[exit status %d]\n" % p.returncode)


def _dists():
    try:
        import importlib.metadata as md
    except ImportError:
        return {}
    out = {}
    for d in md.distributions():
        try:
            out[d.metadata["Name"].lower().replace("_", "-")] = (d.version, d)
        except Exception:
            pass
    return out


def _top_modules(dist):
    names = set()
    try:
        top = dist.read_text("top_level.txt") or ""
        names.update(t.strip() for t in top.split() if t.strip())
    except Exception:
        pass
    for f in dist.files or []:
        first = str(f).split("/")[0]
        if first.endswith(".py"):
            names.add(first[:-3])
        elif first and not first.endswith((".dist-info", ".egg-info", ".pth", ".data")) and first not in ("..", "__pycache__", "bin"):
            names.add(first)
    return names


def _pip(args):
    argv = shlex.split(args)
    changes = argv and argv[0] in ("install", "uninstall")
    before = _dists() if changes else {}
    p = subprocess.run([sys.executable, "-m", "pip"] + argv, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    sys.stdout.write(p.stdout.decode(errors="replace"))
    if changes:
        # The next import sees what was installed: the modules of every package pip
        # added, changed or removed are dropped from sys.modules, submodules too.
        after = _dists()
        names = set()
        for name in set(before) | set(after):
            b, a = before.get(name), after.get(name)
            if b is None or a is None or b[0] != a[0]:
                names |= _top_modules((a or b)[1])
                names.add(name.replace("-", "_"))
        for mod in list(sys.modules):
            if mod.split(".")[0] in names:
                del sys.modules[mod]
        import importlib

        importlib.invalidate_caches()
    if p.returncode != 0:
        sys.stdout.write("[pip exited with status %d]\n" % p.returncode)


def _cd(path):
    os.chdir(os.path.expanduser(path.strip() or "~"))
    print(os.getcwd())


def _timeit(code, ns):
    t = timeit.Timer(code, globals=ns)
    n, _ = t.autorange()
    best = min(t.repeat(repeat=5, number=n)) / n
    for unit, scale in (("s", 1), ("ms", 1e3), ("µs", 1e6), ("ns", 1e9)):
        if best * scale >= 1 or unit == "ns":
            print("%d loops, best of 5: %.3g %s per loop" % (n, best * scale, unit))
            break


_assign_bang = re.compile(r"^(\s*)([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*)\s*=\s*!(.*)$")


def rewrite(src):
    """IPython's idioms as plain Python: %%bash and %%timeit cells; %pip, %cd,
    %timeit, !cmd and x = !cmd lines."""
    stripped = src.lstrip("\n")
    first, _, rest = stripped.partition("\n")
    if first.strip() == "%%bash" or first.strip().startswith("%%bash "):
        return "_gantry_sh(%r)\n" % rest
    if first.strip() == "%%timeit":
        return "_gantry_timeit(%r, globals())\n" % rest
    out = []
    for line in src.split("\n"):
        s = line.lstrip()
        indent = line[: len(line) - len(s)]
        m = _assign_bang.match(line)
        if m:
            out.append("%s%s = _gantry_sh(%r, capture=True)" % (m.group(1), m.group(2), m.group(3)))
        elif s.startswith("!"):
            out.append("%s_gantry_sh(%r)" % (indent, s[1:]))
        elif s.startswith("%pip ") or s == "%pip" or s.startswith("!pip "):
            out.append("%s_gantry_pip(%r)" % (indent, s.split(None, 1)[1] if " " in s else ""))
        elif s.startswith("%cd") and (len(s) == 3 or s[3] == " "):
            out.append("%s_gantry_cd(%r)" % (indent, s[3:]))
        elif s.startswith("%timeit "):
            out.append("%s_gantry_timeit(%r, globals())" % (indent, s[len("%timeit "):]))
        elif s.startswith("%matplotlib"):
            out.append(indent + "pass")  # figures come back as images in any case
        else:
            out.append(line)
    return "\n".join(out)


# --- running a cell -----------------------------------------------------------------

_ns = {"__name__": "__main__", "__builtins__": __builtins__, "display": display, "tool": tool,
       "ToolError": ToolError, "_gantry_sh": _sh, "_gantry_pip": _pip, "_gantry_cd": _cd,
       "_gantry_timeit": _timeit}
_loop = asyncio.new_event_loop()
_running = [False]
_cell_no = [0]


def _on_sigint(signum, frame):
    if _running[0]:
        raise KeyboardInterrupt()
    # Between cells an interrupt changes nothing.


signal.signal(signal.SIGINT, _on_sigint)


def _watch_control():
    # Each byte on the control descriptor interrupts the running cell: SIGINT to the
    # main thread, sent from inside, so that it reaches the interpreter in a sandbox
    # too and breaks a blocking call (sleep, a wait) as a terminal's ^C would.
    main_id = threading.main_thread().ident
    while True:
        try:
            data = os.read(_CTL, 64)
        except InterruptedError:
            continue
        except OSError:
            return
        if not data:
            return
        if _running[0]:
            signal.pthread_kill(main_id, signal.SIGINT)


threading.Thread(target=_watch_control, name="gantry-control", daemon=True).start()


def _run(code, filename):
    v = eval(code, _ns)
    if inspect.iscoroutine(v) or (isinstance(v, types.CoroutineType)):
        v = _loop.run_until_complete(v)
    return v


def _traceback(e, tb):
    frames = [f for f in traceback.extract_tb(tb) if f.filename.startswith("<cell-")]
    lines = []
    if frames:
        lines.append("Traceback (most recent call last):\n")
        lines.extend(traceback.format_list(frames))
    lines.extend(traceback.format_exception_only(type(e), e))
    return "".join(lines)


def execute(src):
    _cell_no[0] += 1
    filename = "<cell-%d>" % _cell_no[0]
    code_src = rewrite(src)
    linecache.cache[filename] = (len(code_src), None, code_src.splitlines(True), filename)
    flags = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
    status = "ok"
    try:
        tree = ast.parse(code_src, filename)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not code_src.rstrip().endswith(";"):
            last = ast.Expression(tree.body.pop().value)
        _running[0] = True
        try:
            if tree.body:
                _run(compile(tree, filename, "exec", flags=flags), filename)
            value = None
            if last is not None:
                value = _run(compile(last, filename, "eval", flags=flags), filename)
        finally:
            _running[0] = False
        _flush()
        if value is not None:
            _ns["_"] = value
            data = _bundle(value)
            _sync()
            _send({"type": "result", "data": data, "sync": True})
    except KeyboardInterrupt as e:
        _running[0] = False
        _flush()
        status = "interrupted"
        _send({"type": "error", "ename": "KeyboardInterrupt", "evalue": "", "traceback": _traceback(e, e.__traceback__)})
    except SystemExit as e:
        _running[0] = False
        _flush()
        status = "error"
        _send({"type": "error", "ename": "SystemExit", "evalue": str(e.code),
               "traceback": "SystemExit: %s (the kernel keeps running)\n" % e.code})
    except BaseException as e:
        _running[0] = False
        _flush()
        status = "error"
        tb = e.__traceback__ if not isinstance(e, SyntaxError) else None
        _send({"type": "error", "ename": type(e).__name__, "evalue": str(e), "traceback": _traceback(e, tb)})
    try:
        _flush_figures()
    except Exception as e:
        _send({"type": "error", "ename": type(e).__name__, "evalue": str(e), "traceback": "the figures could not be drawn: %s\n" % e})
    _flush()
    return status


def main():
    _send({"type": "ready", "language": "python", "version": sys.version.split()[0]})
    while True:
        line = _in.readline()
        if not line:
            return
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if msg.get("type") == "execute":
            status = execute(msg.get("code", ""))
            _sync()
            _send({"type": "done", "id": msg.get("id"), "status": status, "sync": True})


main()
