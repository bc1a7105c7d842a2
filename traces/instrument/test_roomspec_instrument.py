"""Tests of roomspec_instrument against the Python implementation of the variants
(conformance/python/prefill.py). Standard library only:

    python3 -m unittest discover -s traces/instrument
"""

import io
import json
import os
import sys
import unittest

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "conformance", "python"))
sys.path.insert(0, HERE)

import prefill as P  # noqa: E402
import roomspec_instrument as ri  # noqa: E402


def ti(room, agent, required=2):
    return [P.NIXL_MSG_GUARD, str(room).encode(), b"10.0.0.1", b"17000", agent.encode(),
            b"", b"0", str(required).encode(), b"", b"0", b"0"]


class RoomspecInstrumentTest(unittest.TestCase):
    def run_room(self, variant, abort_first):
        buf = io.StringIO()
        ns = [1_700_000_000_000_000_000]

        def clock():
            ns[0] += 1000
            return ns[0]

        log = ri.EventLog(buf, host="h", role="prefill", rank=0, clock=clock)
        undo = ri.instrument(P, log)
        try:
            mgr = P.NixlKVManager(P.VARIANTS[variant], P.Clock(), 1)
            sched = P.Scheduler(mgr)
            if abort_first:
                mgr.pull["c"] = [[b"ABORT", b"7"]]
                mgr.bootstrap_thread_step("c", "ABORT")
            else:
                for agent in ("a", "b"):
                    mgr.pull["c"] = [ti(7, agent)]
                    mgr.bootstrap_thread_step("c", "TransferInfo")
            sched.add(7, 7)
            for _ in range(3):
                for step in (lambda: sched.pop_bootstrapped(), lambda: sched.run_batch(7),
                             lambda: sched.process_inflight(), lambda: mgr.transfer_worker_post(7),
                             lambda: mgr.transfer_worker_complete(7)):
                    try:
                        step()
                    except P.NotEnabled:
                        pass
            return [json.loads(line) for line in buf.getvalue().splitlines()], sched.position(7)
        finally:
            undo()

    def test_healthy_room(self):
        events, queue = self.run_room("upstream", abort_first=False)
        got = [(e["event"], e.get("from"), e.get("to"), e.get("status"), e.get("queue")) for e in events]
        self.assertEqual(got, [
            ("status", "Absent", "WaitingForInput", None, None),
            ("sender_create", None, None, None, None),
            ("poll", None, None, "WaitingForInput", "bootstrap"),
            ("chunk_enqueue", None, None, None, None),
            ("poll", None, None, "WaitingForInput", "inflight"),
            ("status", "WaitingForInput", "Transferring", None, None),
            ("status", "Transferring", "Success", None, None),
            ("poll", None, None, "Success", "inflight"),
            ("clear", None, None, None, None),
        ])
        self.assertEqual(queue, "Released")
        for e in events:
            self.assertEqual((e["host"], e["role"], e["rank"], e["room"]), ("h", "prefill", 0, 7))
            self.assertRegex(e["ts"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")
        self.assertEqual(len({e["ts"] for e in events}), len(events))

    def test_fork_pin_is_visible(self):
        # ABORT before any TransferInfo, then the sender: under the fork the
        # request waits in the bootstrap queue forever.
        events, queue = self.run_room("fork-90a52f44a", abort_first=True)
        got = [(e["event"], e.get("from"), e.get("to"), e.get("status")) for e in events]
        self.assertEqual(got, [
            ("sender_create", None, None, None),
            ("status", "Absent", "Bootstrapping", None),
            ("poll", None, None, "Bootstrapping"),
        ])
        self.assertEqual(queue, "BootstrapQueue")

    def test_fixed_tombstone(self):
        events, queue = self.run_room("fixed", abort_first=True)
        got = [(e["event"], e.get("to"), e.get("status")) for e in events]
        # The bootstrap failure clears the room (failure_exception -> clear).
        self.assertEqual(got, [("sender_create", None, None), ("status", "Failed", None), ("poll", None, "Failed"),
                               ("clear", None, None)])
        self.assertEqual(queue, "Released")

    def test_undo(self):
        orig = P.NixlKVManager.update_status
        undo = ri.instrument(P, ri.EventLog(io.StringIO()))
        self.assertIsNot(P.NixlKVManager.update_status, orig)
        undo()
        self.assertIs(P.NixlKVManager.update_status, orig)


class Mode:
    """DisaggregationMode's shape."""

    def __init__(self, name):
        self.name, self.value = name, name.lower()


def sglang_shaped():
    """Classes with the names and signatures instrument_sglang wraps (no
    behaviour of SGLang's: enough to see which calls are logged)."""
    import types

    class NixlKVManager:
        def __init__(self, args, disaggregation_mode, server_args, is_mla_backend=False):
            self.kv_args, self.request_status, self.transfer_queues = args, {}, []

        def update_status(self, bootstrap_room, status):
            self.request_status[bootstrap_room] = status

        def add_transfer_request(self, bootstrap_room, kv_indices, index_slice, is_last_chunk):
            pass

        def transfer_worker(self, queue):
            pass

    class NixlKVSender:
        def __init__(self, mgr, bootstrap_addr, bootstrap_room, dest_tp_ranks=None, pp_rank=0):
            self.kv_mgr, self.bootstrap_room = mgr, bootstrap_room
            mgr.update_status(bootstrap_room, 1)

        def poll(self):
            return self.kv_mgr.request_status.get(self.bootstrap_room)

        def clear(self):
            self.kv_mgr.request_status.pop(self.bootstrap_room, None)

    class FastQueue:
        def get(self):
            return None

    class PrefillBootstrapQueue:
        def pop_bootstrapped(self):
            return []

    class SchedulerDisaggregationPrefillMixin:
        def process_disagg_prefill_inflight_queue(self):
            return []

    nixl = types.SimpleNamespace(NixlKVManager=NixlKVManager, NixlKVSender=NixlKVSender)
    prefill = types.SimpleNamespace(PrefillBootstrapQueue=PrefillBootstrapQueue,
                                    SchedulerDisaggregationPrefillMixin=SchedulerDisaggregationPrefillMixin)
    return prefill, nixl, types.SimpleNamespace(FastQueue=FastQueue)


def mooncake_shaped():
    """Mooncake's classes as instrument_sglang sees them: a worker that
    takes chunks from a FastQueue, writes through send_kvcache and never
    marks its room Transferring; the last chunk makes it Success."""
    import types

    prefill, _, _ = sglang_shaped()

    class FastQueue:
        def __init__(self, rooms):
            self.items = [types.SimpleNamespace(room=r) for r in rooms]

        def get(self):
            return self.items.pop(0) if self.items else None

    class MooncakeKVManager:
        def __init__(self):
            self.request_status, self.transfer_queues = {}, []

        def update_status(self, bootstrap_room, status):
            self.request_status[bootstrap_room] = status

        def add_transfer_request(self, bootstrap_room, kv_indices, index_slice, is_last_chunk):
            pass

        def send_kvcache(self, session, indices):
            return 0

        def transfer_worker(self, queue, chunks):
            for room, last in chunks:
                queue.get()
                if self.request_status.get(room) in (None, 0):  # absent or Failed: skipped
                    continue
                self.send_kvcache("s", [])
                if last:
                    self.update_status(room, 4)  # Success
            queue.get()  # the next chunk's wait ends the last one's iteration

    class MooncakeKVSender:
        def __init__(self, mgr, bootstrap_addr, bootstrap_room, dest_tp_ranks=None, pp_rank=0):
            self.kv_mgr, self.bootstrap_room = mgr, bootstrap_room

        def poll(self):
            return self.kv_mgr.request_status.get(self.bootstrap_room)

        def clear(self):
            pass

    conn = types.SimpleNamespace(MooncakeKVManager=MooncakeKVManager, MooncakeKVSender=MooncakeKVSender)
    return prefill, conn, types.SimpleNamespace(FastQueue=FastQueue)


class MooncakeTest(unittest.TestCase):
    def test_skips_seen_by_the_writes(self):
        # Mooncake's worker writes no Transferring: a chunk it wrote is
        # known by the write call, a skipped one (room absent or Failed)
        # by its absence.
        prefill, conn, utils = mooncake_shaped()
        buf = io.StringIO()
        undo = ri.instrument_sglang(prefill, conn, utils, ri.EventLog(buf, host="h", rank=0))
        try:
            mgr = conn.MooncakeKVManager()
            mgr.request_status = {1: 2, 3: 0}  # WaitingForInput, Failed
            chunks = [(1, False), (1, True), (2, True), (3, True)]
            mgr.transfer_worker(utils.FastQueue([r for r, _ in chunks]), chunks)
        finally:
            undo()
        events = [json.loads(line) for line in buf.getvalue().splitlines()]
        self.assertEqual([(e["event"], e["room"], e.get("reason")) for e in events],
                         [("status", 1, None), ("chunk_skip", 2, "Failed"), ("chunk_skip", 3, "Failed")])

    def test_another_backend(self):
        import types
        prefill, _, utils = sglang_shaped()
        with self.assertRaisesRegex(ri.InstrumentError, "no KV manager and sender of NIXL or Mooncake"):
            ri.instrument_sglang(prefill, types.SimpleNamespace(MoriKVManager=object), utils,
                                 ri.EventLog(io.StringIO(), host="h", rank=0))


class StartupTest(unittest.TestCase):
    def test_prefill_only(self):
        # At start-up only a manager built in prefill mode logs, with its
        # engine rank; a decode manager in the same process writes nothing.
        prefill, nixl, utils = sglang_shaped()
        buf = io.StringIO()
        log = ri.EventLog(buf, host="h", rank=0)
        undo = ri.instrument_sglang(prefill, nixl, utils, log, prefill_only=True)
        try:
            import types
            dec = nixl.NixlKVManager(types.SimpleNamespace(engine_rank=5), Mode("DECODE"), None)
            dec.update_status(1, 2)
            nixl.NixlKVSender(dec, "addr", 1)
            self.assertEqual(buf.getvalue(), "")
            pre = nixl.NixlKVManager(types.SimpleNamespace(engine_rank=3), Mode("PREFILL"), None)
            pre.update_status(9, 2)
            events = [json.loads(line) for line in buf.getvalue().splitlines()]
            self.assertEqual([(e["event"], e["room"], e["rank"], e["to"]) for e in events],
                             [("status", 9, 3, "WaitingForInput")])
            self.assertEqual(dec.request_status, {1: 1})  # the calls themselves went through
        finally:
            undo()
        self.assertFalse(hasattr(nixl.NixlKVManager.update_status, "__wrapped__"))

    def test_waits_for_complete_modules(self):
        # A module that imports another is in sys.modules, half run, while
        # the other runs: the hook waits until both are complete.
        import tempfile
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        d = tmp.name
        os.makedirs(os.path.join(d, "rspk"))
        open(os.path.join(d, "rspk", "__init__.py"), "w").close()
        with open(os.path.join(d, "rspk", "a.py"), "w") as f:
            f.write("import rspk.b\nX = 1\n")
        with open(os.path.join(d, "rspk", "b.py"), "w") as f:
            f.write("Y = 2\n")
        sys.path.insert(0, d)
        try:
            got = []
            ri._when_imported(("rspk.a", "rspk.b"),
                              lambda mods: got.append((hasattr(mods["rspk.a"], "X"), hasattr(mods["rspk.b"], "Y"))))
            import rspk.a  # noqa: F401
            self.assertEqual(got, [(True, True)])
        finally:
            sys.path.remove(d)

    def test_log_never_raises(self):
        # A log that cannot be written says so once and drops its lines.
        err = io.StringIO()
        saved, sys.stderr = sys.stderr, err
        try:
            log = ri.EventLog("/nonexistent/dir/events.jsonl")
            log.emit("status", 1, **{"from": "Absent", "to": "Failed"})
            log.emit("status", 1, **{"from": "Failed", "to": "Absent"})
        finally:
            sys.stderr = saved
        self.assertEqual(err.getvalue().count("roomspec_instrument: event log"), 1)

    def test_path_log_appends_valid_json(self):
        import tempfile
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        path = os.path.join(tmp.name, "e.jsonl")
        with open(path, "w") as f:
            f.write('{"earlier":1}\n')
        log = ri.EventLog(path, host='h"1', rank=2)
        log.emit("chunk_skip", 7, chunk=0, reason='no "transfer_infos"\n')
        with open(path) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 2)
        e = json.loads(lines[1])
        self.assertEqual((e["host"], e["rank"], e["event"], e["room"], e["chunk"], e["reason"]),
                         ('h"1', 2, "chunk_skip", 7, 0, 'no "transfer_infos"\n'))


if __name__ == "__main__":
    unittest.main()
