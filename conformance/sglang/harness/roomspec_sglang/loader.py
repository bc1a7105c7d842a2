"""Loading SGLang's real room-handling modules, and nothing else of SGLang.

The source root is a directory holding `sglang/srt/...`: a checkout's
`python/` folder, an installed site-packages, or a tree extracted from a git
commit. Real: everything under sglang.srt.disaggregation, plus
sglang.srt.environ (the environment variables it reads) and
sglang.srt.utils.network (its socket helpers). Every other sglang module,
and torch, nixl and the HTTP clients, is a stub (stubs.py); nixl and zmq
can be replaced by boundary fakes (fakes.py).
"""

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys

from .stubs import LastResortFinder, StubFinder, patch_logging

REAL_PACKAGE = "sglang.srt.disaggregation"
REAL_MODULES = ("sglang.srt.environ", "sglang.srt.utils.network")

# Stubbed even where installed: loading them for real needs a GPU stack, or
# would talk to the network.
ALWAYS_STUB = ("torch", "nixl", "triton", "sgl_kernel", "flashinfer", "vllm",
               "deep_gemm", "transformers", "mooncake", "requests", "aiohttp",
               "uvloop", "pybase64", "orjson", "setproctitle", "zmq.asyncio")

REQUIRED_FILES = (
    "sglang/srt/disaggregation/prefill.py",
    "sglang/srt/disaggregation/base/conn.py",
    "sglang/srt/disaggregation/nixl/conn.py",
    "sglang/srt/disaggregation/utils.py",
    "sglang/srt/environ.py",
)


class LoadError(Exception):
    """The source root does not hold the modules the harness drives."""


def _is_real(fullname):
    return (fullname == REAL_PACKAGE or fullname.startswith(REAL_PACKAGE + ".")
            or fullname in REAL_MODULES)


class SourceFinder(importlib.abc.MetaPathFinder):
    """Serves the real modules from the source root, and a stub for every
    other sglang.* name (without running any real sglang __init__)."""

    def __init__(self, root, stubs):
        self.root = root
        self.stubs = stubs

    def find_spec(self, fullname, path, target=None):
        if fullname != "sglang" and not fullname.startswith("sglang."):
            return None
        if not _is_real(fullname):
            return self.stubs.fallback_spec(fullname)
        base = os.path.join(self.root, *fullname.split("."))
        init = os.path.join(base, "__init__.py")
        if os.path.isfile(init):
            return importlib.util.spec_from_file_location(
                fullname, init, submodule_search_locations=[base])
        if os.path.isfile(base + ".py"):
            return importlib.util.spec_from_file_location(fullname, base + ".py")
        if os.path.isdir(base):
            # A folder without __init__.py: a namespace package.
            spec = importlib.machinery.ModuleSpec(fullname, None, is_package=True)
            spec.submodule_search_locations = [base]
            return spec
        raise ModuleNotFoundError(
            f"{fullname} is not in the SGLang source at {self.root}", name=fullname)


class Loader:
    """Installs the finders once per process; imports real modules on demand."""

    def __init__(self, root, extra=None):
        root = os.path.abspath(root)
        missing = [f for f in REQUIRED_FILES if not os.path.isfile(os.path.join(root, f))]
        if missing:
            raise LoadError(
                f"{root} does not hold SGLang's Python sources (missing {', '.join(missing)}); "
                f"give a checkout's python/ folder, a site-packages folder, or GITDIR@COMMIT")
        self.root = root
        patch_logging()
        self.stubs = StubFinder(always=ALWAYS_STUB, extra=extra or {})
        self.source = SourceFinder(root, self.stubs)
        sys.meta_path.insert(0, self.source)
        sys.meta_path.insert(0, self.stubs)
        sys.meta_path.append(LastResortFinder(self.stubs))

    def module(self, name):
        """Import sglang.srt.<name> (a real module)."""
        return importlib.import_module(f"sglang.srt.{name}")

    def optional(self, name):
        """The module, or None where this commit does not have it."""
        full = f"sglang.srt.{name}"
        try:
            return self.module(name)
        except ModuleNotFoundError as e:
            # Missing here: the module or a package above it (a commit
            # without mooncake/). A module it imports that is missing is
            # an error of the loaded code, not an absence.
            if e.name and (full == e.name or full.startswith(e.name + ".")):
                return None
            raise
