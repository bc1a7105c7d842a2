"""The mutator (roomspec_sglang.mutate) on a small tree written here: the
lifecycle's names, none of SGLang's code."""

import io
import json
import os
import shutil
import tempfile
import textwrap
import unittest
from contextlib import redirect_stdout

from roomspec_sglang import mutate

CONN = textwrap.dedent('''\
    import logging
    logger = logging.getLogger(__name__)


    class NixlKVManager:
        def transfer_worker(self, room, chunks):
            """Docstrings are not mutated."""
            logger.debug(f"room {room}: {len(chunks)} chunks")
            if room in self.rooms and not self.stopped:
                self.update_status(room, KVPoll.Success)
            frames = [b"ABORT_ACK", str(room).encode()]
            self.send(frames[1:3])
            return len(chunks) > 0

        def setup(self):
            self.port = 17000


    def helper(x):
        return x + 1
    ''')

ENVIRON = textwrap.dedent('''\
    class Envs:
        SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT = EnvInt(300)
        SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE = EnvBool(False)
        SGLANG_UNRELATED = EnvInt(7)
    ''')


class MutatorTest(unittest.TestCase):
    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        self.write("sglang/srt/disaggregation/nixl/conn.py", CONN)
        self.write("sglang/srt/environ.py", ENVIRON)

    def write(self, rel, text):
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)

    def listed(self, *extra):
        out = io.StringIO()
        with redirect_stdout(out):
            code = mutate.main(["list", "--sglang", self.root, "--env-keys",
                                "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT,SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE,SGLANG_UNRELATED",
                                *extra])
        self.assertEqual(code, 0)
        lines = [json.loads(l) for l in out.getvalue().splitlines()]
        self.assertIn("not_reached", lines[-1])
        return lines[:-1], lines[-1]["not_reached"]

    def test_operators(self):
        muts, _ = self.listed()
        what = {(m["operator"], m["what"]) for m in muts}
        for want in [
            ("delete-call", "delete the call self.update_status(room, KVPoll.Success)"),
            ("delete-call", "delete the call self.send(frames[1:3])"),
            ("delete-stmt", "delete return len(chunks) > 0"),
            ("swap-kvpoll", "KVPoll.Success -> KVPoll.Failed"),
            ("swap-kvpoll", "KVPoll.Success -> KVPoll.Transferring"),
            ("negate-cond", "negate `room in self.rooms and not self.stopped`"),
            ("drop-cond", "drop `room in self.rooms` from the test"),
            ("drop-cond", "drop `not self.stopped` from the test"),
            ("change-number", "0 -> 1"),
            ("change-number", "3 -> 4"),
            ("change-bytes", "b'ABORT_ACK' -> b'ABORT_ACx'"),
            ("narrow-slice", "slice start 1 + 1"),
            ("narrow-slice", "slice end 3 - 1"),
            ("change-number", "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT default 300 -> 301"),
            ("change-number", "SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE default False -> True"),
        ]:
            self.assertIn(want, what)
        # 4 swaps of one KVPoll member
        self.assertEqual(sum(1 for m in muts if m["operator"] == "swap-kvpoll"), 4)
        for m in muts:
            self.assertEqual(m["function"] in ("NixlKVManager.transfer_worker", "Envs"), True, m)
            added = [l for l in m["diff"].splitlines() if l.startswith("+") and not l.startswith("+++")]
            self.assertFalse(any("logger" in l or "Docstrings" in l for l in added), m["diff"])
        # setup(), helper(), an unrelated variable's default: not the lifecycle
        self.assertFalse(any("17000" in m["what"] or "SGLANG_UNRELATED" in m["what"] for m in muts))

    def test_apply_writes_the_listed_diff(self):
        muts, _ = self.listed()
        for m in muts:
            out = tempfile.mkdtemp()
            self.addCleanup(shutil.rmtree, out)
            self.assertEqual(mutate.main(["apply", "--sglang", self.root, "--id", m["id"], "--out", out,
                                          "--env-keys", "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT,SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE"]), 0)
            with open(os.path.join(self.root, m["file"])) as f:
                before = f.read()
            with open(os.path.join(out, m["file"])) as f:
                after = f.read()
            self.assertNotEqual(before, after, m["id"])
            compile(after, m["file"], "exec")
            added = [l[1:] for l in m["diff"].splitlines() if l.startswith("+") and not l.startswith("+++")]
            for line in added:
                self.assertIn(line, after.splitlines(), m["id"])
            # Only the lines of the diff changed.
            changed = [i for i, (a, b) in enumerate(zip(before.splitlines(), after.splitlines())) if a != b]
            self.assertLessEqual(len(changed), max(1, len(added)), m["id"])

    def test_coverage_filters(self):
        cov = os.path.join(self.root, "cov.json")
        lines = CONN.splitlines()
        ran = [i + 1 for i, l in enumerate(lines) if "update_status" in l or l.strip().startswith("if room")]
        with open(cov, "w") as f:
            json.dump({"sglang/srt/disaggregation/nixl/conn.py": ran}, f)
        muts, not_reached = self.listed("--coverage", cov)
        self.assertTrue(muts)
        self.assertTrue(all(m["line"] in ran for m in muts), [m["line"] for m in muts])
        self.assertGreater(not_reached, 0)
        every, zero = self.listed("--coverage", cov, "--all")
        self.assertEqual(zero, 0)
        self.assertEqual(len([m for m in every if m["ran"]]), len(muts))

    def test_unknown_id(self):
        for bad in ("nope", "sglang/srt/disaggregation/nixl/conn.py:99999", "sglang/srt/x.py:1"):
            self.assertEqual(mutate.main(["apply", "--sglang", self.root, "--id", bad, "--out", self.root]), 2)


if __name__ == "__main__":
    unittest.main()
