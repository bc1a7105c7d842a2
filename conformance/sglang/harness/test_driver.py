"""The driver end to end on SGLang's real tree (support.TREE): spec actions in, real threads
and scheduler functions run, spec variables out; the protocol loop; the
probe; exit statuses of python3 -m roomspec_sglang."""

import contextlib
import io
import json
import tempfile
import unittest

from roomspec_sglang.__main__ import serve
from roomspec_sglang.driver import BoundaryError, ConfigMismatch, Refused
from roomspec_sglang.probe import probe
from support import TREE, NO_TREE, SandboxTest, copy_tree, needs_tree, run_module

ONE = {"rooms": ["r"], "decode_ranks": ["d1", "d2"],
       "requests": [{"room": 0, "incarnation": 1}],
       "required_dst_info_num": 2, "num_chunks": 2, "bootstrap_timeout": 300}

# Two requests on one room id (room reuse).
REUSE = dict(ONE, requests=[{"room": 0, "incarnation": 1}, {"room": 0, "incarnation": 2}])

INITIAL = {
    "request_status": ["Absent"], "transfer_infos": [[]], "tombstones": [],
    "bootstrap_alive": True, "prefill_crashed": False, "sender": ["NoSender"],
    "wqueue": [], "posted": [False], "elapsed": [0], "kv_held": [False], "kv_frees": [0],
    "outstanding": [0], "ack_target": [[]],
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
    ("SchedulerPollBootstrap", [], {"sender": ["WaitingQueue"]}),
    ("SchedulerSend", [0], {"sender": ["InflightQueue"], "wqueue": [{"req": 0, "left": 2}],
                            "kv_held": [True]}),
    ("WorkerPost", [0], {"request_status": ["Transferring"], "wqueue": [{"req": 0, "left": 1}],
                         "posted": [True], "outstanding": [1]}),
    ("WorkerComplete", [0], {"posted": [False], "outstanding": [0]}),
    ("WorkerPost", [0], {"wqueue": [], "posted": [True], "outstanding": [1]}),
    ("WorkerComplete", [0], {"request_status": ["Success"], "posted": [False], "outstanding": [0],
                             "transfer_infos": [[]]}),
    ("SchedulerPollInFlight", [], {"request_status": ["Absent"], "sender": ["Released"],
                                   "kv_held": [False], "kv_frees": [1]}),
]


_ingredients = None


def ingredients():
    """The probe of the unchanged tree (in a child process, once): tests of
    an ingredient the tree's commit does not have skip."""
    global _ingredients
    if _ingredients is None:
        code, out, err = run_module("--sglang", TREE, "--probe")
        if code != 0:
            raise AssertionError(f"probe of {TREE}: exit {code}: {err}")
        _ingredients = json.loads(out)
    return _ingredients


@needs_tree
class DriverTest(SandboxTest):

    def requires(self, ingredient):
        if not ingredients()[ingredient]:
            self.skipTest(f"this tree's commit has no {ingredient}")

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
        self.assertGreater(len(h.queues), 0)
        self.assertEqual(len(h.controller.find("recv")), 1)
        self.assertEqual(len(h.controller.find("queue")), len(h.queues))
        # the modules that read the clock, the faked one among them
        for m in ("sglang.srt.disaggregation.common.conn", "sglang.srt.disaggregation.nixl.conn"):
            self.assertIn(m, h.time_readers)
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
        # the client got one answer, the metadata buffer went back once
        self.assertEqual(h.client.answers, {"req-0": ["FINISH_LENGTH"]})
        self.assertEqual(h.client.meta_frees, {h.client.meta_of["req-0"]: 1})
        self.assertEqual(h.client.set_bufs, {"req-0": [True]})

    def test_release_without_an_answer_is_sglangs_finding(self):
        # The in-flight pass lets a Success request go but never streams it
        # (done_reqs.append deleted): the client waits forever. The spec's
        # variables cannot show it; the client boundary does, at the step
        # (the release, or the send that leaves the gate open).
        cases = [
            ("no answer", "done_reqs.append(req)\n                req.time_stats.set_prefill_kv_transfer_finish_time()",
             "req.time_stats.set_prefill_kv_transfer_finish_time()", "without an answer to the client"),
            ("metadata kept", "            maybe_release_metadata_buffer(\n                req, self.req_to_metadata_buffer_idx_allocator\n            )",
             "            pass", "metadata buffer"),
            ("no finish reason", "                    req.finished_reason = FINISH_LENGTH(length=0)",
             "                    pass", "answering None for a room that read Success"),
            ("metadata set with a non-last chunk", "        if last_chunk:\n            self.disagg_metadata_buffers.set_buf(req)",
             "        if not last_chunk:\n            self.disagg_metadata_buffers.set_buf(req)",
             "with its metadata buffer set [False]"),
            ("chunk ids", "nixl/conn.py", "        self.chunk_id += 1\n", "        pass\n",
             "KV chunks (id, last)"),
            ("gate not told", "            self.disagg_prefill_pending_chunk_rids.add(req.rid)", "            pass",
             "without its rid in the pending-chunk set"),
            # the worker stops waiting for the aux write: Success before
            # decode has the metadata
            ("aux not waited for", "nixl/conn.py", "                        handles.append(aux_xfer_handle)\n",
             "                        pass\n", "0 aux writes reached decode"),
            ("counter kept", "nixl/conn.py",
             "                    self._staging_outstanding.pop(room, None)\n                    self.transfer_infos.pop(",
             "                    self.transfer_infos.pop(", "_staging_outstanding with no chunk of it"),
        ]
        for case in cases:
            name, path, old, new, message = case if len(case) == 5 else (case[0], "prefill.py") + case[1:]
            with self.subTest(name):
                # in a child: one process loads one tree
                lines = "".join(json.dumps(x) + "\n" for x in [
                    {"op": "reset", "config": ONE},
                    *({"op": "apply", "action": a, "params": p} for a, p, _ in HAPPY),
                    {"op": "quit"}])
                code, out, err = run_module("--sglang", copy_tree(self, {path: [(old, new)]}),
                                            stdin=lines)
                self.assertEqual(code, 0, err)
                replies = [json.loads(line) for line in out.splitlines()]
                bad = [r["error"] for r in replies if not r["ok"]]
                self.assertTrue(bad, replies)
                self.assertTrue(bad[0].startswith("real effect: SGLang "), bad[0])
                self.assertIn(message, bad[0])

    def test_reset_starts_over(self):
        h = self.harness()
        h.reset(ONE)
        self.run_steps(h, HAPPY[:8], INITIAL)
        old = h.controller
        h.reset(ONE)
        self.assertTrue(old.closed)
        self.assertEqual(h.observe(), INITIAL)
        self.run_steps(h, HAPPY, INITIAL)

    def test_no_compaction_gate_before_it_existed(self):
        # A commit before PR #33362 has no pending-chunk set to keep: its
        # sends are not judged by that set's rules (history ran every
        # commit before it into "SGLang sent non-last chunks ... without
        # its rid in the pending-chunk set").
        tree = copy_tree(self, {"prefill.py": [
            ("clear_pending_chunk_send", "forget_pending_chunk_send"),
            ("            self.disagg_prefill_pending_chunk_rids.add(req.rid)", "            pass")]})
        lines = "".join(json.dumps(x) + "\n" for x in [
            {"op": "reset", "config": ONE},
            *({"op": "apply", "action": a, "params": p} for a, p, _ in HAPPY),
            {"op": "quit"}])
        code, out, err = run_module("--sglang", tree, stdin=lines)
        self.assertEqual(code, 0, err)
        self.assertEqual([r["error"] for r in map(json.loads, out.splitlines()) if not r["ok"]], [])

    def test_writes_fill_the_pages_of_the_transfer_info_held(self):
        # Room reuse: request 2's chunk is written with the TransferInfos
        # the room holds, request 1's (decode aborted it and freed those
        # pages); what lands is request 1's, whatever prefill answers
        # request 2.
        h = self.harness()
        h.reset(REUSE)
        for d in range(2):
            h.apply("DecodeSendTransferInfo", [d, 0])
            h.apply("BootstrapRecvTransferInfo", [d])
        for action, params in [("SchedulerCreateSender", [1]), ("SchedulerPollBootstrap", []),
                               ("SchedulerSend", [1]), ("WorkerPost", [1])]:
            h.apply(action, params)
        self.assertEqual(list(h.destination.values()), [[0]])
        h.apply("WorkerComplete", [1])
        self.assertEqual(sorted(h.client.writes), ["req-0"])

    def test_refused_actions_change_nothing(self):
        h = self.harness()
        h.reset(ONE)
        cases = [
            ("SchedulerPollBootstrap", [], "the bootstrap-queue pass moved no request (empty)"),
            ("SchedulerSend", [0], "not in the waiting queue"),
            ("SchedulerPollInFlight", [], "the in-flight pass moved no request (empty)"),
            ("BootstrapRecvAbort", [0], "the head of rank 0's connection is not a ABORT"),
            ("BootstrapRecvTransferInfo", [1], "is not a TransferInfo"),
            ("WorkerPost", [0], "no worker's queue has a chunk of this request"),
            ("WorkerComplete", [0], "no write of this request is in progress"),
            ("DecodeRecvAbortAck", [0], "no ABORT_ACK"),
            ("Tick", [0], "the scheduler does not hold this request"),
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
            ("SchedulerPollBootstrap", [], "the bootstrap-queue pass moved no request (req-0: Bootstrapping)"),
        ]:
            with self.subTest(action):
                with self.assertRaises(Refused) as cm:
                    h.apply(action, params)
                self.assertIn(why, str(cm.exception))
                self.assertEqual(h.observe(), after)
        # Bootstrapped: no poll of it reads the clock any more, so the
        # clock does not move for it (the spec's Tick needs Bootstrapping).
        for d in range(2):
            h.apply("DecodeSendTransferInfo", [d, 0])
            h.apply("BootstrapRecvTransferInfo", [d])
        after = h.observe()
        for action, params, why in [
            ("Tick", [0], "its room reads WaitingForInput: no poll of it reads the clock"),
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

    def test_a_pass_that_moves_nothing(self):
        # While the transfer runs, SGLang's event loop keeps polling the
        # in-flight queue: the pass keeps the request (prefill.py:880-882)
        # and the harness refuses it as a step (nothing moved). A pass that
        # drops it (undone_reqs.append deleted) lets it go with no answer
        # and its KV pages held: the client boundary says so, and the
        # state shows it released.
        lines = "".join(json.dumps(x) + "\n" for x in [
            {"op": "reset", "config": ONE},
            *({"op": "apply", "action": a, "params": p} for a, p, _ in HAPPY[:8]),
            {"op": "apply", "action": "SchedulerPollInFlight", "params": []},
            {"op": "observe"}, {"op": "quit"}])
        code, out, err = run_module("--sglang", TREE, stdin=lines)
        self.assertEqual(code, 0, err)
        replies = [json.loads(line) for line in out.splitlines()]
        self.assertTrue(all(r["ok"] for r in replies[:9]), replies)
        self.assertIn("moved no request", replies[9]["error"])
        self.assertEqual(replies[-2]["state"]["sender"], ["InflightQueue"])
        old = "undone_reqs.append(req)\n            elif poll == KVPoll.Success:"
        code, out, err = run_module("--sglang", copy_tree(self, {"prefill.py": [
            (old, "pass\n            elif poll == KVPoll.Success:")]}), stdin=lines)
        self.assertEqual(code, 0, err)
        replies = [json.loads(line) for line in out.splitlines()]
        self.assertFalse(replies[9]["ok"], replies)
        self.assertIn("without an answer to the client", replies[9]["error"])
        self.assertEqual(replies[-2]["state"]["sender"], ["Released"])

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
            ("SchedulerPollBootstrap", [], {"request_status": ["Absent"], "sender": ["Released"]}),
            ("BootstrapRecvAbort", [1], {"chan": [[], []]}),
        ], INITIAL)
        # a request failed in the bootstrap queue never had KV pages
        self.assertEqual(h.pool.events, [])
        self.assertEqual(type(h.reqs[0].finished_reason).__name__, "FINISH_ABORT")
        self.assertEqual(h.client.answers, {"req-0": ["FINISH_ABORT"]})

    def test_bootstrap_timeout(self):
        # The clock moves to one second before the timeout expires (the
        # pass keeps the request), then to the instant it expires (the same
        # pass fails it and clears the room).
        self.requires("HasBootstrapTimeout")
        h = self.harness()
        h.reset(ONE)
        start = h.clock.time()
        self.run_steps(h, [
            ("SchedulerCreateSender", [0], {"request_status": ["Bootstrapping"], "sender": ["BootstrapQueue"]}),
            ("Tick", [0], {"elapsed": [299]}),
        ], INITIAL)
        self.assertEqual(h.clock.time(), start + 299)
        with self.assertRaises(Refused):
            h.apply("SchedulerPollBootstrap", [])
        h.apply("Tick", [0])
        self.assertEqual(h.observe()["elapsed"], [300])
        with self.assertRaises(Refused) as cm:
            h.apply("Tick", [0])
        self.assertIn("expired", str(cm.exception))
        h.apply("SchedulerPollBootstrap", [])
        st = h.observe()
        self.assertEqual((st["request_status"], st["sender"], st["elapsed"]), (["Absent"], ["Released"], [0]))

    def test_timeout_is_the_codes(self):
        # The configuration's timeout is checked against the code's own.
        self.requires("HasBootstrapTimeout")
        h = self.harness()
        with self.assertRaises(ConfigMismatch) as cm:
            h.reset(dict(ONE, bootstrap_timeout=200))
        self.assertIn("the code's bootstrap timeout is 300 s", str(cm.exception))
        self.assertIn("default 300 in environ.py", str(cm.exception))
        self.assertIn("BootstrapTimeoutSecs is 200", str(cm.exception))

    def test_unexpected_status_crashes_prefill(self):
        # Room reuse: the first request's Success is what the second one's
        # sender reads in the bootstrap queue; the real code raises.
        h = self.harness()
        h.reset(REUSE)
        h.apply("SchedulerCreateSender", [0])
        for d in (0, 1):
            h.apply("DecodeSendTransferInfo", [d, 0])
            h.apply("BootstrapRecvTransferInfo", [d])
        h.apply("SchedulerPollBootstrap", [])
        for action in ("SchedulerSend", "WorkerPost", "WorkerComplete", "WorkerPost", "WorkerComplete"):
            h.apply(action, [0])
        h.apply("SchedulerCreateSender", [1])
        self.assertFalse(h.observe()["prefill_crashed"])
        h.apply("SchedulerPollBootstrap", [])
        self.assertTrue(h.observe()["prefill_crashed"])
        self.assertIn("RuntimeError: Unexpected poll state 4", h.crashed)
        self.assertIn("(at sglang/srt/disaggregation/prefill.py:", h.crashed)
        with self.assertRaises(Refused) as cm:
            h.apply("SchedulerPollInFlight", [])
        self.assertIn("prefill crashed", str(cm.exception))
        h.apply("DecodeAbort", [0])  # the environment still moves

    def test_deferred_ack(self):
        self.requires("deferred_ack_available")
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


@needs_tree
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
            # the bootstrap pass, which moves no request: refused
            {"op": "apply", "action": "SchedulerPollBootstrap", "params": []},
            {"op": "observe"},
            {"op": "dance"},
            {"op": "quit"},
            {"op": "observe"},  # after quit: not read
        ])
        self.assertEqual(code, 0)
        self.assertEqual(replies[:3], [{"ok": True}, {"ok": True},
                                       {"ok": False, "error": "not in the waiting queue"}])
        self.assertFalse(replies[3]["ok"])
        self.assertIn("moved no request", replies[3]["error"])
        self.assertEqual(replies[4]["state"], dict(INITIAL, request_status=["Bootstrapping"],
                                                   sender=["BootstrapQueue"]))
        self.assertEqual(replies[5], {"ok": False, "error": "unknown op 'dance'"})
        self.assertEqual(replies[6], {"ok": True})
        self.assertEqual(len(replies), 7)

    def test_end_of_input(self):
        code, replies = self.serve([{"op": "reset", "config": ONE}])
        self.assertEqual((code, replies), (0, [{"ok": True}]))

    def test_bad_line(self):
        code, replies = self.serve([{"op": "reset", "config": ONE}, "{not json\n", {"op": "quit"}])
        self.assertEqual((code, replies), (2, [{"ok": True}]))
        self.assertIn("roomspec_sglang: bad request line: Expecting property name", self.stderr.getvalue())


NIXL = "nixl/conn.py"
PREFILL = "prefill.py"
COUNT = ("                if not kv_chunk.staging_counted:\n"
         "                    self._staging_outstanding[room] += 1\n"
         "                    kv_chunk.staging_counted = True\n")
CHECKED = "                assert room in self.transfer_infos\n"

# Each row: a change to SGLang's code (written for adca19c4, whose
# ingredients are those of spec/sglang-35360.cfg), and the switches the
# probe must then find different from the unchanged tree's.
PROBE_CASES = [
    ("first ABORT kills the bootstrap thread", {NIXL: [('if not msg or msg[0] != b"ABORT":', 'if True:')]},
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
        "req.disagg_kv_sender.failure_exception()", "pass")]},
     {"FailureClears": False}),
    ("ABORT fails a Success", {NIXL: [(
        "            room_to_be_aborted in self.request_status\n"
        "            and self.check_status(room_to_be_aborted) != KVPoll.Success\n",
        "            room_to_be_aborted in self.request_status\n")]},
     {"AbortSparesSuccess": False}),
    ("ABORT pops transfer infos", {NIXL: [(
        "        room_active = (\n",
        "        self.transfer_infos.pop(room_to_be_aborted, None)\n        room_active = (\n")]},
     {"AbortPopsTransferInfos": True}),
    ("Bootstrapping in flight waits", {PREFILL: [(
        "if poll in [KVPoll.WaitingForInput, KVPoll.Transferring]:",
        "if poll in [KVPoll.Bootstrapping, KVPoll.WaitingForInput, KVPoll.Transferring]:")]},
     {"InflightBootstrappingRaises": False}),
    ("chunks not counted", {NIXL: [(COUNT, ""), ("self._staging_outstanding[room] -= 1", "pass")]},
     {"CountsOutstanding": False, "CountsAtDequeue": False}),
    ("counted after the checks", {NIXL: [(COUNT, ""), (CHECKED, CHECKED + COUNT)]},
     {"CountsAtDequeue": False}),
]


@needs_tree
class ProbeTest(SandboxTest):

    def unchanged(self):
        """The probe of the unchanged tree, without its time readers."""
        got = dict(ingredients())
        del got["time_readers"]
        return got

    def test_in_process_as_in_a_child(self):
        got = probe(self.harness())
        del got["time_readers"]
        self.assertEqual(got, self.unchanged())

    def test_finds_each_ingredient(self):
        base = self.unchanged()
        for name, changes, want in PROBE_CASES:
            with self.subTest(name):
                code, out, err = run_module("--sglang", copy_tree(self, changes), "--probe")
                self.assertEqual(code, 0, err)
                got = json.loads(out)
                del got["time_readers"]
                self.assertEqual(got, dict(base, **want))

    def test_deferred_release_switched_on(self):
        if not self.unchanged()["deferred_ack_available"]:
            self.skipTest("this tree has no deferred decode-side release")
        code, out, err = run_module("--sglang", TREE, "--probe",
                                    "--env", "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1")
        self.assertEqual(code, 0, err)
        got = json.loads(out)
        self.assertEqual((got["AckOnDrain"], got["AbortAckSent"]), (True, True))
        for m in ("sglang.srt.disaggregation.common.conn", "sglang.srt.disaggregation.nixl.conn"):
            self.assertIn(m, got["time_readers"])


class ExitTest(unittest.TestCase):
    """python3 -m roomspec_sglang: exit statuses and messages."""

    def assertExit(self, want, args, stdin="", contains=()):
        code, out, err = run_module(*args, stdin=stdin)
        self.assertEqual(code, want, f"stderr: {err}")
        for text in contains:
            self.assertIn(text, err)
        self.assertNotIn("Traceback", err)
        return out, err

    @unittest.skipUnless(TREE, NO_TREE)
    def test_serves_sglang(self):
        lines = "".join(json.dumps(x) + "\n" for x in [
            {"op": "reset", "config": ONE},
            *({"op": "apply", "action": a, "params": p} for a, p, _ in HAPPY),
            {"op": "observe"}, {"op": "quit"}])
        out, _ = self.assertExit(0, ["--sglang", TREE], stdin=lines)
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
        with tempfile.TemporaryDirectory() as root:
            self.assertExit(2, ["--sglang", root, "--env", "NO_EQUALS_SIGN"],
                            contains=["--env wants KEY=VALUE"])


@needs_tree
class BoundaryExitTest(unittest.TestCase):
    """Code that does not fit a boundary: exit 3, the boundary named."""

    def test_boundaries(self):
        cases = [
            ("no FastQueue", {NIXL: [
                ("    FastQueue,\n", ""), ("import dataclasses\n", "import dataclasses\nimport queue\n"),
                ("FastQueue", "queue.SimpleQueue")]},
             "boundary transfer queues: nixl/conn.py does not build its queues from FastQueue"),
            ("no sender class", {NIXL: [("class NixlKVSender(", "class NixlSender(")],
                                 "nixl/__init__.py": [("NixlKVSender,", "")]},
             "boundary loading: nixl/conn.py has no NixlKVSender"),
            ("manager signature", {NIXL: [(
                "        is_mla_backend: Optional[bool] = False,\n    ):\n"
                "        super().__init__(args, disaggregation_mode, server_args, is_mla_backend)\n",
                "        is_mla_backend: Optional[bool] = False,\n        pool=None,\n        *, layout,\n    ):\n"
                "        super().__init__(args, disaggregation_mode, server_args, is_mla_backend)\n")]},
             "boundary manager construction: NixlKVManager(...) raised TypeError"),
            ("registration frames", {NIXL: [(
                'dst_kv_ptrs = list(struct.unpack(f"{len(msg[5]) // 8}Q", msg[5]))',
                'dst_kv_ptrs = list(struct.unpack(f"{len(msg[50]) // 8}Q", msg[50]))')]},
             "boundary decode registration: the bootstrap thread died on registration of decode rank 0"),
            # Issue 21: a Failed poll that pop_bootstrapped ignores leaves the
            # request in its queue; the harness's own Refused must not be
            # reported as SGLang's exception, and the poll read Failed.
            ("pop_bootstrapped ignores Failed", {PREFILL: [(
                "            if poll == KVPoll.Failed:\n"
                "                self.scheduler.handle_bootstrap_failure(req)\n",
                "            if poll == KVPoll.Failed:\n"
                "                continue\n")]},
             "probe: FailureClears: SGLang's code did not take the step the probe drives "
             "(the bootstrap-queue pass moved no request (req-0: Failed))"),
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
                self.assertNotIn("raised Refused", err)
                self.assertEqual(out, "")


if __name__ == "__main__":
    unittest.main()
