"""Parking: SGLang's real threads run, and stop at the fake blocking points.

Every blocking call the room-handling threads make goes through a boundary
fake (a PULL socket's recv_multipart, a transfer queue's get, the NIXL
agent's check_xfer_state). Each fake calls Controller.park, which records
where the thread stopped and waits for the driver. The driver takes one spec
action at a time: it picks the one parked thread the action resumes, hands
it a value (a message, a chunk, a completion) and waits until that thread
parks again, or dies. So exactly one real thread runs at a time, and the
interleaving is the one the suite chose.
"""

import threading
import time


class HarnessError(Exception):
    """The real code did something the harness cannot drive (a boundary it
    does not know, a thread that never parks again)."""


class Parking:
    """One thread stopped at one fake blocking point."""

    __slots__ = ("thread", "kind", "key", "payload", "value", "resumed")

    def __init__(self, thread, kind, key, payload):
        self.thread = thread
        self.kind = kind
        self.key = key
        self.payload = payload
        self.value = None
        self.resumed = False

    def __repr__(self):
        return f"<{self.thread.name} parked at {self.kind} {self.key!r}>"


class Controller:
    """Knows which real thread is parked where, and resumes one at a time."""

    def __init__(self, timeout=5.0):
        self.timeout = timeout
        self.cond = threading.Condition()
        self.parked = {}  # thread -> Parking
        self.deaths = []  # (thread name, exception) of threads that died
        self.closed = False
        _Hook.current = self

    def _died(self, args):
        with self.cond:
            self.deaths.append((args.thread.name if args.thread else "?", args.exc_value))
            self.cond.notify_all()

    def park(self, kind, key=None, payload=None):
        """Called by a real thread at a fake blocking point; returns the value
        the driver resumes it with."""
        me = threading.current_thread()
        p = Parking(me, kind, key, payload)
        with self.cond:
            if self.closed:
                raise _Shutdown()
            self.parked[me] = p
            self.cond.notify_all()
            while not p.resumed:
                self.cond.wait()
                if self.closed and not p.resumed:
                    self.parked.pop(me, None)
                    raise _Shutdown()
            self.parked.pop(me, None)
            self.cond.notify_all()
            return p.value

    def find(self, kind, pred=None):
        """The parked threads at `kind` (and matching pred), oldest first."""
        with self.cond:
            return [p for p in self.parked.values()
                    if p.kind == kind and (pred is None or pred(p))]

    def wait_parked(self, count, what):
        """Wait until at least `count` threads are parked (after start-up)."""
        deadline = time.monotonic() + self.timeout
        with self.cond:
            while len(self.parked) < count:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HarnessError(
                        f"{what}: {len(self.parked)} of {count} threads parked after "
                        f"{self.timeout:.0f}s (parked: {sorted(p.kind for p in self.parked.values())}); "
                        f"deaths: {self._deaths_text()}")
                self.cond.wait(min(left, 0.05))

    def _deaths_text(self):
        return "; ".join(f"{n}: {type(e).__name__}: {e}" for n, e in self.deaths) or "none"

    def resume(self, p, value, what):
        """Resume parked thread p with value; wait until it parks again or
        dies. Returns "parked" or "died"."""
        deadline = time.monotonic() + self.timeout
        with self.cond:
            if self.parked.get(p.thread) is not p:
                raise HarnessError(f"{what}: {p!r} is no longer parked")
            p.value = value
            p.resumed = True
            self.cond.notify_all()
            while True:
                cur = self.parked.get(p.thread)
                if cur is not None and cur is not p:
                    return "parked"
                if not p.thread.is_alive():
                    return "died"
                left = deadline - time.monotonic()
                if left <= 0:
                    raise HarnessError(
                        f"{what}: thread {p.thread.name} did not reach a blocking point "
                        f"again within {self.timeout:.0f}s (a busy loop, or a blocking call "
                        f"the harness does not fake)")
                self.cond.wait(min(left, 0.02))

    def close(self):
        """Release every parked thread; each raises _Shutdown and ends."""
        with self.cond:
            self.closed = True
            self.cond.notify_all()


class _Hook:
    """One excepthook for the process: a thread released by a reset ends
    quietly; any other death is recorded by the current controller."""

    current = None
    previous = threading.excepthook

    @staticmethod
    def hook(args):
        if args.exc_type is _Shutdown:
            return
        if _Hook.current is not None:
            _Hook.current._died(args)
        else:
            _Hook.previous(args)


threading.excepthook = _Hook.hook


class _Shutdown(BaseException):
    """Raised in a parked thread when its harness is reset or closed.
    BaseException, so the real code's `except Exception` cannot swallow it."""
