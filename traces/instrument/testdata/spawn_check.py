"""Run by traces/instrument's Go tests under python -m roomspec_instrument:
a child process started as SGLang starts its schedulers (multiprocessing,
spawn) loads SGLang's real disaggregation modules through roomspec's
harness and reports whether the start-up hook instrumented them there.

    spawn_check.py HARNESS_DIR SGLANG_PYTHON_ROOT
"""

import json
import multiprocessing
import sys


def child(harness_dir, root, out):
    sys.path.insert(0, harness_dir)
    from roomspec_sglang.driver import Harness

    h = Harness(root)
    import roomspec_instrument

    out.put({
        "active": roomspec_instrument.active(),
        "wrapped": [name for cls, name in ((h.nixl.NixlKVManager, "update_status"), (h.nixl.NixlKVSender, "poll"),
                                           (h.prefill.PrefillBootstrapQueue, "pop_bootstrapped"))
                    if hasattr(getattr(cls, name), "__wrapped__")],
    })


def main():
    harness_dir, root = sys.argv[1], sys.argv[2]
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    p = ctx.Process(target=child, args=(harness_dir, root, out))
    p.start()
    got = out.get(timeout=120)
    p.join(timeout=60)
    import roomspec_instrument

    print(json.dumps({"parent_active": roomspec_instrument.active(), "child": got, "exitcode": p.exitcode}))


if __name__ == "__main__":
    main()
