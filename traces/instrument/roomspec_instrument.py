"""Write roomspec's prefill event log (traces/eventlog) from a running
prefill, by wrapping the KV manager's, the sender's and the scheduler's
methods. Standard library only; the wrappers observe and never change what
the wrapped code does (no extra call into it: a sender's poll() can fire
the bootstrap timeout, so polls are logged as the scheduler makes them).

SGLang's real modules (python/sglang/srt/disaggregation/, NIXL backend):

    import roomlog
    from sglang.srt.disaggregation import prefill
    from sglang.srt.disaggregation.nixl import conn as nixl_conn
    from sglang.srt.disaggregation.common import utils as common_utils
    log = roomlog.EventLog(open("prefill.events.jsonl", "a"), host="p0", role="prefill", rank=0)
    undo = roomlog.instrument_sglang(prefill, nixl_conn, common_utils, log)

before the prefill's KV manager is built (its worker threads start in its
constructor). roomspec's Python emulator (conformance/python/prefill.py)
has its own shape: roomlog.instrument(prefill_module, log).

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
import threading
import time

KVPOLL_NAMES = {0: "Failed", 1: "Bootstrapping", 2: "WaitingForInput", 3: "Transferring", 4: "Success"}


def status_name(v):
    if v is None:
        return "Absent"
    return KVPOLL_NAMES.get(int(v), str(v))


def rfc3339_ns(ns):
    secs, frac = divmod(ns, 1_000_000_000)
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(secs)) + ".%09dZ" % frac


class EventLog:
    """A JSON-lines event log; one write call per line, under a lock."""

    def __init__(self, f, host="", role="prefill", rank=0, clock=time.time_ns):
        self.f = f
        self.host, self.role, self.rank = host, role, rank
        self.clock = clock
        self.lock = threading.Lock()

    def emit(self, event, room, **fields):
        obj = {"ts": rfc3339_ns(self.clock()), "host": self.host, "role": self.role, "rank": self.rank,
               "thread": threading.current_thread().name, "event": event, "room": int(room)}
        obj.update(fields)
        line = json.dumps(obj, separators=(",", ":")) + "\n"
        with self.lock:
            self.f.write(line)
            self.f.flush()


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

    def __init__(self, log):
        self.log = log
        self.lock = threading.RLock()  # an operation and its line, together
        self.local = threading.local()  # quiet, queue, worker bookkeeping
        self.last_poll = {}  # (room, sender id) -> (queue, status)

    def update_status(self, orig, status_dict):
        rec = self

        def w(self, *args, **kwargs):
            room, status = _room_and_status(orig, self, args, kwargs)
            statuses = status_dict(self)
            with rec.lock:
                before = statuses.get(room)
                out = orig(self, *args, **kwargs)
                after = statuses.get(room)
                if after != before and not getattr(rec.local, "quiet", False):
                    rec.log.emit("status", room, **{"from": status_name(before), "to": status_name(after)})
            if status is not None and status_name(status) == "Transferring":
                # A worker marks its room Transferring as it posts a
                # chunk's writes: that chunk was not skipped.
                rec.local.posted = True
            return out
        return w

    def sender_init(self, orig, room_of, status_dict_of_sender):
        rec = self

        def w(self, *args, **kwargs):
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
            with rec.lock:
                rec.log.emit("clear", self.bootstrap_room)
                return orig(self, *args, **kwargs)
        return w

    def poll(self, orig):
        rec = self

        def w(self, *args, **kwargs):
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


def _room_and_status(fn, self, args, kwargs):
    """update_status(room, status), whatever the parameter names."""
    try:
        bound = inspect.signature(fn).bind(self, *args, **kwargs)
        vals = list(bound.arguments.values())[1:]
        return vals[0], vals[1] if len(vals) > 1 else None
    except TypeError:
        return (args + (None, None))[0], (args + (None, None))[1]


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


def instrument_sglang(prefill, nixl_conn, common_utils, log):
    """Wrap SGLang's real classes (NIXL backend) so that they write log;
    returns undo. Call it before the KV manager is built.

    Hooks: NixlKVManager.update_status and add_transfer_request;
    NixlKVSender.__init__, poll and clear; the scheduler's bootstrap-queue
    and in-flight polls (PrefillBootstrapQueue.pop_bootstrapped,
    SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue
    and, where the commit has optimistic prefill, check_bootstrap). The
    transfer worker has no method per chunk; its skips are seen from
    outside: NixlKVManager.transfer_worker (the thread's body) marks its
    thread, and the worker queue's get() (common/utils.py FastQueue) ends
    the previous chunk's iteration: a chunk after which the thread wrote no
    status was skipped (its room read Failed)."""
    rec = _Recorder(log)
    p = _Patcher()
    mgr_cls = nixl_conn.NixlKVManager
    p.add(mgr_cls, "update_status", lambda o: rec.update_status(o, lambda m: m.request_status))

    def add_transfer_request(orig):
        def w(self, *args, **kwargs):
            room = inspect.signature(orig).bind(self, *args, **kwargs).arguments.get("bootstrap_room")
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
                failed = status_name(mgr.request_status.get(room)) == "Failed"
                rec.local.chunk_reason = "Failed" if failed else "no transfer_infos"
            return item
        return w

    def sender_room(fn, self, args, kwargs):
        return inspect.signature(fn).bind(self, *args, **kwargs).arguments["bootstrap_room"]

    def sender_statuses(args, kwargs):
        mgr = kwargs.get("mgr", args[0] if args else None)
        return mgr.request_status

    p.add(mgr_cls, "add_transfer_request", add_transfer_request)
    p.add(mgr_cls, "transfer_worker", transfer_worker)
    p.add(common_utils.FastQueue, "get", queue_get)
    p.add(nixl_conn.NixlKVSender, "__init__", lambda o: rec.sender_init(o, sender_room, sender_statuses))
    p.add(nixl_conn.NixlKVSender, "poll", rec.poll)
    p.add(nixl_conn.NixlKVSender, "clear", rec.clear)
    p.add(prefill.PrefillBootstrapQueue, "pop_bootstrapped", lambda o: rec.in_queue("bootstrap", o))
    mixin = prefill.SchedulerDisaggregationPrefillMixin
    p.add(mixin, "process_disagg_prefill_inflight_queue", lambda o: rec.in_queue("inflight", o))
    if hasattr(mixin, "check_bootstrap"):
        p.add(mixin, "check_bootstrap", lambda o: rec.in_queue("bootstrap", o))
    return p.apply()


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
