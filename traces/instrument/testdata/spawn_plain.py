"""Run by traces/instrument's Go tests under python -m roomspec_instrument:
a spawned child (no SGLang) reports whether the start-up hook is on in it,
and whether a sitecustomize that the launcher's directory hides ran
there too (it sets ROOMSPEC_TEST_SITECUSTOMIZE in builtins)."""

import builtins
import json
import multiprocessing


def report():
    import sys
    ri = sys.modules.get("roomspec_instrument")
    return {"active": bool(ri and ri.active()),
            "hidden_sitecustomize_ran": getattr(builtins, "ROOMSPEC_TEST_SITECUSTOMIZE", False)}


def child(out):
    out.put(report())


if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=child, args=(out,))
    p.start()
    got = out.get(timeout=60)
    p.join(timeout=30)
    print(json.dumps({"parent": report(), "child": got}))
