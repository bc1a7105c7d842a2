"""The six boundaries where the harness replaces SGLang's world.

1. ZeroMQ: a context whose PULL socket (prefill's bootstrap socket) parks
   the reading thread until the driver hands it the next message of one
   decode rank's connection, and whose PUSH sockets (prefill to decode:
   ABORT_ACK) append to that decode rank's inbox; decode's own PULL socket
   (DecodeSocket) parks decode's real listener thread until the driver
   hands it the next frame list prefill pushed to that rank.
2. Transfer queues: FastQueue's replacement, a FIFO whose get() parks the
   worker until the driver lets it take the head chunk.
3. The NIXL agent: every call succeeds; a transfer is DONE only once the
   driver completes the chunk it belongs to (check_xfer_state parks), and
   only a transfer the worker waits for (checks) ever lands.
4. The clock: time.time() as the modules that read it see it.
5. Decode's registration: built by the harness as decode's frames.
6. The KV cache pool (KVPool): the scheduler's tree cache, its
   req_to_token table and its allocator, as prefill.py reaches them
   through release_kv_cache and maybe_cache_unfinished_req: it records
   which pages each request holds and each free.

Nothing here knows the spec; the driver maps these onto spec variables.
"""

import types

import zmq as _zmq

from .park import HarnessError


# ---- 1. ZeroMQ ---------------------------------------------------------------


class FakeZmqError(Exception):
    pass


class FakeSocket:
    """A socket of the fake context. PULL: recv parks; PUSH: send records."""

    def __init__(self, net, kind):
        self.net = net
        self.kind = kind
        self.endpoint = None
        self.closed = False

    # configuration calls are accepted and ignored
    def setsockopt(self, *args, **kwargs):
        pass

    set = setsockopt

    def getsockopt(self, *args, **kwargs):
        return 0

    def bind(self, endpoint):
        self.endpoint = endpoint

    def bind_to_random_port(self, addr, *args, **kwargs):
        self.endpoint = f"{addr}:{self.net.prefill_port}"
        return self.net.prefill_port

    def connect(self, endpoint):
        self.endpoint = endpoint

    def get_monitor_socket(self, *args, **kwargs):
        return FakeMonitor()

    def close(self, *args, **kwargs):
        self.closed = True

    def recv_multipart(self, *args, **kwargs):
        if self.kind != _zmq.PULL:
            raise HarnessError(f"zmq: recv on a {self.kind} socket")
        return self.net.recv(self)

    def send_multipart(self, frames, *args, **kwargs):
        self.net.send(self, [bytes(f) for f in frames])

    def send(self, data, *args, **kwargs):
        self.net.send(self, [bytes(data)])


class DecodeSocket:
    """Decode rank `rank`'s PULL socket, as decode's listener thread reads
    it (nixl/conn.py _start_decode_listener_thread): recv_multipart parks
    the thread until the driver hands it the next frames prefill pushed."""

    def __init__(self, controller, rank):
        self.controller = controller
        self.rank = rank

    def recv_multipart(self, *args, **kwargs):
        return self.controller.park("decode-recv", key=self.rank)

    def __getattr__(self, name):
        # configuration calls (setsockopt, bind, ...) are accepted
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: None


class FakeMonitor:
    def recv_multipart(self, *args, **kwargs):
        raise _zmq.Again()

    def close(self, *args, **kwargs):
        pass


class FakeContext:
    def __init__(self, net):
        self.net = net

    def socket(self, kind, *args, **kwargs):
        return FakeSocket(self.net, kind)

    def set(self, *args, **kwargs):
        pass

    setsockopt = set

    def term(self):
        pass

    destroy = term


def fake_zmq_module(net_ref):
    """A zmq module: the real constants and exceptions, a fake Context.

    net_ref() returns the current Network (it changes at every reset, while
    modules keep the module object they imported)."""
    mod = types.ModuleType("zmq")
    for k in dir(_zmq):
        if not k.startswith("__"):
            setattr(mod, k, getattr(_zmq, k))
    mod.Context = lambda *a, **k: FakeContext(net_ref())
    mod.Context.instance = lambda *a, **k: FakeContext(net_ref())
    mod.__roomspec_fake__ = True
    return mod


class Network:
    """Decode's connections to prefill's PULL socket, and prefill's sends.

    inbound[rank] is what decode rank `rank` put on its connection and the
    bootstrap thread has not read yet; outbound maps an endpoint to the
    messages prefill pushed to it."""

    def __init__(self, controller, prefill_port, endpoints):
        self.controller = controller
        self.prefill_port = prefill_port
        self.endpoints = endpoints  # "tcp://ip:port" -> decode rank index
        self.inbound = {}
        self.outbound = {}  # rank index -> list of frame lists
        self.unknown_sends = []

    def recv(self, sock):
        return self.controller.park("recv", key=sock.endpoint)

    def send(self, sock, frames):
        rank = self.endpoints.get(sock.endpoint)
        if rank is None:
            self.unknown_sends.append((sock.endpoint, frames))
            return
        self.outbound.setdefault(rank, []).append(frames)


# ---- 2. Transfer queues -------------------------------------------------------


class ParkingQueue:
    """FastQueue's interface (put/get). Items are tagged with the request the
    driver was sending for when they were put, so that a chunk of a reused
    room id is told apart from another request's. The class attributes are
    set by the driver before the manager builds its queues."""

    controller = None
    registry = None  # list of live queues, in creation order
    tagger = None  # () -> the request index being sent

    def __init__(self, *args, **kwargs):
        self.items = []  # (tag, item)
        self.controller = ParkingQueue.controller
        if ParkingQueue.registry is not None:
            ParkingQueue.registry.append(self)

    def put(self, item, *args, **kwargs):
        tag = ParkingQueue.tagger() if ParkingQueue.tagger else None
        self.items.append((tag, item))

    put_nowait = put

    def get(self, *args, **kwargs):
        self.controller.park("queue", key=self)
        if not self.items:
            raise HarnessError("transfer queue: a worker was resumed on an empty queue")
        return self.items.pop(0)[1]

    def qsize(self):
        return len(self.items)

    def empty(self):
        return not self.items


# ---- 3. The NIXL agent --------------------------------------------------------


class FakeHandle:
    """A posted (or prepared) transfer. notif is the notification string the
    real code attaches (`{room}_kv_{chunk}_{last}_{src}`, `{room}_aux`)."""

    def __init__(self, kind, notif=None):
        self.kind = kind
        self.notif = notif.decode() if isinstance(notif, bytes) else notif
        self.done = False
        self.checked = False  # check_xfer_state has said "PROC" once

    def __bool__(self):
        return True

    def __repr__(self):
        return f"<xfer {self.kind} {self.notif}>"


class FakeAgent:
    """nixl_agent: every call succeeds. check_xfer_state of a posted transfer
    parks its thread until the driver completes the chunk."""

    def __init__(self, controller, *args, **kwargs):
        self.controller = controller
        self.name = args[0] if args else "prefill"
        self.pending = {}  # thread -> handles posted since its last completion

    def _thread(self):
        import threading

        return threading.current_thread()

    def get_plugin_list(self):
        import os

        return [os.environ.get("SGLANG_DISAGGREGATION_NIXL_BACKEND", "UCX"), "UCX", "GDS", "OBJ"]

    def create_backend(self, *args, **kwargs):
        return FakeHandle("backend")

    def register_memory(self, addrs, *args, **kwargs):
        return FakeHandle("descs")

    def get_xfer_descs(self, *args, **kwargs):
        return FakeHandle("descs")

    def get_reg_descs(self, *args, **kwargs):
        return FakeHandle("descs")

    def prep_xfer_dlist(self, *args, **kwargs):
        return FakeHandle("prep")

    def add_remote_agent(self, metadata):
        return metadata.decode(errors="replace") if isinstance(metadata, bytes) else str(metadata)

    def get_agent_metadata(self):
        return b"prefill-agent"

    def _post(self, notif):
        h = FakeHandle("xfer", notif)
        self.pending.setdefault(self._thread(), []).append(h)
        return h

    def make_prepped_xfer(self, op, src, src_idx, dst, dst_idx, notif=b"", *args, **kwargs):
        return self._post(notif)

    def initialize_xfer(self, op, src, dst, peer, notif=b"", *args, **kwargs):
        return self._post(notif)

    def transfer(self, handle, *args, **kwargs):
        return "PROC"

    def check_xfer_state(self, handle):
        # nixl_agent.check_xfer_state takes a handle the agent returned:
        # anything else (None where no transfer was posted) raises in the
        # real binding, and does here.
        if not isinstance(handle, FakeHandle) or handle.kind != "xfer":
            raise TypeError(f"check_xfer_state(): not a transfer handle: {handle!r}")
        if handle.done:
            return "DONE"
        if not handle.checked:
            # A real transfer is in progress when first checked: "PROC",
            # and the worker must check again (nixl/conn.py's DONE
            # barrier); it parks at the next check until the driver
            # completes the chunk.
            handle.checked = True
            return "PROC"
        # The driver's step completes the writes the worker is waiting
        # for: those it has checked. A write it posted and never checks may
        # land at any later time as far as NIXL promises, so here it never
        # does (its notification never reaches decode): code that stops
        # waiting for a write (the aux write left out of `handles`) is seen
        # to declare Success before decode has what it needs.
        me = self._thread()
        mine = self.pending.get(me, [])
        waited = [h for h in mine if h.checked]
        self.controller.park("xfer", key=tuple(h.notif for h in waited))
        for h in waited:
            h.done = True
        self.pending[me] = [h for h in mine if not h.checked]
        return "DONE"

    def release_xfer_handle(self, *args, **kwargs):
        pass

    def release_dlist_handle(self, *args, **kwargs):
        pass

    def get_new_notifs(self):
        return {}

    def send_notif(self, *args, **kwargs):
        pass

    def remove_remote_agent(self, *args, **kwargs):
        pass

    def deregister_memory(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        # An agent method this harness does not know: succeed, like the rest.
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: FakeHandle(name)


def fake_nixl_modules(agent_factory):
    """The `nixl` package and `nixl._api`, serving agent_factory as nixl_agent."""
    api = types.ModuleType("nixl._api")

    class nixl_thread_sync_t:
        NIXL_THREAD_SYNC_STRICT = 2
        NIXL_THREAD_SYNC_NONE = 0
        NIXL_THREAD_SYNC_RW = 1
        NIXL_THREAD_SYNC_DEFAULT = 0

    def nixl_agent_config(*args, **kwargs):
        return types.SimpleNamespace(args=args, kwargs=kwargs)

    api.nixl_agent = agent_factory
    api.nixl_agent_config = nixl_agent_config
    api.nixl_thread_sync_t = nixl_thread_sync_t
    pkg = types.ModuleType("nixl")
    pkg.__path__ = []
    pkg._api = api
    return {"nixl": pkg, "nixl._api": api}


# ---- 6. The KV cache pool -----------------------------------------------------


class KVPool:
    """The scheduler's KV cache as prefill.py touches it: `tree_cache` (the
    object release_kv_cache and maybe_cache_unfinished_req are handed) with
    its req_to_token_pool and token_to_kv_pool_allocator.

    The forward pass (the driver, playing the generic scheduler's batch
    preparation) allocates a request's row of pages (alloc); release_kv_cache
    frees them through cache_finished_req, as SGLang's does
    (mem_cache/common.py release_kv_cache -> tree_cache.cache_finished_req,
    then req_to_token_pool.free): the pool records every free, a second one
    and a free of pages the request does not hold included, and what the
    tree cache was asked to keep (cache_unfinished_req)."""

    def __init__(self, rows, tokens, page_size=1):
        import numpy as np

        self.page_size = page_size
        self.tokens = tokens
        self.req_to_token = np.arange(rows * tokens, dtype=np.int32).reshape(rows, tokens)
        self.free_rows = list(range(rows))
        self.held = {}  # rid -> row
        self.frees = {}  # rid -> count of release_kv_cache calls
        self.cached = {}  # rid -> count of cache_unfinished_req calls
        self.events = []  # (rid, "alloc" | "free" | "free-unheld" | "cache-unfinished")

    # the forward pass
    def alloc(self, req):
        if req.rid in self.held:
            raise HarnessError(f"KV pool: {req.rid} already holds pages")
        if not self.free_rows:
            raise HarnessError("KV pool: no free row")
        row = self.free_rows.pop(0)
        self.held[req.rid] = row
        req.req_pool_idx = row
        req.kv = _KV(self.tokens)
        self.events.append((req.rid, "alloc"))

    # tree_cache: what release_kv_cache and maybe_cache_unfinished_req call
    def cache_finished_req(self, req, *args, **kwargs):
        self.frees[req.rid] = self.frees.get(req.rid, 0) + 1
        row = self.held.pop(req.rid, None)
        if row is None:
            self.events.append((req.rid, "free-unheld"))
        else:
            self.free_rows.append(row)
            self.events.append((req.rid, "free"))
        req.req_pool_idx = None
        req.kv = None

    def cache_unfinished_req(self, req, *args, **kwargs):
        self.cached[req.rid] = self.cached.get(req.rid, 0) + 1
        self.events.append((req.rid, "cache-unfinished"))

    def supports_mamba(self):
        return False

    def is_chunk_cache(self):
        return False

    def release_aborted_request(self, rid):
        pass

    def holds(self, rid):
        return rid in self.held


class _KV:
    """req.kv: the request's KV allocation (release_kv_cache reads
    kv_allocated_len)."""

    def __init__(self, n):
        self.kv_allocated_len = n


def release_kv_cache(req, tree_cache, is_insert=True):
    """mem_cache/common.py release_kv_cache on the fake pool: the request's
    pages go back (cache_finished_req)."""
    tree_cache.cache_finished_req(req, is_insert=is_insert)


def maybe_cache_unfinished_req(req, tree_cache, **kwargs):
    """mem_cache/common.py maybe_cache_unfinished_req on the fake pool."""
    if getattr(req, "skip_radix_cache_insert", False):
        return
    tree_cache.cache_unfinished_req(req, **kwargs)


# ---- 4. The clock -------------------------------------------------------------


class Clock:
    """time.time() for the modules that read it. `now` is what every reader
    sees, except while `override` is set (one sender's timeout poll)."""

    def __init__(self, now=1_000_000.0):
        self.now = now
        self.override = None
        # The threads whose sleep parks (the bootstrap thread), and the
        # controller they park with; see sleep.
        self.sleepers = ()
        self.controller = None

    def time(self):
        return self.override if self.override is not None else self.now

    def sleep(self, seconds):
        """Retries and polling loops sleep; under the harness time does not
        pass by itself, so a sleep returns at once (a loop that never parks
        is then caught by the controller's timeout), except in a thread of
        `sleepers`: a bootstrap thread that sleeps in a message's handler
        waits for another thread's step (a fix's ABORT handler waiting for
        the room's KV writes), so it parks, holding the message unhandled,
        until the driver hands the same message again."""
        import threading

        if self.controller is not None and threading.current_thread() in self.sleepers:
            self.controller.park("sleep")


def fake_time_module(clock):
    """A time module: the real one, except time() reads the clock."""
    import time as _time

    mod = types.ModuleType("time")
    for k in dir(_time):
        if not k.startswith("__"):
            setattr(mod, k, getattr(_time, k))
    mod.time = clock.time
    mod.sleep = clock.sleep
    return mod
