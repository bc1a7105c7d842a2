"""The boundary fakes: ZeroMQ, the transfer queues, the NIXL agent, the clock."""

import os
import threading
import time
import unittest

import zmq

from roomspec_sglang import fakes
from roomspec_sglang.park import Controller, HarnessError
from support import SandboxTest

DECODE = {"tcp://10.0.0.1:17000": 0, "tcp://10.0.0.2:17001": 1}


class FakeTest(SandboxTest):

    def setUp(self):
        super().setUp()
        self.ctl = Controller(timeout=5)
        self.addCleanup(self.ctl.close)

    def run_parked(self, name, body):
        """Start body in a thread and wait until it parks."""
        t = threading.Thread(target=body, name=name, daemon=True)
        n = len(self.ctl.parked)
        t.start()
        self.ctl.wait_parked(n + 1, name)
        return t


class ZmqTest(FakeTest):

    def test_pull_parks_push_records_by_rank(self):
        net = fakes.Network(self.ctl, 41000, DECODE)
        mod = fakes.fake_zmq_module(lambda: net)
        self.assertEqual((mod.PULL, mod.PUSH), (zmq.PULL, zmq.PUSH))
        self.assertIs(mod.Again, zmq.Again)
        ctx = mod.Context()
        pull = ctx.socket(mod.PULL)
        pull.setsockopt(mod.RCVHWM, 0)
        self.assertEqual(pull.bind_to_random_port("tcp://10.0.0.100"), 41000)
        self.assertEqual(pull.endpoint, "tcp://10.0.0.100:41000")

        got = []

        def bootstrap():
            while True:
                got.append(pull.recv_multipart())

        self.run_parked("bootstrap", bootstrap)
        (p,) = self.ctl.find("recv")
        self.assertEqual(p.key, "tcp://10.0.0.100:41000")
        self.assertEqual(self.ctl.resume(p, [b"ABORT", b"1000"], "abort"), "parked")
        self.assertEqual(got, [[b"ABORT", b"1000"]])

        push = ctx.socket(mod.PUSH)
        push.connect("tcp://10.0.0.2:17001")
        push.send_multipart([b"ABORT_ACK", memoryview(b"1000"), bytearray(b"0")])
        push.send(b"again")
        other = mod.Context.instance().socket(mod.PUSH)
        other.connect("tcp://10.9.9.9:1")
        other.send_multipart([b"lost"])
        self.assertEqual(net.outbound, {1: [[b"ABORT_ACK", b"1000", b"0"], [b"again"]]})
        self.assertEqual(net.unknown_sends, [("tcp://10.9.9.9:1", [b"lost"])])
        with self.assertRaises(HarnessError):
            push.recv_multipart()
        with self.assertRaises(zmq.Again):
            push.get_monitor_socket().recv_multipart()

    def test_context_follows_the_current_network(self):
        nets = [fakes.Network(self.ctl, 41000, {}), fakes.Network(self.ctl, 42000, {})]
        current = [nets[0]]
        mod = fakes.fake_zmq_module(lambda: current[0])
        self.assertIs(mod.Context().net, nets[0])
        current[0] = nets[1]  # a reset: modules keep the same zmq module
        self.assertIs(mod.Context().net, nets[1])
        self.assertEqual(mod.Context().socket(mod.PULL).bind_to_random_port("tcp://h"), 42000)


class QueueTest(FakeTest):

    def setUp(self):
        super().setUp()
        self.registry = []
        self.sending = None
        fakes.ParkingQueue.controller = self.ctl
        fakes.ParkingQueue.registry = self.registry
        fakes.ParkingQueue.tagger = lambda: self.sending

    def test_fifo_tagged_by_request(self):
        q1, q2 = fakes.ParkingQueue(), fakes.ParkingQueue(maxsize=8)
        self.assertEqual(self.registry, [q1, q2])
        self.assertTrue(q1.empty())
        self.sending = 0
        q1.put("chunk-0a")
        self.sending = 1
        q1.put("chunk-1a")
        q1.put_nowait("chunk-1b")
        self.assertEqual(q1.items, [(0, "chunk-0a"), (1, "chunk-1a"), (1, "chunk-1b")])
        self.assertEqual((q1.qsize(), q2.qsize()), (3, 0))

        taken = []

        def worker():
            while True:
                taken.append(q1.get())

        self.run_parked("worker", worker)
        (p,) = self.ctl.find("queue")
        self.assertIs(p.key, q1)
        for want in ["chunk-0a", "chunk-1a", "chunk-1b"]:
            self.assertEqual(self.ctl.resume(self.ctl.find("queue")[0], None, want), "parked")
            self.assertEqual(taken[-1], want)
        self.assertTrue(q1.empty())

    def test_untagged_without_a_tagger(self):
        fakes.ParkingQueue.tagger = None
        q = fakes.ParkingQueue()
        q.put("c")
        self.assertEqual(q.items, [(None, "c")])

    def test_resumed_on_an_empty_queue(self):
        q = fakes.ParkingQueue()
        self.run_parked("worker", q.get)
        self.assertEqual(self.ctl.resume(self.ctl.find("queue")[0], None, "take"), "died")
        (name, exc), = self.ctl.deaths
        self.assertEqual(name, "worker")
        self.assertIsInstance(exc, HarnessError)
        self.assertIn("resumed on an empty queue", str(exc))


class AgentTest(FakeTest):

    def test_only_its_own_handles(self):
        # A worker that waits on None (no transfer posted) gets the real
        # binding's TypeError, not "DONE".
        agent = fakes.FakeAgent(self.ctl, "prefill-0", object())
        for h in (None, fakes.FakeHandle("prep")):
            with self.assertRaises(TypeError):
                agent.check_xfer_state(h)

    def test_transfers_complete_when_the_driver_says(self):
        agent = fakes.FakeAgent(self.ctl, "prefill-0", object())
        self.assertEqual(agent.name, "prefill-0")
        results = {}

        def post(name, notifs):
            def body():
                hs = [agent.make_prepped_xfer("WRITE", None, [0], None, [0], notifs[0])]
                hs += [agent.initialize_xfer("WRITE", None, None, "decode-0", n) for n in notifs[1:]]
                self.assertEqual(agent.transfer(hs[0]), "PROC")
                # in progress when first checked, as a real transfer is:
                # the worker checks again (nixl/conn.py's DONE barrier)
                results[name + " first"] = [agent.check_xfer_state(h) for h in hs]
                results[name] = [agent.check_xfer_state(h) for h in hs]
                results[name + " handles done"] = [h.done for h in hs]
                nxt = agent.initialize_xfer("WRITE", None, None, "d", b"next")
                agent.check_xfer_state(nxt)
                agent.check_xfer_state(nxt)
            return body

        self.run_parked("w0", post("w0", [b"1000_kv_0_1_0", b"1000_aux"]))
        self.run_parked("w1", post("w1", [b"1001_kv_0_0_0"]))
        keys = {p.thread.name: p.key for p in self.ctl.find("xfer")}
        self.assertEqual(keys, {"w0": ("1000_kv_0_1_0", "1000_aux"), "w1": ("1001_kv_0_0_0",)})

        # completing w0's writes completes both of its handles, not w1's
        w0 = [p for p in self.ctl.find("xfer") if p.thread.name == "w0"][0]
        self.assertEqual(self.ctl.resume(w0, "DONE", "w0 done"), "parked")
        self.assertEqual(results["w0 first"], ["PROC", "PROC"])
        self.assertEqual(results["w0"], ["DONE", "DONE"])
        self.assertEqual(results["w0 handles done"], [True, True])
        self.assertNotIn("w1", results)
        self.assertEqual(sorted(p.key for p in self.ctl.find("xfer")),
                         [("1001_kv_0_0_0",), ("next",)])

    def test_a_write_never_waited_for_never_lands(self):
        # nixl/conn.py's worker waits on every handle it posts; one it
        # leaves out of its wait (the aux write) is not completed with the
        # chunk, and its notification is not in the park's key (what the
        # driver reports landed at decode).
        agent = fakes.FakeAgent(self.ctl, "prefill-0", object())
        results = {}

        def body():
            kv = agent.initialize_xfer("WRITE", None, None, "d", b"1000_kv_0_1_0")
            aux = agent.initialize_xfer("WRITE", None, None, "d", b"1000_aux")
            results["first"] = agent.check_xfer_state(kv)
            results["second"] = agent.check_xfer_state(kv)
            results["done"] = (kv.done, aux.done)
            agent.check_xfer_state(aux)
            agent.check_xfer_state(aux)

        self.run_parked("w0", body)
        (p,) = self.ctl.find("xfer")
        self.assertEqual(p.key, ("1000_kv_0_1_0",))
        self.assertEqual(self.ctl.resume(p, "DONE", "kv done"), "parked")
        self.assertEqual(results, {"first": "PROC", "second": "DONE", "done": (True, False)})
        # checked later, it is waited for, and lands with the next completion
        (p,) = self.ctl.find("xfer")
        self.assertEqual(p.key, ("1000_aux",))

    def test_every_other_call_succeeds(self):
        os.environ["SGLANG_DISAGGREGATION_NIXL_BACKEND"] = "LIBFABRIC"
        agent = fakes.FakeAgent(self.ctl)
        self.assertIn("LIBFABRIC", agent.get_plugin_list())
        self.assertIn("UCX", agent.get_plugin_list())
        self.assertEqual(agent.add_remote_agent(b"decode-1"), "decode-1")
        self.assertEqual(agent.get_new_notifs(), {})
        self.assertTrue(agent.register_memory([1, 2]))
        self.assertTrue(agent.a_call_newer_than_the_harness(1, k=2))
        with self.assertRaises(AttributeError):
            agent.__not_there__

    def test_nixl_modules(self):
        made = []
        mods = fakes.fake_nixl_modules(lambda *a, **k: made.append((a, k)) or "agent")
        api = mods["nixl._api"]
        self.assertIs(mods["nixl"]._api, api)
        self.assertEqual(mods["nixl"].__path__, [])
        cfg = api.nixl_agent_config(backends=[], num_threads=8)
        self.assertEqual(cfg.kwargs, {"backends": [], "num_threads": 8})
        self.assertEqual(api.nixl_agent("uuid", cfg), "agent")
        self.assertEqual(made[0][0][0], "uuid")
        self.assertEqual(api.nixl_thread_sync_t.NIXL_THREAD_SYNC_STRICT, 2)


class ClockTest(unittest.TestCase):

    def test_override(self):
        c = fakes.Clock(now=100.0)
        self.assertEqual(c.time(), 100.0)
        c.now = 105.0
        c.override = 500.0
        self.assertEqual(c.time(), 500.0)
        c.override = None
        self.assertEqual(c.time(), 105.0)

    def test_time_module(self):
        c = fakes.Clock(now=42.0)
        mod = fakes.fake_time_module(c)
        self.assertEqual(mod.time(), 42.0)
        c.override = 1e9
        self.assertEqual(mod.time(), 1e9)
        began = time.monotonic()
        mod.sleep(3600)
        self.assertLess(time.monotonic() - began, 1.0)
        self.assertIs(mod.monotonic, time.monotonic)
        self.assertIs(mod.perf_counter, time.perf_counter)
        self.assertGreater(time.time(), 1e9 + 1)  # the real module is untouched
        self.assertIsNot(time.sleep, mod.sleep)


if __name__ == "__main__":
    unittest.main()
