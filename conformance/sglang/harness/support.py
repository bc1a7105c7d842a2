"""Shared by the harness's unittest modules (test_*.py): SGLang's tree the
tests run on, copies of it with a line changed, and a sandbox that undoes
what loading a tree does to the interpreter.

The tree is SGLang's real python/ folder, extracted at test time into a
scratch folder (ROOMSPEC_SGLANG_TREE; the Go test that runs these modules
resolves ROOMSPEC_SGLANG to it). SGLang's code is never committed here:
without it, the tests that load a tree are skipped, saying so.

Loading a tree installs finders on sys.meta_path, imports sglang.* modules,
replaces sys.modules["zmq"] and the environment, and starts real threads;
each test runs inside a Sandbox so that the next one starts from a clean
interpreter, and its threads have ended when it is over."""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

from roomspec_sglang import fakes, park
from roomspec_sglang.stubs import Stub

HERE = os.path.dirname(os.path.abspath(__file__))
TREE = os.environ.get("ROOMSPEC_SGLANG_TREE", "")
NO_TREE = ("ROOMSPEC_SGLANG_TREE is not set: these tests load SGLang's real python/ folder "
           "(go test ./conformance/sglang with ROOMSPEC_SGLANG=GITDIR@COMMIT extracts it)")


def needs_tree(cls):
    """Skips a TestCase class where SGLang's tree is not at hand."""
    return unittest.skipUnless(TREE, NO_TREE)(cls)


def copy_tree(test, changes=None):
    """A copy of SGLang's tree (removed when test ends) with changes made:
    {path under sglang/srt/disaggregation: [(old, new), ...]}. The changes
    are written for SGLang adca19c4; an old text that does not occur in
    the tree (another commit) skips the test, naming the text, so that a
    change never silently misses."""
    root = tempfile.mkdtemp(prefix="sglang-tree-")
    test.addCleanup(shutil.rmtree, root, True)
    shutil.copytree(TREE, root, dirs_exist_ok=True)
    for rel, edits in (changes or {}).items():
        path = os.path.join(root, "sglang", "srt", "disaggregation", rel)
        with open(path) as f:
            text = f.read()
        for old, new in edits:
            if old not in text:
                test.skipTest(f"copy_tree: {old!r} is not in {rel} of this tree "
                              "(the changes are written for SGLang adca19c4)")
            text = text.replace(old, new)
        with open(path, "w") as f:
            f.write(text)
    return root


class Sandbox:
    """Saves the interpreter state a harness changes; restore() puts it
    back and waits for the threads started meanwhile to end."""

    def __init__(self):
        self.meta_path = list(sys.meta_path)
        self.modules = dict(sys.modules)
        self.environ = dict(os.environ)
        self.queue_attrs = (fakes.ParkingQueue.controller, fakes.ParkingQueue.registry,
                            fakes.ParkingQueue.tagger)
        self.hook = park._Hook.current
        self.served = set(Stub.served)
        self.threads = set(threading.enumerate())

    def new_threads(self):
        return [t for t in threading.enumerate() if t not in self.threads]

    def restore(self, timeout=5.0):
        sys.meta_path[:] = self.meta_path
        for name in list(sys.modules):
            if name not in self.modules:
                del sys.modules[name]
        sys.modules.update(self.modules)
        os.environ.clear()
        os.environ.update(self.environ)
        (fakes.ParkingQueue.controller, fakes.ParkingQueue.registry,
         fakes.ParkingQueue.tagger) = self.queue_attrs
        park._Hook.current = self.hook
        Stub.served.clear()
        Stub.served.update(self.served)
        left = []
        for t in self.new_threads():
            t.join(timeout)
            if t.is_alive():
                left.append(t.name)
        return left


class SandboxTest(unittest.TestCase):
    """A test case whose every test runs in its own Sandbox; a thread the
    test started and did not end fails the test."""

    def setUp(self):
        sandbox = Sandbox()

        def restore():
            left = sandbox.restore()
            if left:
                self.fail(f"threads still running after the test: {left}")

        self.addCleanup(restore)

    def harness(self, root=None, **kwargs):
        """A Harness on root, closed when the test ends."""
        from roomspec_sglang.driver import Harness

        h = Harness(root or TREE, **kwargs)
        self.addCleanup(h.close)
        return h


def run_module(*args, stdin="", timeout=60):
    """python3 -m roomspec_sglang ARGS in a child process: (exit status,
    stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=HERE)
    p = subprocess.run([sys.executable, "-m", "roomspec_sglang", *args], input=stdin,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr
