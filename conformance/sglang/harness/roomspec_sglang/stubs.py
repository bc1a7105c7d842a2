"""Permissive stand-ins for every module the room-handling code imports but
does not need: torch, nixl, the rest of sglang.srt, HTTP clients.

SGLang's disaggregation package imports a large part of SGLang (model
configs, memory pools, the scheduler, observability) for code paths a room
never takes. Loading those for real would need a GPU stack. Instead the
finder below serves a *permissive* module for each such name: any attribute
is a Stub, and a Stub can be called, subclassed, used as a decorator or a
context manager, indexed and compared, and is falsy and numerically zero.

A few names have behaviour that the room paths depend on (a one-rank
all_reduce, the request-finish classes, page arithmetic, the runtime
configuration accessors). Those are written out in BEHAVIOURS, so that what
the harness assumes about the world outside disaggregation/ is in one place.

Every attribute served as a Stub is recorded (Stub.served) so that a run can
say which unknown names the code touched.
"""

import importlib.abc
import importlib.machinery
import math
import sys
import types
from contextlib import contextmanager


class _StubBase:
    """Base class handed out when code subclasses a Stub."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Stub(f"{type(self).__name__}().{name}")


class Stub:
    """A value that stands for anything the real code may ask of it."""

    served = set()

    def __init__(self, name):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_children", {})

    def __repr__(self):
        return f"<stub {self._name}>"

    __str__ = __repr__

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        children = object.__getattribute__(self, "_children")
        if name not in children:
            full = f"{self._name}.{name}"
            Stub.served.add(full)
            children[name] = Stub(full)
        return children[name]

    def __setattr__(self, name, value):
        self._children[name] = value

    def __call__(self, *args, **kwargs):
        # A bare decorator: give the function or class back unchanged, so
        # real methods decorated by stubbed helpers stay real.
        if len(args) == 1 and not kwargs and (
            isinstance(args[0], (types.FunctionType, type, staticmethod, classmethod))
        ):
            return args[0]
        return Stub(f"{self._name}()")

    def __mro_entries__(self, bases):
        cls = type(self._name.rsplit(".", 1)[-1], (_StubBase,), {"__module__": "stub"})
        return (cls,)

    def __instancecheck__(self, obj):
        return False

    def __subclasscheck__(self, cls):
        return False

    def __bool__(self):
        return False

    def __int__(self):
        return 0

    def __index__(self):
        return 0

    def __float__(self):
        return 0.0

    def __len__(self):
        return 0

    def __iter__(self):
        return iter(())

    def __contains__(self, item):
        return False

    def __getitem__(self, key):
        return Stub(f"{self._name}[]")

    def __setitem__(self, key, value):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __eq__(self, other):
        return self is other

    def __hash__(self):
        return id(self)

    def __lt__(self, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def _arith(self, other):
        return self

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _arith
    __floordiv__ = __rfloordiv__ = __truediv__ = __rtruediv__ = _arith
    __mod__ = __rmod__ = __or__ = __ror__ = __and__ = __rand__ = _arith

    def __neg__(self):
        return self


class StubModule(types.ModuleType):
    """A module whose every attribute is a Stub (or a written-out behaviour)."""

    def __init__(self, name, attrs=None):
        super().__init__(name)
        self.__path__ = []  # a package: its submodules are stubs too
        self.__all__ = []
        self.__roomspec_stub__ = True
        for k, v in (attrs or {}).items():
            setattr(self, k, v)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        full = f"{self.__name__}.{name}"
        Stub.served.add(full)
        value = Stub(full)
        setattr(self, name, value)
        return value


# ---- behaviours the room paths depend on ------------------------------------


class FakeTensor:
    """Enough of torch.Tensor for a one-rank all_reduce of poll results."""

    def __init__(self, data):
        self._data = list(data) if not isinstance(data, (int, float)) else [data]

    def tolist(self):
        return list(self._data)

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, i):
        return self._data[i]

    def item(self):
        return self._data[0]

    def cpu(self):
        return self

    def numpy(self):
        import numpy as np

        return np.asarray(self._data)


def _torch_tensor(data, *args, **kwargs):
    return FakeTensor(data)


@contextmanager
def _no_grad():
    yield


def _torch_attrs():
    return {
        "tensor": _torch_tensor,
        "Tensor": FakeTensor,
        "no_grad": _no_grad,
        "inference_mode": _no_grad,
        "uint8": "uint8",
        "int32": "int32",
        "int64": "int64",
        "float32": "float32",
    }


class _ReduceOp:
    MIN = "min"
    MAX = "max"
    SUM = "sum"


def _all_reduce(tensor, *args, **kwargs):
    # One rank: the reduction of a single participant is itself.
    return None


def _dist_attrs():
    return {
        "all_reduce": _all_reduce,
        "ReduceOp": _ReduceOp,
        "get_world_size": lambda *a, **k: 1,
        "get_rank": lambda *a, **k: 0,
        "is_initialized": lambda: False,
        "barrier": lambda *a, **k: None,
    }


class _FinishReason:
    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return f"{type(self).__name__}{self.args}"


class FINISH_ABORT(_FinishReason):
    """schedule_batch.FINISH_ABORT: the request was aborted (message, status)."""


class FINISH_LENGTH(_FinishReason):
    """schedule_batch.FINISH_LENGTH."""


def _kv_to_page_indices(kv_indices, page_size):
    import numpy as np

    kv = np.asarray(kv_indices)
    if page_size == 1:
        return kv
    return kv[::page_size] // page_size


def _kv_to_page_num(num_tokens, page_size):
    return int(math.ceil(num_tokens / page_size))


class Namespace:
    """A configuration namespace: the values written out, anything else a Stub."""

    def __init__(self, name, **values):
        self.__dict__["_name"] = name
        self.__dict__.update(values)

    def __getattr__(self, key):
        if key.startswith("__"):
            raise AttributeError(key)
        full = f"{self._name}.{key}"
        Stub.served.add(full)
        return Stub(full)


# One prefill rank, no data/context/pipeline parallelism.
PARALLEL = Namespace(
    "get_parallel()",
    tp_size=1, tp_rank=0, attn_tp_size=1, attn_tp_rank=0, attn_cp_size=1,
    attn_cp_rank=0, attn_dcp_size=1, attn_dcp_rank=0, dp_size=1, pp_size=1,
    enable_dp_attention=False, load_balance_method="round_robin",
    enable_dsa_cache_layer_split=False, enable_prefill_context_parallel=False,
    moe_dp_size=1,
)
DISAGG = Namespace("get_disagg()", optimistic_prefill_attempts=0)
SCHEDULE = Namespace("get_schedule()", chunked_prefill_size=-1)
SERVING = Namespace("get_serving()")


def _runtime_context_attrs():
    return {
        "get_parallel": lambda: PARALLEL,
        "get_disagg": lambda: DISAGG,
        "get_schedule": lambda: SCHEDULE,
        "get_serving": lambda: SERVING,
    }


def _false(*args, **kwargs):
    return False


class _Response:
    """An HTTP response: the bootstrap server accepted the call."""

    status_code = 200
    ok = True
    text = ""
    content = b""

    def json(self):
        return {}

    def raise_for_status(self):
        pass


def _http(*args, **kwargs):
    return _Response()


def _requests_attrs():
    # Prefill registers with decode's bootstrap server over HTTP; the harness
    # has none, and every call succeeds.
    return {"get": _http, "put": _http, "post": _http, "delete": _http,
            "Session": lambda *a, **k: Namespace("session", get=_http, put=_http, post=_http)}


def _mem_cache_common_attrs():
    # release_kv_cache and maybe_cache_unfinished_req hand the request to
    # the tree cache the scheduler passes: the KV cache pool boundary
    # (fakes.KVPool) records what each request holds and frees.
    from .fakes import maybe_cache_unfinished_req, release_kv_cache

    return {
        "kv_to_page_indices": _kv_to_page_indices,
        "kv_to_page_num": _kv_to_page_num,
        "release_kv_cache": release_kv_cache,
        "maybe_cache_unfinished_req": maybe_cache_unfinished_req,
    }


# Module name -> attributes with real behaviour. Everything else a module of
# this table serves is a Stub.
BEHAVIOURS = {
    "torch": _torch_attrs,
    "torch.distributed": _dist_attrs,
    "sglang.srt.managers.schedule_batch": lambda: {
        "FINISH_ABORT": FINISH_ABORT,
        "FINISH_LENGTH": FINISH_LENGTH,
    },
    "sglang.srt.mem_cache.common": _mem_cache_common_attrs,
    "sglang.srt.runtime_context": _runtime_context_attrs,
    "requests": _requests_attrs,
    "sglang.srt.layers.dp_attention": lambda: {
        "get_attention_dp_size": lambda: 1,
        "get_attention_dp_rank": lambda: 0,
        "get_attention_tp_size": lambda: 1,
        "get_attention_tp_rank": lambda: 0,
        "get_attention_cp_size": lambda: 1,
        "get_attention_cp_rank": lambda: 0,
    },
    "sglang.srt.utils": lambda: {
        "is_npu": _false,
        "is_hip": _false,
        "is_cuda": _false,
        "is_xpu": _false,
        "is_cpu": _false,
    },
}


def patch_logging():
    """logger.warning_once / info_once, which SGLang's modules call: in a
    real server transformers adds them to logging.Logger when it is
    imported (transformers/utils/logging.py); here nothing imports
    transformers, so the same patch is made here."""
    import functools
    import logging

    @functools.lru_cache(None)
    def warning_once(self, *args, **kwargs):
        self.warning(*args, **kwargs)

    @functools.lru_cache(None)
    def info_once(self, *args, **kwargs):
        self.info(*args, **kwargs)

    for name, fn in (("warning_once", warning_once), ("info_once", info_once)):
        if not hasattr(logging.Logger, name):
            setattr(logging.Logger, name, fn)


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves a StubModule for names nothing else on sys.meta_path can load.

    `always` lists name prefixes that are stubbed even if importable (the
    rest of sglang.srt must never be loaded for real); `extra` maps module
    names to ready-made modules (the boundary fakes: nixl, the clock)."""

    def __init__(self, always=(), extra=None):
        self.always = tuple(always)
        self.extra = dict(extra or {})
        self.served = []

    def _matches(self, fullname):
        return any(fullname == p or fullname.startswith(p + ".") for p in self.always)

    def find_spec(self, fullname, path, target=None):
        if fullname in self.extra:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        if self._matches(fullname):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def fallback_spec(self, fullname):
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        name = spec.name
        if name in self.extra:
            return self.extra[name]
        attrs = BEHAVIOURS.get(name, dict)()
        self.served.append(name)
        return StubModule(name, attrs)

    def exec_module(self, module):
        pass


class LastResortFinder(importlib.abc.MetaPathFinder):
    """Placed last on sys.meta_path: a module nothing can import (torch,
    requests, aiohttp, ...) is served as a stub instead of failing."""

    def __init__(self, stubs):
        self.stubs = stubs

    def find_spec(self, fullname, path, target=None):
        return self.stubs.fallback_spec(fullname)
