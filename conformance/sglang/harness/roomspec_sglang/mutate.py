"""python3 -m roomspec_sglang.mutate COMMAND ...: mutants of SGLang's room
lifecycle functions (LIFECYCLE_FUNCTIONS), for `roomspec mutate`.

  list  --sglang ROOT [--coverage FILE] [--env-keys K,...] [--all]
        one JSON line per mutant of the lifecycle files under ROOT: its id,
        file, line, function, operator, what it changes and its diff. With
        --coverage (what `serve` wrote), only mutants on lines the suite
        ran are listed (--all: every one, each marked with whether it ran);
        a last line {"not_reached": N} counts those left out.
  apply --sglang ROOT --id ID --out DIR
        writes the mutated file of mutant ID under DIR, a copy of ROOT.
  serve --coverage FILE -- HARNESS-ARGUMENTS...
        runs the harness (python3 -m roomspec_sglang HARNESS-ARGUMENTS)
        while recording which lines of the lifecycle files run, in every
        thread; writes them to FILE as JSON when the harness ends.

Mutants are made with Python's ast and written as a splice of the source
text (the rest of the file stays byte for byte), each checked to parse
and to differ from the original. The operators:

  delete-stmt   a statement replaced by `pass`
  delete-call   a call statement replaced by `pass`
  swap-kvpoll   KVPoll.X replaced by each other KVPoll member
  negate-cond   the test of an if, elif, while, conditional expression or
                comprehension negated
  drop-cond     the test of an if or elif replaced by True; one operand of
                an `and`/`or` test dropped
  change-number an int constant n replaced by n+1, a float x by 2x; in
                environ.py, the default of a variable the lifecycle reads
                (LIFECYCLE_ENV; a bool default flipped)
  change-bytes  a bytes constant changed (its last byte, or b"" -> b"x")
  narrow-slice  a[i:j] replaced by a[i+1:j] and a[i:j-1]

Logging calls and what is inside them, docstrings and f-strings are not
mutated: the spec observes none of them.
"""

import argparse
import ast
import difflib
import json
import os
import re
import sys
import threading
from collections import defaultdict

# The lifecycle files, relative to ROOT (a folder holding sglang/srt).
LIFECYCLE = (
    "sglang/srt/disaggregation/prefill.py",
    "sglang/srt/disaggregation/nixl/conn.py",
    "sglang/srt/disaggregation/mooncake/conn.py",
    "sglang/srt/disaggregation/common/conn.py",
)
# The backends' files: a campaign mutates the one its harness loaded (the
# file of the other backend has no line covered, and is left out whole).
BACKEND_FILES = ("sglang/srt/disaggregation/nixl/conn.py",
                 "sglang/srt/disaggregation/mooncake/conn.py")
ENVIRON = "sglang/srt/environ.py"

# The room lifecycle's functions in those files: what Room.tla models (the
# rooms' statuses, transfer_infos, the chunk count and ACK targets, the
# scheduler's queues, the bootstrap thread's messages, the transfer
# worker's steps, the sender's poll, clear and failure). Setup and data
# movement (constructors of the managers, registration, buffers, page and
# address arithmetic) are not: the spec says nothing of them. A name a
# commit does not have is skipped.
LIFECYCLE_FUNCTIONS = frozenset({
    # prefill.py: the scheduler's side
    "PrefillBootstrapQueue.add",
    "PrefillBootstrapQueue.create_sender",
    "PrefillBootstrapQueue.pop_bootstrapped",
    "PrefillBootstrapQueue.finalize_bootstrap",
    "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue",
    "SchedulerDisaggregationPrefillMixin.send_kv_chunk",
    "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure",
    "SchedulerDisaggregationPrefillMixin.handle_inflight_transfer_failure",
    # nixl/conn.py: the manager's threads and the sender
    "NixlKVManager.transfer_worker",
    "NixlKVManager.add_transfer_request",
    "NixlKVManager.update_status",
    "NixlKVManager.check_status",
    "NixlKVManager._handle_abort_notification",
    "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread",
    "NixlKVSender.__init__",
    "NixlKVSender.send",
    "NixlKVSender.poll",
    "NixlKVSender.clear",
    "NixlKVSender.failure_exception",
    # common/conn.py: what NIXL inherits
    "CommonKVManager.update_status",
    "CommonKVManager.check_status",
    "CommonKVManager.record_failure",
    "CommonKVManager._send_abort_ack",
    "CommonKVManager._maybe_ack_drained_abort",
    "CommonKVManager.register_deferred_ack_target",
    "CommonKVSender.__init__",
    "CommonKVSender.should_send_kv_chunk",
    "CommonKVSender._check_bootstrap_timeout",
    "CommonKVSender.poll",
    "CommonKVSender.failure_exception",
    "CommonKVSender.clear",
    "CommonKVSender.abort",
    # mooncake/conn.py (roomspec test -backend mooncake)
    "MooncakeKVManager.transfer_worker",
    "MooncakeKVManager.add_transfer_request",
    "MooncakeKVManager.start_prefill_thread.<locals>.bootstrap_thread",
    "MooncakeKVManager.start_decode_thread.<locals>.decode_thread",
    "MooncakeKVSender.__init__",
    "MooncakeKVSender.send",
    "MooncakeKVSender.poll",
    "MooncakeKVSender.failure_exception",
})

# The variables of environ.py whose defaults the lifecycle reads: the
# bootstrap timeout, the deferred release, the worker queues, staging.
LIFECYCLE_ENV = frozenset({
    "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT",
    "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE",
    "SGLANG_DISAGGREGATION_QUEUE_SIZE",
    "SGLANG_DISAGGREGATION_THREAD_POOL_SIZE",
    "SGLANG_DISAGG_STAGING_BUFFER",
})

KVPOLL = ("Failed", "Bootstrapping", "WaitingForInput", "Transferring", "Success")
LOG_METHODS = {"debug", "info", "warning", "warning_once", "error", "exception",
               "critical", "log", "info_once", "debug_once"}
LOG_OBJECTS = {"logger", "logging", "log", "_logger", "LOGGER"}
ENV_TYPES = {"EnvInt", "EnvFloat", "EnvBool", "EnvIntWithAlias", "EnvBoolWithAlias"}


class Mutation:
    """One edit of the source: the bytes from (line, col) to (end_line,
    end_col) (1-based lines, byte columns, as ast gives them) replaced by
    text."""

    def __init__(self, op, stmt, node, text, what, start=None, end=None):
        self.op = op
        self.line = stmt.lineno  # the statement's line: coverage's unit
        self.start = start or (node.lineno, node.col_offset)
        self.end = end or (node.end_lineno, node.end_col_offset)
        self.text = text
        self.what = what
        self.function = None


def _is_log_call(node):
    if not isinstance(node, ast.Call):
        return False
    f = node.func
    if isinstance(f, ast.Name):
        return f.id == "print"
    if isinstance(f, ast.Attribute) and f.attr in LOG_METHODS:
        v = f.value
        name = v.id if isinstance(v, ast.Name) else getattr(v, "attr", "")
        return name in LOG_OBJECTS
    return False


class Source:
    """A file's text as lines of bytes, for segments and splices."""

    def __init__(self, text):
        self.text = text
        self.lines = text.encode("utf-8").splitlines(keepends=True)

    def segment(self, start, end):
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.lines[l1 - 1][c1:c2].decode("utf-8")
        parts = [self.lines[l1 - 1][c1:]] + self.lines[l1:l2 - 1] + [self.lines[l2 - 1][:c2]]
        return b"".join(parts).decode("utf-8")

    def seg(self, node):
        return self.segment((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset))

    def splice(self, m):
        (l1, c1), (l2, c2) = m.start, m.end
        before = b"".join(self.lines[:l1 - 1]) + self.lines[l1 - 1][:c1]
        after = self.lines[l2 - 1][c2:] + b"".join(self.lines[l2:])
        return (before + m.text.encode("utf-8") + after).decode("utf-8")


class Finder:
    """Walks a module and collects the candidate mutations of its
    functions' bodies, in a fixed order (the ids depend on it)."""

    def __init__(self, src, env_keys=None):
        self.src = src
        self.env_keys = env_keys
        self.out = []

    # ---- traversal -----------------------------------------------------------

    def module(self, tree):
        self._scope(tree.body, [])

    def _scope(self, body, names):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(node, names + [node.name])
            elif isinstance(node, ast.ClassDef):
                if self.env_keys is not None:
                    self._env_class(node, names + [node.name])
                self._scope(node.body, names + [node.name])

    def _function(self, fn, names):
        qual = ".".join(names)
        for stmt in fn.body:
            self._stmt(stmt, qual, names)

    def _stmts(self, body, qual, names):
        for stmt in body:
            self._stmt(stmt, qual, names)

    def _add(self, m, qual):
        m.function = qual
        self.out.append(m)

    def _stmt(self, s, qual, names):
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._function(s, names + ["<locals>", s.name])
            return
        if isinstance(s, ast.ClassDef):
            self._scope(s.body, names + ["<locals>", s.name])
            return
        if isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant) or _is_log_call(s.value):
                return  # docstrings, logging
            if isinstance(s.value, ast.Call):
                self._add(Mutation("delete-call", s, s, "pass", f"delete the call {self._short(s)}"), qual)
        elif isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Raise,
                            ast.Assert, ast.Delete, ast.Break, ast.Continue)):
            if not (isinstance(s, ast.AnnAssign) and s.value is None):
                self._add(Mutation("delete-stmt", s, s, "pass", f"delete {self._short(s)}"), qual)
        if isinstance(s, (ast.If, ast.While)):
            self._cond(s, s.test, qual, drop=isinstance(s, ast.If))
        # The statement's own expressions (not those of nested statements).
        for field, value in ast.iter_fields(s):
            if field in ("body", "orelse", "finalbody", "handlers"):
                continue
            for node in value if isinstance(value, list) else [value]:
                if isinstance(node, ast.AST):
                    self._expr(node, s, qual)
        for field in ("body", "orelse", "finalbody"):
            self._stmts(getattr(s, field, []) or [], qual, names)
        for h in getattr(s, "handlers", []) or []:
            self._stmts(h.body, qual, names)
        if isinstance(s, ast.Match):
            for case in s.cases:
                self._stmts(case.body, qual, names)

    def _short(self, node):
        text = " ".join(self.src.seg(node).split())
        return text if len(text) <= 60 else text[:57] + "..."

    # ---- expressions ---------------------------------------------------------

    def _expr(self, node, stmt, qual):
        if _is_log_call(node) or isinstance(node, ast.JoinedStr) or isinstance(node, ast.Lambda):
            return
        if isinstance(node, ast.Attribute) and node.attr in KVPOLL and self._is_kvpoll(node.value):
            base = self.src.seg(node.value)
            for other in KVPOLL:
                if other != node.attr:
                    self._add(Mutation("swap-kvpoll", stmt, node, f"{base}.{other}",
                                       f"KVPoll.{node.attr} -> KVPoll.{other}"), qual)
            return
        if isinstance(node, ast.Constant):
            self._constant(node, stmt, qual)
            return
        if isinstance(node, ast.IfExp):
            self._cond(stmt, node.test, qual, drop=False)
        if isinstance(node, ast.comprehension):
            for t in node.ifs:
                self._cond(stmt, t, qual, drop=False)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
            self._slice(node.slice, stmt, qual)
        for child in ast.iter_child_nodes(node):
            self._expr(child, stmt, qual)

    @staticmethod
    def _is_kvpoll(v):
        return (isinstance(v, ast.Name) and v.id == "KVPoll") or (
            isinstance(v, ast.Attribute) and v.attr == "KVPoll")

    def _constant(self, node, stmt, qual):
        v = node.value
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, int):
            self._add(Mutation("change-number", stmt, node, repr(v + 1), f"{v} -> {v + 1}"), qual)
        elif isinstance(v, float):
            self._add(Mutation("change-number", stmt, node, repr(v * 2), f"{v} -> {v * 2}"), qual)
        elif isinstance(v, bytes):
            new = b"x" if not v else v[:-1] + (b"x" if v[-1:] != b"x" else b"y")
            self._add(Mutation("change-bytes", stmt, node, repr(new), f"{v!r} -> {new!r}"), qual)

    def _cond(self, stmt, test, qual, drop):
        seg = self.src.seg(test)
        self._add(Mutation("negate-cond", stmt, test, f"not ({seg})", f"negate `{self._short(test)}`"), qual)
        if not drop:
            return
        if isinstance(test, ast.BoolOp):
            op = " and " if isinstance(test.op, ast.And) else " or "
            for i, v in enumerate(test.values):
                rest = [f"({self.src.seg(o)})" for j, o in enumerate(test.values) if j != i]
                self._add(Mutation("drop-cond", stmt, test, op.join(rest),
                                   f"drop `{self._short(v)}` from the test"), qual)
        elif not (isinstance(test, ast.Constant) and test.value is True):
            self._add(Mutation("drop-cond", stmt, test, "True",
                               f"`{self._short(test)}` always true"), qual)

    def _slice(self, sl, stmt, qual):
        if sl.step is not None:
            return
        if sl.lower is not None:
            self._add(Mutation("narrow-slice", stmt, sl.lower, f"({self.src.seg(sl.lower)}) + 1",
                               f"slice start {self._short(sl.lower)} + 1"), qual)
        else:
            self._add(Mutation("narrow-slice", stmt, sl, "1", "slice start 0 -> 1",
                               start=(sl.lineno, sl.col_offset), end=(sl.lineno, sl.col_offset)), qual)
        if sl.upper is not None:
            self._add(Mutation("narrow-slice", stmt, sl.upper, f"({self.src.seg(sl.upper)}) - 1",
                               f"slice end {self._short(sl.upper)} - 1"), qual)
        else:
            self._add(Mutation("narrow-slice", stmt, sl, "-1", "slice end -> -1",
                               start=(sl.end_lineno, sl.end_col_offset), end=(sl.end_lineno, sl.end_col_offset)), qual)

    # ---- environ.py ----------------------------------------------------------

    def _env_class(self, cls, names):
        """The defaults of the variables the lifecycle code reads."""
        qual = ".".join(names)
        for s in cls.body:
            if not (isinstance(s, ast.Assign) and len(s.targets) == 1
                    and isinstance(s.targets[0], ast.Name) and s.targets[0].id in self.env_keys):
                continue
            call = s.value
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id in ENV_TYPES and call.args
                    and isinstance(call.args[0], ast.Constant)):
                continue
            c = call.args[0]
            key = s.targets[0].id
            if isinstance(c.value, bool):
                self._add(Mutation("change-number", s, c, repr(not c.value),
                                   f"{key} default {c.value} -> {not c.value}"), qual)
            elif isinstance(c.value, (int, float)):
                new = c.value + 1 if isinstance(c.value, int) else c.value * 2
                self._add(Mutation("change-number", s, c, repr(new),
                                   f"{key} default {c.value} -> {new}"), qual)


def mutants_of(root, rel, env_keys=None):
    """The mutations of file rel under root, in id order, each with its
    mutated text (None where it does not parse or changes nothing)."""
    path = os.path.join(root, rel)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    src = Source(text)
    tree = ast.parse(text, filename=path)
    finder = Finder(src, (env_keys or set()) & LIFECYCLE_ENV)
    if rel == ENVIRON:
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                finder._env_class(node, [node.name])
        return src, tree, finder.out
    finder.env_keys = None
    finder.module(tree)
    return src, tree, [m for m in finder.out if m.function in LIFECYCLE_FUNCTIONS]


def _checked(src, m):
    """The mutated text, if it parses. A splice never gives the same
    text back, and no operator rewrites a node into an equal one (a test
    that is the constant True is not "dropped" to True), so a mutant that
    parses is another program."""
    new = src.splice(m)
    try:
        compile(new, "<mutant>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError:
        return None
    return new


def _diff(src, new, rel, m):
    """The unified diff of the mutant, computed on the lines around the
    splice only (a whole-file diff per mutant is slow)."""
    old_lines = src.text.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    ws = max(0, m.start[0] - 1 - 2)
    we = min(len(old_lines), m.end[0] + 2)
    grown = len(new_lines) - len(old_lines)
    out = []
    for line in difflib.unified_diff(old_lines[ws:we], new_lines[ws:we + grown], "a/" + rel, "b/" + rel, n=2):
        if line.startswith("@@"):
            h = re.match(r"@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@(.*)", line, re.S)
            line = f"@@ -{int(h[1]) + ws}{h[2] or ''} +{int(h[3]) + ws}{h[4] or ''} @@{h[5]}"
        out.append(line)
    return "".join(out)


def _files(env_keys):
    return LIFECYCLE + ((ENVIRON,) if env_keys else ())


def cmd_list(args):
    covered = None
    if args.coverage:
        with open(args.coverage) as f:
            covered = {k: set(v) for k, v in json.load(f).items()}
    env_keys = set(filter(None, (args.env_keys or "").split(",")))
    not_reached = 0
    for rel in _files(env_keys):
        if not os.path.isfile(os.path.join(args.sglang, rel)):
            continue
        if covered is not None and rel in BACKEND_FILES and not covered.get(rel):
            continue  # the other backend's file: the harness never loaded it
        src, tree, muts = mutants_of(args.sglang, rel, env_keys)
        for i, m in enumerate(muts):
            ran = covered is None or m.line in covered.get(rel, ())
            if not ran and not args.all:
                not_reached += 1
                continue
            new = _checked(src, m)
            if new is None:
                continue
            print(json.dumps({"id": f"{rel}:{i}", "file": rel, "line": m.line, "function": m.function,
                              "operator": m.op, "what": m.what, "ran": ran,
                              "diff": _diff(src, new, rel, m)}), flush=True)
    # The mutations on lines the suite never ran, not made (nor checked
    # to parse): how much of the lifecycle code the suite does not reach.
    print(json.dumps({"not_reached": not_reached}), flush=True)
    return 0


def cmd_apply(args):
    rel, _, index = args.id.rpartition(":")
    if rel not in LIFECYCLE + (ENVIRON,) or not index.isdigit():
        print(f"roomspec_sglang.mutate: no mutant {args.id!r}", file=sys.stderr)
        return 2
    env_keys = set(filter(None, (args.env_keys or "").split(",")))
    src, tree, muts = mutants_of(args.sglang, rel, env_keys)
    i = int(index)
    new = _checked(src, muts[i]) if i < len(muts) else None
    if new is None:
        print(f"roomspec_sglang.mutate: no mutant {args.id!r} in {args.sglang}", file=sys.stderr)
        return 2
    out = os.path.join(args.out, rel)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    tmp = out + ".mutant"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(new)
    os.replace(tmp, out)
    return 0


def cmd_serve(args):
    root = None
    rest = args.harness
    if rest and rest[0] == "--":
        rest = rest[1:]
    for i, a in enumerate(rest):
        if a == "--sglang" and i + 1 < len(rest):
            root = os.path.realpath(rest[i + 1])
    if root is None:
        print("roomspec_sglang.mutate serve: the harness's arguments have no --sglang ROOT", file=sys.stderr)
        return 2
    files = {os.path.join(root, rel): rel for rel in LIFECYCLE + (ENVIRON,)}
    hits = defaultdict(set)

    def local(frame, event, arg):
        if event == "line":
            hits[frame.f_code.co_filename].add(frame.f_lineno)
        return local

    def on_call(frame, event, arg):
        name = frame.f_code.co_filename
        if name in files:
            hits[name].add(frame.f_lineno)
            return local
        return None

    threading.settrace(on_call)
    sys.settrace(on_call)
    from .__main__ import main

    try:
        code = main(rest)
    finally:
        sys.settrace(None)
        threading.settrace(None)
        out = {files[k]: sorted(v) for k, v in list(hits.items()) if k in files}
        tmp = args.coverage + ".tmp"
        with open(tmp, "w") as f:
            json.dump(out, f)
        os.replace(tmp, args.coverage)
    return code


def main(argv=None):
    ap = argparse.ArgumentParser(prog="roomspec_sglang.mutate", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("list")
    p.add_argument("--sglang", required=True)
    p.add_argument("--coverage")
    p.add_argument("--env-keys")
    p.add_argument("--all", action="store_true")
    p = sub.add_parser("apply")
    p.add_argument("--sglang", required=True)
    p.add_argument("--id", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--env-keys")
    p = sub.add_parser("serve")
    p.add_argument("--coverage", required=True)
    p.add_argument("harness", nargs=argparse.REMAINDER)
    args = ap.parse_args(argv)
    return {"list": cmd_list, "apply": cmd_apply, "serve": cmd_serve}[args.cmd](args)


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # The harness's threads (serve) are not daemons: leave without waiting.
    os._exit(code)
