"""The driver end to end on the miniature tree: spec actions in, real threads
and scheduler functions run, spec variables out; the protocol loop; the
probe; exit statuses of python3 -m roomspec_sglang."""

import contextlib
import io
import json
import tempfile
import unittest

from roomspec_sglang.__main__ import serve
from roomspec_sglang.driver import BoundaryError, Refused
from roomspec_sglang.probe import probe
from support import MINITREE, SandboxTest, copy_tree, run_module

ONE = {"rooms": ["r"], "decode_ranks": ["d1", "d2"],
       "requests": [{"room": 0, "incarnation": 1}],
       "required_dst_info_num": 2, "num_chunks": 2}

# Two requests on one room id (room reuse).
REUSE = dict(ONE, requests=[{"room": 0, "incarnation": 1}, {"room": 0, "incarnation": 2}])

INITIAL = {
    "request_status": ["Absent"], "transfer_infos": [[]], "tombstones": [],
    "bootstrap_alive": True, "prefill_crashed": False, "sender": ["NoSender"],
    "wqueue": [], "posted": [False], "outstanding": [0], "ack_target": [[]],
    "chan": [[], []], "ack_chan": [[], []], "ti_sent": [[]], "aborted": [False],
    "pages_released": [[]],
}


def ti(d):
    return {"type": "TransferInfo", "room": 0, "rank": d}


def abort(d):
    return {"type": "ABORT", "room": 0, "rank": d}


# Two decode ranks, two chunks: a request from its sender to its release.
# Each row: action, params, the spec variables it changes.
HAPPY = [
    ("SchedulerCreateSender", [0], {"request_status": ["Bootstrapping"], "sender": ["BootstrapQueue"]}),
    ("DecodeSendTransferInfo", [0, 0], {"chan": [[ti(0)], []], "ti_sent": [[0]]}),
    ("DecodeSendTransferInfo", [1, 0], {"chan": [[ti(0)], [ti(1)]], "ti_sent": [[0, 1]]}),
    ("BootstrapRecvTransferInfo", [1], {"chan": [[ti(0)], []], "transfer_infos": [[1]]}),
    ("BootstrapRecvTransferInfo", [0], {"chan": [[], []], "transfer_infos": [[0, 1]],
                                        "request_status": ["WaitingForInput"]}),
    ("SchedulerPollBootstrap", [0], {"sender": ["WaitingQueue"]}),
    ("SchedulerSend", [0], {"sender": ["InflightQueue"], "wqueue": [{"req": 0, "left": 2}]}),
    ("WorkerPost", [0], {"request_status": ["Transferring"], "wqueue": [{"req": 0, "left": 1}],
                         "posted": [True], "outstanding": [1]}),
    ("WorkerComplete", [0], {"posted": [False], "outstanding": [0]}),
    ("WorkerPost", [0], {"wqueue": [], "posted": [True], "outstanding": [1]}),
    ("WorkerComplete", [0], {"request_status": ["Success"], "posted": [False], "outstanding": [0],
                             "transfer_infos": [[]]}),
    ("SchedulerPollInFlight", [0], {"request_status": ["Absent"], "sender": ["Released"]}),
]


class DriverTest(SandboxTest):

    def run_steps(self, h, steps, state):
        """Apply each step and check the whole observed state: what the row
        names changed, and nothing else."""
        for i, (action, params, changes) in enumerate(steps):
            with self.subTest(step=i + 1, action=action):
                h.apply(action, params)
                state = dict(state, **changes)
                self.assertEqual(h.observe(), state)
        return state

    def test_reset_observes_the_initial_state(self):
        h = self.harness()
        h.reset(ONE)
        self.assertEqual(h.observe(), INITIAL)
        # one bootstrap thread and one worker per FastQueue, all parked
        self.assertEqual(len(h.queues), 2)
        self.assertEqual(len(h.controller.find("recv")), 1)
        self.assertEqual(len(h.controller.find("queue")), 2)
        self.assertEqual(sorted(h.time_readers), ["sglang.srt.disaggregation.common.conn",
                                                  "sglang.srt.disaggregation.nixl.conn"])
        # both decode ranks registered with the real bootstrap thread
        self.assertEqual(sorted(h.mgr.decode_kv_args_table), ["decode-0", "decode-1"])

    def test_happy_path(self):
        h = self.harness()
        h.reset(ONE)
        self.run_steps(h, HAPPY[:7], INITIAL)
        h.apply(*HAPPY[7][:2])
        # the real worker posted the first chunk's writes to both ranks
        (x,) = h.controller.find("xfer")
        self.assertEqual(x.key, ("1000_kv_0_0_0", "1000_kv_0_0_0"))
        h.apply(*HAPPY[8][:2])
        h.apply(*HAPPY[9][:2])
        (x,) = h.controller.find("xfer")
        self.assertEqual(x.key, ("1000_kv_1_1_0", "1000_aux", "1000_kv_1_1_0", "1000_aux"))

    def test_happy_path_states(self):
        h = self.harness()
        h.reset(ONE)
        self.run_steps(h, HAPPY, INITIAL)
        self.assertEqual(type(h.reqs[0].finished_reason).__name__, "FINISH_LENGTH")

    def test_reset_starts_over(self):
        h = self.harness()
        h.reset(ONE)
        self.run_steps(h, HAPPY[:8], INITIAL)
        old = h.controller
        h.reset(ONE)
        self.assertTrue(old.closed)
        self.assertEqual(h.observe(), INITIAL)
        self.run_steps(h, HAPPY, INITIAL)

    def test_refused_actions_change_nothing(self):
        h = self.harness()
        h.reset(ONE)
        cases = [
            ("SchedulerPollBootstrap", [0], "not in the bootstrap queue"),
            ("SchedulerSend", [0], "not in the waiting queue"),
            ("SchedulerPollInFlight", [0], "not in the in-flight queue"),
            ("BootstrapRecvAbort", [0], "the head of rank 0's connection is not a ABORT"),
            ("BootstrapRecvTransferInfo", [1], "is not a TransferInfo"),
            ("WorkerPost", [0], "no worker's queue has a chunk of this request"),
            ("WorkerComplete", [0], "no write of this request is in progress"),
            ("DecodeRecvAbortAck", [0], "no ABORT_ACK"),
            ("BootstrapTimeout", [0], "no bootstrap timeout"),
        ]
        for action, params, why in cases:
            with self.subTest(action):
                with self.assertRaises(Refused) as cm:
                    h.apply(action, params)
                self.assertIn(why, str(cm.exception))
                self.assertEqual(h.observe(), INITIAL)
        h.apply("SchedulerCreateSender", [0])
        after = h.observe()
        for action, params, why in [
            ("SchedulerCreateSender", [0], "the sender exists"),
            ("SchedulerPollBootstrap", [0], "the poll reads Bootstrapping"),
        ]:
            with self.subTest(action):
                with self.assertRaises(Refused) as cm:
                    h.apply(action, params)
                self.assertIn(why, str(cm.exception))
                self.assertEqual(h.observe(), after)
        h.apply("DecodeAbort", [0])
        with self.assertRaises(Refused):
            h.apply("DecodeAbort", [0])

    def test_unknown_action_is_a_protocol_boundary(self):
        h = self.harness()
        h.reset(ONE)
        with self.assertRaises(BoundaryError) as cm:
            h.apply("SchedulerDance", [0])
        self.assertEqual(cm.exception.boundary, "protocol")

    def test_abort_in_the_bootstrap_queue_clears_the_room(self):
        # Issue 12, finding 1: the bootstrap failure's failure_exception()
        # clears the room: Absent, not Failed.
        h = self.harness()
        h.reset(ONE)
        self.run_steps(h, [
            ("SchedulerCreateSender", [0], {"request_status": ["Bootstrapping"], "sender": ["BootstrapQueue"]}),
            ("DecodeAbort", [0], {"chan": [[abort(0)], [abort(1)]], "aborted": [True],
                                  "pages_released": [[0, 1]]}),
            ("BootstrapRecvAbort", [0], {"chan": [[], [abort(1)]], "request_status": ["Failed"]}),
            ("SchedulerPollBootstrap", [0], {"request_status": ["Absent"], "sender": ["Released"]}),
            ("BootstrapRecvAbort", [1], {"chan": [[], []]}),
        ], INITIAL)
        self.assertEqual(type(h.reqs[0].finished_reason).__name__, "FINISH_ABORT")

    def test_bootstrap_timeout(self):
        h = self.harness()
        h.reset(ONE)
        h.apply("SchedulerCreateSender", [0])
        now = h.clock.time()
        h.apply("BootstrapTimeout", [0])
        st = h.observe()
        self.assertEqual((st["request_status"], st["sender"]), (["Absent"], ["Released"]))
        self.assertIsNone(h.clock.override)
        self.assertEqual(h.clock.time(), now)

    def test_unexpected_status_crashes_prefill(self):
        # Room reuse: the first request's Success is what the second one's
        # sender reads in the bootstrap queue; the real code raises.
        h = self.harness()
        h.reset(REUSE)
        h.apply("SchedulerCreateSender", [0])
        for d in (0, 1):
            h.apply("DecodeSendTransferInfo", [d, 0])
            h.apply("BootstrapRecvTransferInfo", [d])
        for action in ("SchedulerPollBootstrap", "SchedulerSend", "WorkerPost", "WorkerComplete",
                       "WorkerPost", "WorkerComplete"):
            h.apply(action, [0])
        h.apply("SchedulerCreateSender", [1])
        self.assertFalse(h.observe()["prefill_crashed"])
        h.apply("SchedulerPollBootstrap", [1])
        self.assertTrue(h.observe()["prefill_crashed"])
        self.assertIn("RuntimeError: Unexpected poll state 4", h.crashed)
        with self.assertRaises(Refused) as cm:
            h.apply("SchedulerPollInFlight", [0])
        self.assertIn("prefill crashed", str(cm.exception))
        h.apply("DecodeAbort", [0])  # the environment still moves

    def test_deferred_ack(self):
        h = self.harness(env={"SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE": "1"})
        h.reset(ONE)
        self.assertTrue(h.deferred_release())
        ack = {"type": "ABORT_ACK", "room": 0, "rank": 0}
        self.run_steps(h, [
            ("SchedulerCreateSender", [0], {"request_status": ["Bootstrapping"], "sender": ["BootstrapQueue"]}),
            ("DecodeAbort", [0], {"chan": [[abort(0)], [abort(1)]], "aborted": [True]}),
            ("BootstrapRecvAbort", [0], {"chan": [[], [abort(1)]], "request_status": ["Failed"],
                                         "ack_chan": [[ack], []]}),
            ("DecodeRecvAbortAck", [0], {"ack_chan": [[], []], "pages_released": [[0]]}),
            ("BootstrapRecvAbort", [1], {"chan": [[], []], "ack_chan": [[], [dict(ack, rank=1)]]}),
            ("DecodeRecvAbortAck", [1], {"ack_chan": [[], []], "pages_released": [[0, 1]]}),
        ], INITIAL)


class ProtocolTest(SandboxTest):

    def serve(self, lines):
        h = self.harness()
        out = io.StringIO()
        self.stderr = io.StringIO()
        with contextlib.redirect_stderr(self.stderr):
            code = serve(h, io.StringIO("".join(json.dumps(x) + "\n" if not isinstance(x, str) else x
                                                for x in lines)), out)
        return code, [json.loads(line) for line in out.getvalue().splitlines()]

    def test_a_session(self):
        code, replies = self.serve([
            {"op": "reset", "config": ONE},
            {"op": "apply", "action": "SchedulerCreateSender", "params": [0]},
            "\n",
            {"op": "apply", "action": "SchedulerSend", "params": [0]},
            {"op": "observe"},
            {"op": "dance"},
            {"op": "quit"},
            {"op": "observe"},  # after quit: not read
        ])
        self.assertEqual(code, 0)
        self.assertEqual(replies[:3], [{"ok": True}, {"ok": True},
                                       {"ok": False, "error": "not in the waiting queue"}])
        self.assertEqual(replies[3]["state"], dict(INITIAL, request_status=["Bootstrapping"],
                                                   sender=["BootstrapQueue"]))
        self.assertEqual(replies[4], {"ok": False, "error": "unknown op 'dance'"})
        self.assertEqual(replies[5], {"ok": True})
        self.assertEqual(len(replies), 6)

    def test_end_of_input(self):
        code, replies = self.serve([{"op": "reset", "config": ONE}])
        self.assertEqual((code, replies), (0, [{"ok": True}]))

    def test_bad_line(self):
        code, replies = self.serve([{"op": "reset", "config": ONE}, "{not json\n", {"op": "quit"}])
        self.assertEqual((code, replies), (2, [{"ok": True}]))
        self.assertIn("roomspec_sglang: bad request line: Expecting property name", self.stderr.getvalue())


# The minitree's ingredients: those of spec/sglang-35360.cfg.
MINITREE_SWITCHES = {
    "AbortAckSent": False, "AbortKillsBootstrap": False, "AbortPopsTransferInfos": False,
    "AbortSparesSuccess": True, "AbsentReadsWaiting": True, "AckOnDrain": False,
    "CountsAtDequeue": True, "CountsOutstanding": True, "FailedSticky": True,
    "FailureClears": True, "HasBootstrapTimeout": True, "InflightBootstrappingRaises": True,
}

NIXL = "nixl/conn.py"
PREFILL = "prefill.py"
COUNT = ("                if not chunk.counted:\n"
         "                    self._staging_outstanding[room] += 1\n"
         "                    chunk.counted = True\n")
CHECKED = "                assert room in self.transfer_infos, f\"room {room} has no transfer infos\"\n"

# Each row: a change to the minitree, and the switches the probe must then
# find different.
PROBE_CASES = [
    ("first ABORT kills the bootstrap thread", {NIXL: [('if msg[0] == b"ABORT":', 'if msg[0] == b"-":')]},
     {"AbortKillsBootstrap": True, "AbortSparesSuccess": True}),
    ("no bootstrap timeout", {NIXL: [("        self.init_time = time.time()\n", "")]},
     {"HasBootstrapTimeout": False}),
    ("absent room raises KeyError", {NIXL: [(
        "return self.request_status.get(bootstrap_room, KVPoll.WaitingForInput)",
        "return self.request_status[bootstrap_room]")]},
     {"AbsentReadsWaiting": False}),
    ("Failed not sticky", {NIXL: [(
        "if self.request_status.get(bootstrap_room) == KVPoll.Failed:", "if False:")]},
     {"FailedSticky": False}),
    ("bootstrap failure keeps the room", {PREFILL: [(
        "        try:\n            req.disagg_kv_sender.failure_exception()\n        except Exception as e:\n"
        "            message",
        "        try:\n            pass\n        except Exception as e:\n            message")]},
     {"FailureClears": False}),
    ("ABORT fails a Success", {NIXL: [(
        "active = room in self.request_status and self.check_status(room) != KVPoll.Success",
        "active = room in self.request_status")]},
     {"AbortSparesSuccess": False}),
    ("ABORT pops transfer infos", {NIXL: [(
        "        room, ip, port = int(msg[1]), msg[2].decode(), int(msg[3])\n",
        "        room, ip, port = int(msg[1]), msg[2].decode(), int(msg[3])\n"
        "        self.transfer_infos.pop(room, None)\n")]},
     {"AbortPopsTransferInfos": True}),
    ("Bootstrapping in flight waits", {PREFILL: [(
        "if poll in (KVPoll.WaitingForInput, KVPoll.Transferring):",
        "if poll in (KVPoll.Bootstrapping, KVPoll.WaitingForInput, KVPoll.Transferring):")]},
     {"InflightBootstrappingRaises": False}),
    ("chunks not counted", {NIXL: [(COUNT, ""), ("self._staging_outstanding[room] -= 1", "pass")]},
     {"CountsOutstanding": False, "CountsAtDequeue": False}),
    ("counted after the checks", {NIXL: [(COUNT, ""), (CHECKED, CHECKED + COUNT)]},
     {"CountsAtDequeue": False}),
]


class ProbeTest(SandboxTest):

    def test_minitree_in_process(self):
        got = probe(self.harness())
        self.assertEqual({k: got[k] for k in MINITREE_SWITCHES}, MINITREE_SWITCHES)
        self.assertTrue(got["deferred_ack_available"])

    def test_finds_each_ingredient(self):
        base = dict(MINITREE_SWITCHES, deferred_ack_available=True)
        for name, changes, want in PROBE_CASES:
            with self.subTest(name):
                code, out, err = run_module("--sglang", copy_tree(self, changes), "--probe")
                self.assertEqual(code, 0, err)
                got = json.loads(out)
                del got["time_readers"]
                self.assertEqual(got, dict(base, **want))

    def test_deferred_release_switched_on(self):
        code, out, err = run_module("--sglang", MINITREE, "--probe",
                                    "--env", "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1")
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertEqual((got["AckOnDrain"], got["AbortAckSent"]), (True, True))
        self.assertEqual(got["time_readers"], ["sglang.srt.disaggregation.common.conn",
                                               "sglang.srt.disaggregation.nixl.conn"])


class ExitTest(unittest.TestCase):
    """python3 -m roomspec_sglang: exit statuses and messages."""

    def assertExit(self, want, args, stdin="", contains=()):
        code, out, err = run_module(*args, stdin=stdin)
        self.assertEqual(code, want, f"stderr: {err}")
        for text in contains:
            self.assertIn(text, err)
        self.assertNotIn("Traceback", err)
        return out, err

    def test_serves_the_minitree(self):
        lines = "".join(json.dumps(x) + "\n" for x in [
            {"op": "reset", "config": ONE},
            *({"op": "apply", "action": a, "params": p} for a, p, _ in HAPPY),
            {"op": "observe"}, {"op": "quit"}])
        out, _ = self.assertExit(0, ["--sglang", MINITREE], stdin=lines)
        replies = [json.loads(line) for line in out.splitlines()]
        self.assertEqual(len(replies), len(HAPPY) + 3)
        self.assertTrue(all(r["ok"] for r in replies), replies)
        self.assertEqual(replies[-2]["state"]["sender"], ["Released"])

    def test_no_sglang_here(self):
        with tempfile.TemporaryDirectory() as root:
            self.assertExit(2, ["--sglang", root, "--probe"],
                            contains=["does not hold SGLang's Python sources"])

    def test_bad_arguments(self):
        self.assertExit(2, ["--probe"], contains=["--sglang"])
        self.assertExit(2, ["--sglang", MINITREE, "--env", "NO_EQUALS_SIGN"],
                        contains=["--env wants KEY=VALUE"])


class BoundaryExitTest(unittest.TestCase):
    """Code that does not fit a boundary: exit 3, the boundary named."""

    def test_boundaries(self):
        cases = [
            ("no FastQueue", {NIXL: [
                ("from sglang.srt.disaggregation.common.utils import FastQueue, TransferKVChunk",
                 "from queue import SimpleQueue\n"
                 "from sglang.srt.disaggregation.common.utils import TransferKVChunk"),
                ("FastQueue() for _", "SimpleQueue() for _")]},
             "boundary transfer queues: nixl/conn.py does not build its queues from FastQueue"),
            ("no sender class", {NIXL: [("class NixlKVSender(", "class NixlSender(")]},
             "boundary loading: nixl/conn.py has no NixlKVSender"),
            ("manager signature", {NIXL: [(
                "def __init__(self, args, disaggregation_mode, server_args, is_mla_backend=False):\n"
                "        super().__init__(",
                "def __init__(self, args, disaggregation_mode, server_args, is_mla_backend, pool):\n"
                "        super().__init__(")]},
             "boundary manager construction: NixlKVManager(...) raised TypeError"),
            ("registration frames", {NIXL: [("ptrs(msg[6]))", "ptrs(msg[60]))")]},
             "boundary decode registration: the bootstrap thread died on registration of decode rank 0"),
            ("a worker that never parks", {NIXL: [(
                "                self.update_status(room, KVPoll.Transferring)\n",
                "                self.update_status(room, KVPoll.Transferring)\n"
                "                while True:\n                    time.sleep(0)\n")]},
             "did not reach a blocking point again within 1s"),
        ]
        for name, changes, message in cases:
            with self.subTest(name):
                # a short timeout only where the test waits for it
                timeout = "1" if "never parks" in name else "10"
                code, out, err = run_module("--sglang", copy_tree(self, changes), "--probe",
                                            "--timeout", timeout)
                self.assertEqual(code, 3, err)
                self.assertIn(message, err)
                self.assertNotIn("Traceback", err)
                self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()
