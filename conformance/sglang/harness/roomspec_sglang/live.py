"""SGLang's real prefill code running freely on real sockets.

The parked harness (driver.py) takes one step at a time; this one lets the
real code run as a prefill rank does: its bootstrap thread reads a real
ZeroMQ PULL socket on loopback, its transfer workers take chunks from the
real queues, its scheduler functions (prefill.py) are called by a
scheduler loop, time is the real clock. Only the GPU side is faked: the
NIXL agent completes each transfer after write_time seconds, and the model
is no model (a request's forward pass is the scheduler sending its KV).
With backend "mooncake" it runs mooncake/conn.py the same way, its
transfer engine's writes taking write_time each (mooncake.TimedEngine).

traces/testdata/scenarios/make_scenarios.py --real SOURCE uses it to make
captures of the real code under tcpdump, with roomspec_instrument's event log.
"""

import threading
import time

from . import fakes
from .client import Client
from .driver import Harness, TOKENS_PER_CHUNK


class TimedAgent(fakes.FakeAgent):
    """A NIXL agent whose transfers complete write_time after they were
    posted; check_xfer_state sleeps until then (the real worker would spin
    on it)."""

    def __init__(self, write_time, *args, **kwargs):
        super().__init__(None, *args, **kwargs)
        self.write_time = write_time

    def _post(self, notif):
        h = fakes.FakeHandle("xfer", notif)
        h.due = time.monotonic() + self.write_time
        return h

    def check_xfer_state(self, handle):
        due = getattr(handle, "due", None)
        if due is not None:
            left = due - time.monotonic()
            if left > 0:
                time.sleep(left)
        return "DONE"


class LivePrefill:
    """One prefill rank of SGLang's real code, free-running. arrive()
    hands a request to its scheduler; held() lists the requests it has not
    released; crashed says why the scheduler died, if it did."""

    def __init__(self, root, env=None, write_time=0.05, tick=0.02, num_chunks=1, instrument=None,
                 max_requests=4096, backend="nixl"):
        self.tick = tick
        self.num_chunks = num_chunks
        if backend == "mooncake":
            from .mooncake import MooncakeHarness, TimedEngine

            self.h = MooncakeHarness(root, env=env, engine=lambda: TimedEngine(write_time))
        elif backend == "nixl":
            self.h = Harness(root, env=env, agent=lambda *a, **k: TimedAgent(write_time, *a, **k))
        else:
            raise ValueError(f"backend {backend!r}: nixl or mooncake")
        if instrument is not None:
            # roomspec_instrument wraps the classes before the manager's threads start
            instrument(self.h)
        h = self.h
        h.num_chunks = num_chunks
        h.mgr = h._build_manager()
        h.client = Client(num_chunks, h.COUNTS_NOTIFICATIONS)
        h.bq = h._build_bootstrap_queue()
        h.pool = fakes.KVPool(max_requests, TOKENS_PER_CHUNK * num_chunks)
        h.sched = h._build_scheduler(h.pool)
        h.bq.scheduler = h.sched
        self.port = int(h.mgr.rank_port)
        self.lock = threading.Lock()
        self.arrivals = []  # (time, request key, room)
        self.reqs = {}  # request key -> req
        self.released = set()
        self.released_at = {}  # request key -> time.time() of its release
        self.crashed = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, name="scheduler", daemon=True)

    @property
    def guard(self):
        return self.h.guard

    def start(self):
        self.thread.start()

    def arrive(self, key, room, when=None):
        """Request key (a hashable, e.g. (room, incarnation)) reaches the
        scheduler at when (monotonic; default now)."""
        with self.lock:
            self.arrivals.append((when or time.monotonic(), key, room))

    def held(self):
        with self.lock:
            return {k for k in self.reqs if k not in self.released}

    def join(self):
        self.stop.set()
        self.thread.join()

    def _release(self, key):
        self.released.add(key)
        self.released_at[key] = time.time()

    def _loop(self):
        h = self.h
        while not self.stop.is_set():
            now = time.monotonic()
            try:
                with self.lock:
                    for item in [a for a in self.arrivals if a[0] <= now]:
                        self.arrivals.remove(item)
                        _, key, room = item
                        req = h._make_req(len(self.reqs), room)
                        self.reqs[key] = req
                        h.bq.add(req, 1)
                    keys = {id(r): k for k, r in self.reqs.items()}
                    before = set(map(id, h.bq.queue))
                    # the event loop (prefill.py:577): the bootstrap-queue
                    # pass, the forward pass of each waiting request, the
                    # in-flight pass
                    bootstrapped = h.bq.pop_bootstrapped()
                    h.sched.waiting_queue.extend(bootstrapped)
                    for req in h.bq.queue:
                        before.discard(id(req))
                    for req in bootstrapped:
                        before.discard(id(req))
                    for rid in before:  # failed in the bootstrap queue
                        self._release(keys[rid])
                    for req in list(h.sched.waiting_queue):
                        h.forward(req)
                    for req in h.sched.process_disagg_prefill_inflight_queue() or []:
                        self._release(keys[id(req)])
            except (KeyError, RuntimeError) as e:
                # escaping the event loop: the prefill process dies
                self.crashed = f"{type(e).__name__}: {e}"
                return
            time.sleep(self.tick)
