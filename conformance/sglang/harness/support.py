"""Shared by the harness's unittest modules (test_*.py): the miniature SGLang
tree, copies of it with a line changed, and a sandbox that undoes what
loading a tree does to the interpreter.

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
MINITREE = os.path.join(HERE, "testdata", "minitree")


def copy_tree(test, changes=None):
    """A copy of the miniature tree (removed when test ends) with changes
    made: {path under sglang/srt/disaggregation: [(old, new), ...]}. Each
    old text must occur in the file, so a change cannot silently miss."""
    root = tempfile.mkdtemp(prefix="minitree-")
    test.addCleanup(shutil.rmtree, root, True)
    shutil.copytree(MINITREE, root, dirs_exist_ok=True)
    for rel, edits in (changes or {}).items():
        path = os.path.join(root, "sglang", "srt", "disaggregation", rel)
        with open(path) as f:
            text = f.read()
        for old, new in edits:
            if old not in text:
                raise AssertionError(f"copy_tree: {old!r} is not in {rel}")
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

    def harness(self, root=MINITREE, **kwargs):
        """A Harness on root, closed when the test ends."""
        from roomspec_sglang.driver import Harness

        h = Harness(root, **kwargs)
        self.addCleanup(h.close)
        return h


def run_module(*args, stdin="", timeout=60):
    """python3 -m roomspec_sglang ARGS in a child process: (exit status,
    stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=HERE)
    p = subprocess.run([sys.executable, "-m", "roomspec_sglang", *args], input=stdin,
                       capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr
