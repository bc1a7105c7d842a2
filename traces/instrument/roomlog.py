"""Write roomspec's prefill event log (traces/eventlog) from a running
prefill, by wrapping the KV manager's, the sender's and the scheduler's
methods. Standard library only.

    import roomlog
    log = roomlog.EventLog(open("prefill.events.jsonl", "a"), host="p0", role="prefill", rank=0)
    roomlog.instrument(prefill_module, log)

`prefill_module` is a module with SGLang's class shapes: NixlKVManager
(update_status, add_transfer_request, transfer_worker_post), NixlKVSender
(__init__, clear) and Scheduler (pop_bootstrapped, process_inflight), as in
conformance/python/prefill.py. The events (one JSON object per line):

  sender_create  NixlKVSender.__init__, then the status change it made
  status         request_status[room] changed: from, to ("Absent" for none);
                 not written for clear(), which the clear event implies
  poll           the scheduler's poll of a sender: status, queue
                 ("bootstrap" or "inflight"); a poll that saw what the
                 previous poll of the same request saw is not repeated
                 (a reused room id has a request per incarnation)
  clear          NixlKVSender.clear
  chunk_enqueue  add_transfer_request enqueued chunks: chunk (count)
  chunk_skip     the worker dropped a chunk without writing: chunk, reason

Every event carries ts (RFC 3339, nanoseconds, UTC), host, role, rank,
thread (threading.current_thread().name) and room.
"""

import functools
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


def instrument(mod, log):
    """Wrap mod's classes in place so that they write log; returns a
    function that undoes it."""
    saved = []
    quiet = threading.local()  # set while a wrapper logs the status itself

    def patch(cls, name, make):
        orig = getattr(cls, name)
        saved.append((cls, name, orig))
        setattr(cls, name, functools.wraps(orig)(make(orig)))

    def update_status(orig):
        def w(self, room, status):
            before = self.request_status.get(room)
            orig(self, room, status)
            after = self.request_status.get(room)
            if after != before and not getattr(quiet, "on", False):
                log.emit("status", room, **{"from": status_name(before), "to": status_name(after)})
        return w

    def sender_init(orig):
        def w(self, mgr, room):
            before = mgr.request_status.get(room)
            log.emit("sender_create", room)
            quiet.on = True
            try:
                orig(self, mgr, room)
            finally:
                quiet.on = False
            after = mgr.request_status.get(room)
            if after != before:
                log.emit("status", room, **{"from": status_name(before), "to": status_name(after)})
        return w

    def clear(orig):
        def w(self):
            log.emit("clear", self.bootstrap_room)
            return orig(self)
        return w

    def add_transfer_request(orig):
        def w(self, req_id, room, num_chunks):
            before = self.transfer_queue.get(req_id, 0)
            orig(self, req_id, room, num_chunks)
            n = self.transfer_queue.get(req_id, 0) - before
            if n > 0:
                log.emit("chunk_enqueue", room, chunk=n)
        return w

    def worker_post(orig):
        def w(self, req_id):
            room = self.chunk_room.get(req_id)
            orig(self, req_id)  # NotEnabled propagates: nothing happened
            if not self.inflight_writes.get(req_id) and room is not None:
                reason = "Failed" if self.request_status.get(room) == 0 else "no transfer_infos"
                log.emit("chunk_skip", room, chunk=0, reason=reason)
        return w

    last_poll = {}  # (room, request) -> (queue, status) last logged

    def poll_in(queue, orig):
        # A poll that saw what the previous one of the same request saw is
        # not logged again: schedulers poll every iteration.
        def w(self, req_id):
            sender = self.senders.get(req_id)
            if sender is not None and self.queue.get(req_id) == queue[1]:
                room = sender.bootstrap_room
                seen = (queue[0], status_name(sender.poll()))
                if last_poll.get((room, req_id)) != seen:
                    last_poll[(room, req_id)] = seen
                    log.emit("poll", room, status=seen[1], queue=seen[0])
            return orig(self, req_id)
        return w

    patch(mod.NixlKVManager, "update_status", update_status)
    patch(mod.NixlKVManager, "add_transfer_request", add_transfer_request)
    patch(mod.NixlKVManager, "transfer_worker_post", worker_post)
    patch(mod.NixlKVSender, "__init__", sender_init)
    patch(mod.NixlKVSender, "clear", clear)
    patch(mod.Scheduler, "pop_bootstrapped", lambda o: poll_in(("bootstrap", "BootstrapQueue"), o))
    patch(mod.Scheduler, "process_inflight", lambda o: poll_in(("inflight", "InflightQueue"), o))

    def undo():
        for cls, name, orig in reversed(saved):
            setattr(cls, name, orig)
    return undo
