"""roomspec's prefill event log (traces/eventlog), written from a running
SGLang prefill without editing SGLang: one file, standard library only.

Turn it on (SGLang unchanged, NIXL or Mooncake backend):

    python -m roomspec_instrument --log /var/log/sglang/roomspec-events.jsonl \\
        -- python -m sglang.launch_server --disaggregation-mode prefill ...

Install it with pip (`pip install ./traces/instrument`: the module and
nothing else), or copy this one file anywhere and run it as a script:

    python /path/to/roomspec_instrument.py --log FILE -- python -m sglang.launch_server ...

The launcher sets ROOMSPEC_EVENT_LOG=FILE and puts a directory holding a
two-line sitecustomize.py in front of PYTHONPATH, then execs the command.
Every Python process started from it, the scheduler processes that
SGLang starts with multiprocessing's spawn included, inherits both: at
start-up the sitecustomize loads this file and, with ROOMSPEC_EVENT_LOG
set, waits for SGLang's disaggregation modules to be imported; once
prefill.py, common/utils.py and the backend's conn.py (nixl/ or
mooncake/) are, it wraps their methods (instrument_sglang) before any KV
manager is built. Only a KV manager in
prefill mode writes lines: the processes of decode, the tokenizer and
the detokenizer write nothing and never open the file. A sitecustomize
the directory hides (Debian's, a virtualenv's) still runs, after it.

Every rank of a node appends to the same file (O_APPEND, one write per
line), each line carrying its rank (the KV manager's engine rank) and the
host (ROOMSPEC_EVENT_HOST, else the host name). A process that cannot
write the log says so once on stderr and goes on unlogged; a commit whose
classes lack a method the instrumentation wraps is left untouched, with
one line on stderr. SGLang's code runs as it would without it: every
wrapper calls the wrapped method with the same arguments, returns what it
returns and lets its exceptions through.

As a library (roomspec's harness and scenario scripts):

    import roomspec_instrument as ri
    log = ri.EventLog(open("prefill.events.jsonl", "a"), host="p0", role="prefill", rank=0)
    undo = ri.instrument_sglang(prefill, nixl_conn, common_utils, log)  # or mooncake_conn

before the prefill's KV manager is built (its worker threads start in its
constructor). roomspec's Python emulator (conformance/python/prefill.py)
has its own shape: ri.instrument(prefill_module, log).

The events (one JSON object per line):

  sender_create  the request's sender is built, then the status change it made
  status         request_status[room] changed: from, to ("Absent" for none);
                 not written for clear(), which the clear event implies
  poll           the scheduler's poll of a sender: status (what the poll
                 returned), queue ("bootstrap" or "inflight"); a poll that
                 saw what the previous poll of the same request saw is not
                 repeated (a reused room id has a request per incarnation)
  clear          the sender's clear()
  chunk_enqueue  add_transfer_request enqueued chunks: chunk (count)
  chunk_skip     the worker dropped a chunk without writing: chunk, reason
                 ("Failed": the room was Failed; "no transfer_infos": the
                 worker's assertion failed)

Every event carries ts (RFC 3339, nanoseconds, UTC), host, role, rank,
thread (threading.current_thread().name) and room.

The log's line order is the order of the operations it records: each
logged operation (a status update, a poll, a clear, a sender's creation, an
enqueue) runs with its log line under one lock, so another thread cannot
slip a change between an operation and its line. That makes each of these
operations atomic with respect to the others (under CPython's GIL they
nearly are already); the check-then-act sequences that span several
operations, where the lifecycle's races live, are untouched.
"""

import functools
import inspect
import json
import os
import socket
import stat
import sys
import tempfile
import threading
import time
import weakref

__version__ = "0.1.0"

ENV_LOG = "ROOMSPEC_EVENT_LOG"
ENV_HOST = "ROOMSPEC_EVENT_HOST"

KVPOLL_NAMES = {0: "Failed", 1: "Bootstrapping", 2: "WaitingForInput", 3: "Transferring", 4: "Success"}


def status_name(v):
    if v is None:
        return "Absent"
    return KVPOLL_NAMES.get(int(v), str(v))


def rfc3339_ns(ns):
    secs, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%09dZ" % frac


def _warn(msg):
    try:
        sys.stderr.write("roomspec_instrument: %s\n" % msg)
        sys.stderr.flush()
    except Exception:
        pass


class EventLog:
    """A JSON-lines event log: a file object (one write and flush per line)
    or a path (opened at the first line, O_APPEND, one os.write per line,
    so that the ranks of a node can share it). Writing never raises: a log
    that cannot be written says so once on stderr and drops its lines."""

    def __init__(self, f, host="", role="prefill", rank=0, clock=time.time_ns):
        self.f = None if isinstance(f, str) else f
        self.path = f if isinstance(f, str) else None
        self.fd = None
        self.host, self.role, self.rank = host, role, rank
        self.clock = clock
        self.lock = threading.Lock()
        self.broken = False
        self._secs, self._secs_text = None, ""

    def emit(self, event, room, at=None, **fields):
        """Write the event's line; at is its time (clock()'s, taken before
        the operation it records), now if None."""
        if self.broken:
            return
        try:
            line = self._line(event, room, fields, at)
            with self.lock:
                if self.f is not None:
                    self.f.write(line)
                    self.f.flush()
                    return
                if self.fd is None:
                    self.fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0),
                                      0o644)
                data = line.encode()
                while data:
                    data = data[os.write(self.fd, data):]
        except Exception as e:  # the log never breaks the prefill
            self.broken = True
            _warn("event log %s: %s; no more events are written" % (self.path or self.f, e))

    def _line(self, event, room, fields, at=None):
        """The JSON line, as json.dumps would write it (compact), without
        its cost per line: the few strings a log repeats are encoded once,
        and the timestamp's seconds once a second."""
        ns = self.clock() if at is None else at
        secs, frac = divmod(ns, 1_000_000_000)
        if secs != self._secs:
            self._secs, self._secs_text = secs, time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs))
        parts = ['{"ts":"%s.%09dZ","host":%s,"role":%s,"rank":%d,"thread":%s,"event":%s,"room":%d' % (
            self._secs_text, frac, _js(self.host), _js(self.role), self.rank, _js(threading.current_thread().name),
            _js(event), room)]
        for k, v in fields.items():
            if type(v) is int:
                parts.append(',%s:%d' % (_js(k), v))
            elif type(v) is str:
                parts.append(',%s:%s' % (_js(k), _js(v)))
            else:
                parts.append(',%s:%s' % (_js(k), json.dumps(v, separators=(",", ":"))))
        parts.append("}\n")
        return "".join(parts)


@functools.lru_cache(maxsize=4096)
def _js(text):
    """text as a JSON string."""
    return json.dumps(text)


class InstrumentError(Exception):
    """The module does not have a method the instrumentation wraps; nothing
    was patched."""


class _Patcher:
    """Patches methods all or nothing: every target is checked before the
    first is replaced, so a module of another shape is left untouched."""

    def __init__(self):
        self.plan = []
        self.saved = []

    def add(self, cls, name, make):
        self.plan.append((cls, name, make))

    def apply(self):
        missing = [f"{getattr(c, '__name__', c)}.{n}" for c, n, _ in self.plan if not hasattr(c, n)]
        if missing:
            raise InstrumentError("cannot instrument: no " + ", ".join(missing))
        for cls, name, make in self.plan:
            orig = cls.__dict__.get(name, getattr(cls, name))
            self.saved.append((cls, name, orig, name in cls.__dict__))
            fn = orig.__func__ if isinstance(orig, (staticmethod, classmethod)) else orig
            setattr(cls, name, functools.wraps(fn)(make(fn)))
        return self.undo

    def undo(self):
        for cls, name, orig, own in reversed(self.saved):
            if own:
                setattr(cls, name, orig)
            else:
                delattr(cls, name)
        self.saved.clear()


class _Recorder:
    """What both instrumentations share: status changes, sender creation
    (its own status change logged with it), polls as the scheduler makes
    them, clear()."""

    def __init__(self, log, keep=None):
        self.log = log
        # keep(manager): whether that KV manager's events are logged
        self.keep = keep or (lambda mgr: True)
        self.lock = threading.RLock()  # an operation and its line, together
        self.local = threading.local()  # quiet, queue, worker bookkeeping
        self.last_poll = {}  # (room, sender id) -> (queue, status)

    def update_status(self, orig, status_dict):
        rec = self
        # update_status(room, status), whatever the parameter names
        room_of, status_of = _argument(orig, index=0), _argument(orig, index=1)

        def w(self, *args, **kwargs):
            if not rec.keep(self):
                return orig(self, *args, **kwargs)
            room, status = room_of(args, kwargs), status_of(args, kwargs)
            statuses = status_dict(self)
            with rec.lock:
                # The change's time is taken before it is made: a thread
                # that sees it (and sends a message the capture stamps)
                # may run before this one reads the clock again.
                at = rec.log.clock()
                before = statuses.get(room)
                out = orig(self, *args, **kwargs)
                after = statuses.get(room)
                if after != before and not getattr(rec.local, "quiet", False):
                    rec.log.emit("status", room, at, **{"from": status_name(before), "to": status_name(after)})
            if status is not None and status_name(status) == "Transferring":
                # A worker marks its room Transferring as it posts a
                # chunk's writes: that chunk was not skipped.
                rec.local.posted = True
            return out
        return w

    def sender_init(self, orig, room_of, status_dict_of_sender, mgr_of=lambda a, k: None):
        rec = self

        def w(self, *args, **kwargs):
            if not rec.keep(mgr_of(args, kwargs)):
                return orig(self, *args, **kwargs)
            room = room_of(orig, self, args, kwargs)
            statuses = status_dict_of_sender(args, kwargs)
            with rec.lock:
                before = statuses.get(room)
                rec.log.emit("sender_create", room)
                rec.local.quiet = True
                try:
                    return orig(self, *args, **kwargs)
                finally:
                    rec.local.quiet = False
                    after = statuses.get(room)
                    if after != before:
                        rec.log.emit("status", room, **{"from": status_name(before), "to": status_name(after)})
        return w

    def clear(self, orig):
        rec = self

        def w(self, *args, **kwargs):
            if not rec.keep(getattr(self, "kv_mgr", None)):
                return orig(self, *args, **kwargs)
            with rec.lock:
                rec.log.emit("clear", self.bootstrap_room)
                return orig(self, *args, **kwargs)
        return w

    def poll(self, orig):
        rec = self

        def w(self, *args, **kwargs):
            if not rec.keep(getattr(self, "kv_mgr", None)):
                return orig(self, *args, **kwargs)
            with rec.lock:
                out = orig(self, *args, **kwargs)
                queue = getattr(rec.local, "queue", None)
                if queue is not None:
                    room = self.bootstrap_room
                    seen = (queue, status_name(out))
                    if rec.last_poll.get((room, id(self))) != seen:
                        rec.last_poll[(room, id(self))] = seen
                        rec.log.emit("poll", room, status=seen[1], queue=queue)
                return out
        return w

    def in_queue(self, queue, orig):
        """Polls made inside orig are the scheduler's polls of `queue`."""
        rec = self

        def w(*args, **kwargs):
            prev = getattr(rec.local, "queue", None)
            rec.local.queue = queue
            try:
                return orig(*args, **kwargs)
            finally:
                rec.local.queue = prev
        return w


_arguments = {}


def _argument(fn, name=None, index=None):
    """A reader of one argument of the calls of method fn (self left out):
    the parameter named name, or the index-th after self, found once in
    fn's signature (reading it per call would cost more than the line)."""
    key = (fn, name, index)
    if key in _arguments:
        return _arguments[key]
    try:
        params = list(inspect.signature(fn).parameters.values())[1:]
    except (TypeError, ValueError):
        params = []
    pos = index
    if name is not None:
        pos = next((i for i, p in enumerate(params) if p.name == name), None)
    elif index is not None and index < len(params):
        name = params[index].name
    default = None
    if pos is not None and pos < len(params) and params[pos].default is not inspect.Parameter.empty:
        default = params[pos].default

    def get(args, kwargs):
        if pos is not None and pos < len(args):
            return args[pos]
        return kwargs.get(name, default)
    _arguments[key] = get
    return get


def instrument(mod, log):
    """Wrap the emulator's classes (conformance/python/prefill.py shape:
    NixlKVManager.update_status/add_transfer_request/transfer_worker_post,
    NixlKVSender.__init__/poll/clear, Scheduler.pop_bootstrapped/
    process_inflight) so that they write log; returns undo."""
    rec = _Recorder(log)
    p = _Patcher()
    p.add(mod.NixlKVManager, "update_status", lambda o: rec.update_status(o, lambda m: m.request_status))

    def add_transfer_request(orig):
        def w(self, req_id, room, num_chunks):
            before = len(self.transfer_queue)
            orig(self, req_id, room, num_chunks)
            n = len(self.transfer_queue) - before
            if n > 0:
                log.emit("chunk_enqueue", room, chunk=n)
        return w

    def worker_post(orig):
        def w(self, req_id):
            room = self.chunk_room.get(req_id)
            failed = self.request_status.get(room) == 0
            orig(self, req_id)  # NotEnabled propagates: nothing happened
            if not self.inflight_writes.get(req_id) and room is not None:
                log.emit("chunk_skip", room, chunk=0, reason="Failed" if failed else "no transfer_infos")
        return w

    p.add(mod.NixlKVManager, "add_transfer_request", add_transfer_request)
    p.add(mod.NixlKVManager, "transfer_worker_post", worker_post)
    p.add(mod.NixlKVSender, "__init__",
          lambda o: rec.sender_init(o, lambda f, s, a, k: a[1], lambda a, k: a[0].request_status))
    p.add(mod.NixlKVSender, "poll", rec.poll)
    p.add(mod.NixlKVSender, "clear", rec.clear)
    p.add(mod.Scheduler, "pop_bootstrapped", lambda o: rec.in_queue("bootstrap", o))
    p.add(mod.Scheduler, "process_inflight", lambda o: rec.in_queue("inflight", o))
    return p.apply()


# The KV manager and sender classes of the backends instrument_sglang
# knows: NIXL's (nixl/conn.py) and Mooncake's (mooncake/conn.py).
BACKEND_CLASSES = (("NixlKVManager", "NixlKVSender"), ("MooncakeKVManager", "MooncakeKVSender"))

# The manager methods through which a transfer worker writes a chunk's
# data, those a commit has. Mooncake's worker writes no Transferring
# status, so a chunk it did not skip is known by one of these calls.
WRITE_METHODS = ("send_kvcache", "send_kvcache_slice", "send_kvcache_dcp", "send_aux",
                 "maybe_send_extra", "_do_staging_transfer")


def backend_classes(conn):
    """The (KV manager, sender) classes of a backend module (nixl/conn.py
    or mooncake/conn.py); InstrumentError for another."""
    for mgr, sender in BACKEND_CLASSES:
        if hasattr(conn, mgr) and hasattr(conn, sender):
            return getattr(conn, mgr), getattr(conn, sender)
    raise InstrumentError("cannot instrument %s: no KV manager and sender of NIXL or Mooncake"
                          % getattr(conn, "__name__", conn))


def instrument_sglang(prefill, conn, common_utils, log, prefill_only=False):
    """Wrap SGLang's real classes (conn: the backend's module, NIXL's or
    Mooncake's) so that they write log; returns undo. Call it before the
    KV manager is built.

    Hooks: the KV manager's update_status and add_transfer_request; the
    sender's __init__, poll and clear; the scheduler's bootstrap-queue
    and in-flight polls (PrefillBootstrapQueue.pop_bootstrapped,
    SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue
    and, where the commit has optimistic prefill, check_bootstrap). The
    transfer worker has no method per chunk; its skips are seen from
    outside: the manager's transfer_worker (the thread's body) marks its
    thread, and the worker queue's get() (common/utils.py FastQueue) ends
    the previous chunk's iteration: a chunk for which the thread neither
    marked its room Transferring nor called a write method (WRITE_METHODS)
    was skipped (its room read Failed, or had no transfer_infos).

    prefill_only (start-up): only KV managers built in prefill mode write
    lines (a process of decode imports the same classes), and the log's
    rank is the manager's engine rank."""
    prefill_mgrs = weakref.WeakSet()
    rec = _Recorder(log, keep=(lambda mgr: mgr in prefill_mgrs) if prefill_only else None)
    p = _Patcher()
    mgr_cls, sender_cls = backend_classes(conn)
    p.add(mgr_cls, "update_status", lambda o: rec.update_status(o, lambda m: m.request_status))

    def manager_init(orig):
        def w(self, *args, **kwargs):
            mode = kwargs.get("disaggregation_mode", args[1] if len(args) > 1 else None)
            if getattr(mode, "name", None) == "PREFILL" or str(getattr(mode, "value", mode)).lower() == "prefill":
                # Before the manager's threads start in its constructor:
                # their first lines are logged.
                prefill_mgrs.add(self)
                log.rank = _engine_rank(args, kwargs, log.rank)
            return orig(self, *args, **kwargs)
        return w

    if prefill_only:
        p.add(mgr_cls, "__init__", manager_init)

    def add_transfer_request(orig):
        room_of = _argument(orig, name="bootstrap_room")

        def w(self, *args, **kwargs):
            if not rec.keep(self):
                return orig(self, *args, **kwargs)
            room = room_of(args, kwargs)
            with rec.lock:
                before = sum(_queue_len(q) for q in getattr(self, "transfer_queues", []))
                out = orig(self, *args, **kwargs)
                n = sum(_queue_len(q) for q in getattr(self, "transfer_queues", [])) - before
                if n > 0 and room is not None:
                    log.emit("chunk_enqueue", room, chunk=n)
            return out
        return w

    def transfer_worker(orig):
        def w(self, *args, **kwargs):
            if rec.keep(self):
                rec.local.worker_mgr = self
            return orig(self, *args, **kwargs)
        return w

    def queue_get(orig):
        def w(self, *args, **kwargs):
            mgr = getattr(rec.local, "worker_mgr", None)
            if mgr is not None:
                prev = getattr(rec.local, "chunk_room", None)
                if prev is not None and not getattr(rec.local, "posted", False):
                    log.emit("chunk_skip", prev, chunk=0, reason=rec.local.chunk_reason)
                rec.local.chunk_room = None
            item = orig(self, *args, **kwargs)
            if mgr is not None:
                room = getattr(item, "room", None)
                rec.local.chunk_room = room
                rec.local.posted = False
                # Mooncake's worker skips a room absent from
                # request_status as a Failed one (mooncake/conn.py:1648).
                status = status_name(mgr.request_status.get(room))
                failed = status == "Failed" or status == "Absent" and mgr_cls.__name__.startswith("Mooncake")
                rec.local.chunk_reason = "Failed" if failed else "no transfer_infos"
            return item
        return w

    def sender_room(fn, self, args, kwargs):
        return _argument(fn, name="bootstrap_room")(args, kwargs)

    def sender_statuses(args, kwargs):
        mgr = kwargs.get("mgr", args[0] if args else None)
        return mgr.request_status

    def wrote(orig):
        def w(self, *args, **kwargs):
            if getattr(rec.local, "worker_mgr", None) is self:
                rec.local.posted = True
            return orig(self, *args, **kwargs)
        return w

    p.add(mgr_cls, "add_transfer_request", add_transfer_request)
    p.add(mgr_cls, "transfer_worker", transfer_worker)
    for name in WRITE_METHODS:
        if hasattr(mgr_cls, name):
            p.add(mgr_cls, name, wrote)
    p.add(common_utils.FastQueue, "get", queue_get)
    def sender_mgr(args, kwargs):
        return kwargs.get("mgr", args[0] if args else None)

    p.add(sender_cls, "__init__", lambda o: rec.sender_init(o, sender_room, sender_statuses, sender_mgr))
    p.add(sender_cls, "poll", rec.poll)
    p.add(sender_cls, "clear", rec.clear)
    p.add(prefill.PrefillBootstrapQueue, "pop_bootstrapped", lambda o: rec.in_queue("bootstrap", o))
    mixin = prefill.SchedulerDisaggregationPrefillMixin
    p.add(mixin, "process_disagg_prefill_inflight_queue", lambda o: rec.in_queue("inflight", o))
    if hasattr(mixin, "check_bootstrap"):
        p.add(mixin, "check_bootstrap", lambda o: rec.in_queue("bootstrap", o))
    return p.apply()


def _engine_rank(args, kwargs, default):
    """The engine rank of the KVArgs a KV manager is built with."""
    kv_args = kwargs.get("args", args[0] if args else None)
    try:
        return int(getattr(kv_args, "engine_rank"))
    except (AttributeError, TypeError, ValueError):
        return default


def _queue_len(q):
    for attr in ("_buf", "queue", "items"):
        buf = getattr(q, attr, None)
        if buf is not None:
            try:
                return len(buf)
            except TypeError:
                pass
    try:
        return q.qsize()
    except Exception:
        return 0


# ---- turning it on at start-up ----------------------------------------------

# What instrument_sglang wraps: prefill.py and common/utils.py, and the
# backend's conn.py, whichever of them the process imports.
SGLANG_MODULES = ("sglang.srt.disaggregation.prefill", "sglang.srt.disaggregation.common.utils")
SGLANG_BACKENDS = ("sglang.srt.disaggregation.nixl.conn", "sglang.srt.disaggregation.mooncake.conn")

_active = None  # the process's EventLog, once activate() found ROOMSPEC_EVENT_LOG


def activate(environ=None):
    """Start-up (the launcher's sitecustomize): with ROOMSPEC_EVENT_LOG set,
    instrument SGLang's prefill once its modules are imported. Returns
    whether the log is on. Never raises."""
    global _active
    environ = os.environ if environ is None else environ
    path = environ.get(ENV_LOG)
    if not path or _active is not None:
        return _active is not None
    try:
        _active = EventLog(os.path.abspath(path), host=environ.get(ENV_HOST) or socket.gethostname(),
                           role="prefill", rank=0)
        for backend in SGLANG_BACKENDS:
            _when_imported(SGLANG_MODULES + (backend,), _instrument_loaded)
    except Exception as e:
        _active = None
        _warn("not active: %s" % e)
        return False
    return True


def active():
    """Whether this process writes the event log on its own (started by
    the launcher, or activate() called): a caller that would instrument
    SGLang itself then leaves it to the start-up hook."""
    return _active is not None


def _instrument_loaded(mods):
    prefill, common_utils = (mods[n] for n in SGLANG_MODULES)
    (conn,) = (m for n, m in mods.items() if n not in SGLANG_MODULES)
    try:
        instrument_sglang(prefill, conn, common_utils, _active, prefill_only=True)
    except Exception as e:
        _warn("not instrumenting SGLang (%s): %s" % (getattr(prefill, "__file__", "?"), e))


def _when_imported(names, callback):
    """Call callback({name: module}) once every module of names has been
    imported, whoever imports them and through whichever finder (SGLang
    itself, a test harness that loads its source its own way). The hook
    is importlib's _load_unlocked, through which every fresh import goes
    (CPython 3.4 to 3.13): a meta path finder would not see the modules
    that another finder placed in front of it serves."""
    done = [False]
    lock = threading.Lock()

    def loaded(name):
        # In sys.modules and done executing (a module that imports another
        # is in sys.modules, half run, while the other runs).
        m = sys.modules.get(name)
        return m is not None and not getattr(getattr(m, "__spec__", None), "_initializing", False)

    def check():
        with lock:
            if done[0] or not all(loaded(n) for n in names):
                return
            done[0] = True
        callback({n: sys.modules[n] for n in names})

    check()
    if done[0]:
        return
    bootstrap = sys.modules.get("importlib._bootstrap") or sys.modules.get("_frozen_importlib")
    orig = getattr(bootstrap, "_load_unlocked", None)
    if not callable(orig):
        raise InstrumentError("this interpreter's importlib has no _load_unlocked to hook")

    def _load_unlocked(spec):
        module = orig(spec)
        if not done[0] and spec.name in names:
            check()
        return module
    bootstrap._load_unlocked = _load_unlocked


# ---- the launcher -------------------------------------------------------------

_SITECUSTOMIZE = '''\
# Written by roomspec_instrument: loads it from %(path)r in every Python
# process started with ROOMSPEC_EVENT_LOG set, then the sitecustomize
# this directory hides.
def _roomspec_instrument():
    import importlib.util, sys
    try:
        mod = sys.modules.get("roomspec_instrument")
        if mod is None:
            spec = importlib.util.spec_from_file_location("roomspec_instrument", %(path)r)
            mod = importlib.util.module_from_spec(spec)
            sys.modules["roomspec_instrument"] = mod
            spec.loader.exec_module(mod)
        mod._bootstrap(__file__)
    except Exception as e:
        sys.stderr.write("roomspec_instrument: not active: %%s\\n" %% e)
_roomspec_instrument()
del _roomspec_instrument
'''


def _bootstrap(boot_file):
    """Run by the launcher's sitecustomize: activate, then run the
    sitecustomize that the boot directory hides, if any."""
    activate()
    boot_dir = os.path.dirname(os.path.abspath(boot_file))
    import importlib.machinery
    import importlib.util
    path = [p for p in sys.path if os.path.abspath(p or ".") != boot_dir]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod
    spec.loader.exec_module(mod)


def boot_dir():
    """The directory holding the launcher's sitecustomize.py, written for
    this file: a directory of the user's own in the temporary folder
    (created 0700 and checked to be the user's, else a fresh one)."""
    me = os.path.abspath(__file__)
    if me.endswith((".pyc", ".pyo")):
        me = me[:-1]
    text = _SITECUSTOMIZE % {"path": me}
    uid = os.getuid() if hasattr(os, "getuid") else 0
    d = os.path.join(tempfile.gettempdir(), "roomspec-instrument-%d" % uid)
    try:
        os.mkdir(d, 0o700)
    except FileExistsError:
        pass
    except OSError:
        d = None
    if d is not None:
        st = os.lstat(d)
        if not stat.S_ISDIR(st.st_mode) or st.st_uid != uid or st.st_mode & 0o077:
            d = None
    if d is None:
        d = tempfile.mkdtemp(prefix="roomspec-instrument-")
    target = os.path.join(d, "sitecustomize.py")
    try:
        with open(target) as f:
            if f.read() == text:
                return d
    except OSError:
        pass
    fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, target)
    return d


USAGE = """usage: python -m roomspec_instrument [--log FILE] [--host NAME] -- COMMAND [ARG...]

Runs COMMAND (e.g. python -m sglang.launch_server ...) with roomspec's prefill
event log on: every Python process it starts writes the events of its
prefill KV manager (NIXL) to FILE (default $ROOMSPEC_EVENT_LOG), one JSON
object per line. --host names the node in each line (default: the host
name). SGLang's code is not edited and runs as it would without it."""


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    log, host = os.environ.get(ENV_LOG), os.environ.get(ENV_HOST)
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a in ("-h", "--help"):
            print(USAGE)
            return 0
        if a in ("--log", "--host") and i + 1 < len(argv):
            if a == "--log":
                log = argv[i + 1]
            else:
                host = argv[i + 1]
            i += 2
            continue
        sys.stderr.write("roomspec_instrument: unknown argument %r\n%s\n" % (a, USAGE))
        return 2
    cmd = argv[i + 1:]
    if not cmd or not log:
        sys.stderr.write("roomspec_instrument: %s\n%s\n" % ("no COMMAND after --" if not cmd else "no --log FILE", USAGE))
        return 2
    env = dict(os.environ)
    env[ENV_LOG] = os.path.abspath(log)
    if host:
        env[ENV_HOST] = host
    d = boot_dir()
    env["PYTHONPATH"] = os.pathsep.join([d] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    try:
        os.execvpe(cmd[0], cmd, env)
    except OSError as e:
        sys.stderr.write("roomspec_instrument: %s: %s\n" % (cmd[0], e))
        return 127


if __name__ == "__main__":
    sys.exit(main())
