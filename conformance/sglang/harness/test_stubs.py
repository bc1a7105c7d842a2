"""The stub finder, the Stub value, the written-out behaviours and the loader."""

import importlib.machinery
import os
import sys
import tempfile
import types
import unittest

from roomspec_sglang import loader, stubs
from roomspec_sglang.stubs import BEHAVIOURS, LastResortFinder, Stub, StubFinder, StubModule
from support import TREE, SandboxTest, copy_tree, needs_tree


class StubValueTest(unittest.TestCase):
    """A Stub stands for anything and is nothing: falsy, zero, empty."""

    def test_scalar_conversions(self):
        s = Stub("m.x")
        for name, got, want in [
            ("bool", bool(s), False),
            ("int", int(s), 0),
            ("float", float(s), 0.0),
            ("index", [10, 20][s], 10),
            ("len", len(s), 0),
            ("iter", list(s), []),
            ("contains", 3 in s, False),
            ("lt", s < 1, False),
            ("ge", s >= 1, False),
        ]:
            with self.subTest(name):
                self.assertEqual(got, want)

    def test_arithmetic_and_identity(self):
        s = Stub("m.x")
        self.assertIs(s + 1, s)
        self.assertIs(2 * s, s)
        self.assertIs(s // 4, s)
        self.assertIs(-s, s)
        self.assertEqual(s, s)
        self.assertNotEqual(s, Stub("m.x"))
        self.assertEqual(len({s, s}), 1)

    def test_attributes_are_stubs_cached_and_recorded(self):
        Stub.served.discard("rec.a")
        Stub.served.discard("rec.a.b")
        s = Stub("rec")
        self.assertIsInstance(s.a.b, Stub)
        self.assertIs(s.a, s.a)
        self.assertEqual(repr(s.a.b), "<stub rec.a.b>")
        self.assertIn("rec.a", Stub.served)
        self.assertIn("rec.a.b", Stub.served)
        s.value = 5
        self.assertEqual(s.value, 5)
        with self.assertRaises(AttributeError):
            s.__wrapped__  # dunder names are not stubs (copy, pickle, inspect)

    def test_call_decorates_or_returns_a_stub(self):
        s = Stub("nvtx.range")

        def f():
            return 42

        class C:
            pass

        sm = staticmethod(f)
        self.assertIs(s(f), f)
        self.assertIs(s(C), C)
        self.assertIs(s(sm), sm)
        # a decorator factory: @range("name") gives the function back too
        self.assertIs(s("name")(f), f)
        self.assertIsInstance(s(f, color=1), Stub)
        self.assertEqual(repr(s(1)), "<stub nvtx.range()>")

    def test_subclassing_and_isinstance(self):
        base = Stub("torch.nn.Module")

        class Model(base):
            def forward(self):
                return "real"

        m = Model(1, 2, key=3)
        self.assertEqual(m.forward(), "real")
        self.assertIsInstance(m.anything, Stub)
        self.assertEqual(Model.__mro__[1].__name__, "Module")
        self.assertFalse(isinstance(m, base))
        self.assertFalse(isinstance(3, base))
        self.assertFalse(issubclass(Model, base))
        with self.assertRaises(AttributeError):
            m.__dunder__

    def test_context_manager_and_items(self):
        s = Stub("torch.cuda.stream")
        with s as v:
            self.assertIs(v, s)
        s[3] = 1  # accepted, ignored
        self.assertIsInstance(s[3], Stub)


class BehavioursTest(unittest.TestCase):
    """The few names the room paths need with real behaviour."""

    def module(self, name):
        return StubFinder().create_module(importlib.machinery.ModuleSpec(name, None))

    def test_torch(self):
        torch = self.module("torch")
        t = torch.tensor([3, 1, 4], dtype=torch.uint8, device="cpu")
        self.assertEqual(t.tolist(), [3, 1, 4])
        self.assertEqual(torch.tensor(7).item(), 7)
        self.assertEqual(list(t.cpu().numpy()), [3, 1, 4])
        with torch.no_grad():
            pass
        self.assertIsInstance(torch.cuda, Stub)

    def test_one_rank_all_reduce(self):
        dist = self.module("torch.distributed")
        t = self.module("torch").tensor([2, 0, 4])
        self.assertIsNone(dist.all_reduce(t, op=dist.ReduceOp.MIN, group=None))
        self.assertEqual(t.tolist(), [2, 0, 4])
        self.assertEqual((dist.get_world_size(), dist.get_rank()), (1, 0))

    def test_requests_succeed(self):
        requests = self.module("requests")
        for call in (requests.get, requests.put, requests.post, requests.delete):
            r = call("http://10.0.0.1:8998/route", json={}, timeout=5)
            self.assertEqual(r.status_code, 200)
            self.assertTrue(r.ok)
            self.assertEqual(r.json(), {})
        self.assertEqual(requests.Session().put("http://x").status_code, 200)

    def test_runtime_context_is_one_rank(self):
        ctx = self.module("sglang.srt.runtime_context")
        p = ctx.get_parallel()
        self.assertEqual((p.tp_size, p.attn_tp_size, p.dp_size, p.pp_size), (1, 1, 1, 1))
        self.assertFalse(p.enable_dp_attention)
        Stub.served.discard("get_parallel().not_written_out")
        self.assertIsInstance(p.not_written_out, Stub)
        self.assertIn("get_parallel().not_written_out", Stub.served)

    def test_page_arithmetic(self):
        mem = self.module("sglang.srt.mem_cache.common")
        self.assertEqual(mem.kv_to_page_num(9, 4), 3)
        self.assertEqual(mem.kv_to_page_num(8, 4), 2)
        self.assertEqual(list(mem.kv_to_page_indices(list(range(8, 16)), 4)), [2, 3])
        self.assertEqual(list(mem.kv_to_page_indices([5, 6, 7], 1)), [5, 6, 7])

    def test_finish_reasons_are_classes(self):
        sb = self.module("sglang.srt.managers.schedule_batch")
        r = sb.FINISH_ABORT("aborted", 500)
        self.assertIsInstance(r, sb.FINISH_ABORT)
        self.assertNotIsInstance(sb.FINISH_LENGTH(length=0), sb.FINISH_ABORT)

    def test_every_behaviour_module_builds(self):
        for name in BEHAVIOURS:
            with self.subTest(name):
                m = self.module(name)
                self.assertIsInstance(m, StubModule)
                self.assertEqual(m.__path__, [])

    def test_logging_once(self):
        import logging

        stubs.patch_logging()
        log = logging.getLogger("roomspec.test.once")
        with self.assertLogs(log, "WARNING") as cm:
            log.warning_once("said once")
            log.warning_once("said once")
        self.assertEqual(len(cm.output), 1)


class FinderTest(SandboxTest):
    """Imports served by the finders, as the loader installs them."""

    def install(self, always=(), extra=None):
        f = StubFinder(always=always, extra=extra)
        sys.meta_path.insert(0, f)
        sys.meta_path.append(LastResortFinder(f))
        return f

    def test_always_stubbed_and_unknown_modules(self):
        fake = types.ModuleType("nixl._api")
        fake.marker = "fake"
        f = self.install(always=("torch", "nixl"), extra={"nixl._api": fake})
        import torch
        import torch.distributed as dist
        from nixl._api import marker
        import roomspec_no_such_module.deep.name as unknown

        self.assertTrue(torch.__roomspec_stub__)
        self.assertEqual(torch.tensor([1]).tolist(), [1])
        self.assertIsNone(dist.all_reduce(None))
        self.assertEqual(marker, "fake")
        self.assertIsInstance(unknown.anything, Stub)
        self.assertEqual(f.served[:2], ["torch", "torch.distributed"])
        self.assertIn("roomspec_no_such_module.deep.name", f.served)
        self.assertNotIn("nixl._api", f.served)  # a ready-made module, not a stub

    def test_prefix_is_a_whole_name(self):
        f = StubFinder(always=("torch",))
        self.assertIsNotNone(f.find_spec("torch.cuda", None))
        self.assertIsNone(f.find_spec("torchvision", None))

    def test_importable_modules_stay_real(self):
        self.install(always=("torch",))
        for name in [n for n in sys.modules if n == "json" or n.startswith("json.")]:
            del sys.modules[name]
        import json

        self.assertFalse(getattr(json, "__roomspec_stub__", False))
        self.assertEqual(json.loads("[1]"), [1])

    def test_from_import_of_any_name(self):
        self.install(always=("sgl_kernel",))
        from sgl_kernel.ops import fused_thing, other  # noqa: F401

        self.assertIsInstance(fused_thing, Stub)
        self.assertIn("sgl_kernel.ops.fused_thing", Stub.served)


@needs_tree
class LoaderTest(SandboxTest):

    def test_real_modules_from_the_root_the_rest_stubbed(self):
        L = loader.Loader(TREE)
        conn = L.module("disaggregation.base.conn")
        self.assertEqual(conn.__file__, os.path.join(
            TREE, "sglang", "srt", "disaggregation", "base", "conn.py"))
        environ = L.module("environ")
        self.assertTrue(environ.__file__.startswith(TREE))
        self.assertGreater(environ.envs.SGLANG_DISAGGREGATION_QUEUE_SIZE.get(), 0)
        net = L.module("utils.network")
        self.assertTrue(net.__file__.startswith(TREE))
        prefill = L.module("disaggregation.prefill")
        self.assertTrue(hasattr(prefill, "PrefillBootstrapQueue"))
        L.module("disaggregation.nixl.conn")
        for name in ("sglang", "sglang.srt", "sglang.srt.utils",
                     "sglang.srt.managers.schedule_batch", "sglang.srt.utils.nvtx_utils",
                     "torch", "requests"):
            with self.subTest(name):
                self.assertTrue(getattr(sys.modules[name], "__roomspec_stub__", False),
                                f"{name} is not a stub")
        # a written-out behaviour reached through the real module's import
        self.assertIs(prefill.FINISH_ABORT, sys.modules["sglang.srt.managers.schedule_batch"].FINISH_ABORT)

    def test_missing_files_named(self):
        with tempfile.TemporaryDirectory() as root:
            d = os.path.join(root, "sglang", "srt", "disaggregation")
            os.makedirs(d)
            open(os.path.join(d, "prefill.py"), "w").close()
            with self.assertRaises(loader.LoadError) as cm:
                loader.Loader(root)
        msg = str(cm.exception)
        for f in ("sglang/srt/disaggregation/base/conn.py", "sglang/srt/disaggregation/nixl/conn.py",
                  "sglang/srt/disaggregation/utils.py", "sglang/srt/environ.py"):
            self.assertIn(f, msg)
        self.assertNotIn("prefill.py,", msg)
        self.assertIn("GITDIR@COMMIT", msg)

    def test_missing_real_module(self):
        L = loader.Loader(TREE)
        with self.assertRaises(ModuleNotFoundError) as cm:
            L.module("disaggregation.nixl.no_such")
        self.assertIn("not in the SGLang source", str(cm.exception))
        self.assertIsNone(L.optional("disaggregation.nixl.no_such"))
        mooncake = os.path.isdir(os.path.join(TREE, "sglang", "srt", "disaggregation", "mooncake"))
        self.assertEqual(L.optional("disaggregation.mooncake.conn") is not None, mooncake)
        self.assertIsNotNone(L.optional("disaggregation.nixl.conn"))

    def test_optional_module_importing_a_missing_one(self):
        root = copy_tree(self, {"nixl/conn.py": [
            ("import numpy as np\n",
             "import numpy as np\nfrom sglang.srt.disaggregation.common.no_such import x\n")]})
        L = loader.Loader(root)
        with self.assertRaises(ModuleNotFoundError) as cm:
            L.optional("disaggregation.nixl.conn")
        self.assertEqual(cm.exception.name, "sglang.srt.disaggregation.common.no_such")


if __name__ == "__main__":
    unittest.main()
