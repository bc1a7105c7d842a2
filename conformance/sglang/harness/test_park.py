"""The parking controller: real threads stop at fake blocking points and the
driver resumes one at a time."""

import contextlib
import io
import threading
import time
import unittest

from roomspec_sglang.park import Controller, HarnessError
from support import SandboxTest


class ParkTest(SandboxTest):

    def start(self, name, body):
        t = threading.Thread(target=body, name=name, daemon=True)  # a failing test must not hang the exit
        t.start()
        return t

    def test_park_and_resume_in_order(self):
        ctl = Controller(timeout=5)
        log = []

        def worker(name):
            def body():
                v = ctl.park("get", key=name, payload=len(log))
                log.append((name, v))
                v = ctl.park("xfer", key=name)
                log.append((name, v))
            return body

        a = self.start("A", worker("a"))
        ctl.wait_parked(1, "a")
        b = self.start("B", worker("b"))
        ctl.wait_parked(2, "b")
        self.assertEqual([p.key for p in ctl.find("get")], ["a", "b"])
        self.assertEqual([p.thread for p in ctl.find("get")], [a, b])
        self.assertEqual(ctl.find("get", lambda p: p.key == "b")[0].payload, 0)
        self.assertEqual(ctl.find("xfer"), [])

        # Resuming b runs b (only b) to its next blocking point.
        self.assertEqual(ctl.resume(ctl.find("get", lambda p: p.key == "b")[0], 1, "b"), "parked")
        self.assertEqual(log, [("b", 1)])
        self.assertEqual([p.key for p in ctl.find("get")], ["a"])
        self.assertEqual([p.key for p in ctl.find("xfer")], ["b"])

        self.assertEqual(ctl.resume(ctl.find("get")[0], 2, "a"), "parked")
        # the thread parked longest is found first: b re-parked before a
        self.assertEqual([p.key for p in ctl.find("xfer")], ["b", "a"])
        self.assertEqual(ctl.resume(ctl.find("xfer")[1], "done-a", "a"), "died")
        self.assertEqual(ctl.resume(ctl.find("xfer")[0], "done-b", "b"), "died")
        self.assertEqual(log, [("b", 1), ("a", 2), ("a", "done-a"), ("b", "done-b")])
        a.join(1)
        b.join(1)
        # threads that end normally are not deaths
        self.assertEqual(ctl.deaths, [])

    def test_a_thread_that_raises_is_reported_died(self):
        ctl = Controller(timeout=5)

        def body():
            ctl.park("recv")
            raise ValueError("boom")

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.start("bootstrap", body)
            ctl.wait_parked(1, "start")
            self.assertEqual(ctl.resume(ctl.find("recv")[0], None, "recv"), "died")
        self.assertEqual(len(ctl.deaths), 1)
        name, exc = ctl.deaths[0]
        self.assertEqual(name, "bootstrap")
        self.assertIsInstance(exc, ValueError)
        self.assertEqual(err.getvalue(), "", "a recorded death is not printed")
        with self.assertRaises(HarnessError) as cm:
            ctl.timeout = 0.1
            ctl.wait_parked(1, "after the death")
        self.assertIn("after the death: 0 of 1 threads parked", str(cm.exception))
        self.assertIn("bootstrap: ValueError: boom", str(cm.exception))

    def test_a_thread_that_never_parks_again(self):
        ctl = Controller(timeout=5)
        stop = threading.Event()

        def body():
            ctl.park("queue")
            while not stop.is_set():  # a busy loop the harness does not fake
                time.sleep(0.005)

        self.start("worker-1", body)
        ctl.wait_parked(1, "start")
        ctl.timeout = 0.3
        began = time.monotonic()
        with self.assertRaises(HarnessError) as cm:
            ctl.resume(ctl.find("queue")[0], None, "transfer worker: a chunk")
        took = time.monotonic() - began
        stop.set()
        msg = str(cm.exception)
        self.assertIn("transfer worker: a chunk: thread worker-1 did not reach a blocking point", msg)
        self.assertGreaterEqual(took, 0.3)
        self.assertLess(took, 3.0)

    def test_resume_of_a_thread_no_longer_parked(self):
        ctl = Controller(timeout=5)
        self.start("t", lambda: (ctl.park("a"), ctl.park("b")))
        ctl.wait_parked(1, "start")
        p = ctl.find("a")[0]
        ctl.resume(p, None, "first")
        with self.assertRaises(HarnessError) as cm:
            ctl.resume(p, None, "again")
        self.assertIn("again:", str(cm.exception))
        self.assertIn("no longer parked", str(cm.exception))
        ctl.close()

    def test_wait_parked_times_out(self):
        ctl = Controller(timeout=5)
        self.start("only", lambda: ctl.park("recv"))
        ctl.wait_parked(1, "start")
        ctl.timeout = 0.2
        with self.assertRaises(HarnessError) as cm:
            ctl.wait_parked(2, "start-up (bootstrap thread and workers)")
        self.assertIn("start-up (bootstrap thread and workers): 1 of 2 threads parked", str(cm.exception))
        self.assertIn("['recv']", str(cm.exception))
        self.assertIn("deaths: none", str(cm.exception))
        ctl.close()

    def test_close_releases_parked_threads_quietly(self):
        ctl = Controller(timeout=5)
        caught = []

        def body():
            # Real code catches Exception around its blocking calls; the
            # release must get through that.
            while True:
                try:
                    ctl.park("queue")
                except Exception as e:
                    caught.append(e)

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            threads = [self.start(f"w{i}", body) for i in range(3)]
            ctl.wait_parked(3, "start")
            ctl.close()
            for t in threads:
                t.join(2)
            late = self.start("late", body)  # parks after the close: released at once
            late.join(2)
        self.assertFalse(any(t.is_alive() for t in threads + [late]))
        self.assertEqual(caught, [])
        self.assertEqual(err.getvalue(), "")
        self.assertEqual(ctl.deaths, [])
        self.assertEqual(ctl.find("queue"), [])


if __name__ == "__main__":
    unittest.main()
