"""Whose exception: SGLang's code or the harness's own (origin.py)."""

import os
import tempfile
import unittest

from roomspec_sglang import origin


def _load(path, source):
    with open(path, "w") as f:
        f.write(source)
    ns = {}
    exec(compile(source, path, "exec"), ns)
    return ns


class OriginTest(unittest.TestCase):

    def setUp(self):
        self.root = tempfile.mkdtemp(prefix="sglang-root-")
        self.addCleanup(__import__("shutil").rmtree, self.root, True)
        os.makedirs(os.path.join(self.root, "sglang", "srt"))
        self.code = _load(os.path.join(self.root, "sglang", "srt", "conn.py"),
                          "def check_status(d, room):\n    return d[room]\n\n"
                          "def call(fn):\n    return fn()\n")

    def caught(self, fn):
        try:
            fn()
        except Exception as e:
            return e
        self.fail("no exception")

    def test_sglang_raised(self):
        # a dict lookup in SGLang's code: SGLang's frame is the innermost
        e = self.caught(lambda: self.code["check_status"]({}, 7))
        self.assertEqual(origin.raise_site(e, self.root), ("sglang", "sglang/srt/conn.py:2"))
        self.assertEqual(origin.describe(e, self.root),
                         "SGLang's code raised KeyError: 7 (at sglang/srt/conn.py:2)")

    def test_harness_raised_inside_sglang_call(self):
        # SGLang's code calls into the harness (a fake), which raises: the
        # raise site is the harness's, whatever called it
        import zmq

        from roomspec_sglang import fakes

        sock = fakes.FakeSocket(None, zmq.PUSH)
        e = self.caught(lambda: self.code["call"](sock.recv_multipart))
        who, where = origin.raise_site(e, self.root)
        self.assertEqual(who, "harness")
        self.assertRegex(where, r"^roomspec_sglang/fakes\.py:\d+$")
        text = origin.describe(e, self.root)
        self.assertIn("the harness's own code raised HarnessError: zmq: recv on a", text)
        self.assertIn("not SGLang's exception", text)

    def test_neither(self):
        e = self.caught(lambda: int("x"))
        # this test module is outside both trees, and int() has no frame
        self.assertEqual(origin.raise_site(e, self.root)[0], None)


if __name__ == "__main__":
    unittest.main()
