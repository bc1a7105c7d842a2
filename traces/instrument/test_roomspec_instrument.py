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
                for step in (sched.pop_bootstrapped, sched.run_batch, sched.process_inflight,
                             mgr.transfer_worker_post, mgr.transfer_worker_complete):
                    try:
                        step(7)
                    except P.NotEnabled:
                        pass
            return [json.loads(line) for line in buf.getvalue().splitlines()], sched.queue[7]
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


if __name__ == "__main__":
    unittest.main()
