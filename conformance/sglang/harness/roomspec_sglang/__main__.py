"""python3 -m roomspec_sglang --sglang ROOT [--backend nixl|mooncake] [--env K=V ...] [--probe]

Runs SGLang's real prefill room handling, loaded from ROOT (a folder holding
sglang/srt/...), under roomspec's conformance protocol: JSON lines on stdin
and stdout (conformance/PROTOCOL.md). With --probe it prints the ingredients
the loaded code has, as one JSON object, and exits.

Exit status: 0 after "quit" or end of input; 2 for bad arguments or a source
root without SGLang; 3 when the real code does not fit a boundary the
harness fakes (the message on stderr names the boundary).
"""

import argparse
import json
import logging
import os
import sys
import traceback

from .driver import BoundaryError, ConfigMismatch, Harness, Refused
from .loader import LoadError
from .origin import describe
from .park import HarnessError
from .probe import ProbeFinding


def _parse_env(ap, pairs):
    env = {}
    for p in pairs:
        k, sep, v = p.partition("=")
        if not sep or not k:
            ap.error(f"--env wants KEY=VALUE, got {p!r}")  # exit status 2, as documented
        env[k] = v
    return env


def serve(h, stdin, stdout):
    for line in stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except json.JSONDecodeError as e:
            print(f"roomspec_sglang: bad request line: {e}", file=sys.stderr)
            return 2
        op = req.get("op")
        if op == "reset":
            try:
                h.reset(req["config"])
                resp = {"ok": True}
            except ConfigMismatch as e:
                # the configuration does not describe this code (its
                # timeout differs): the suite reports the refused reset
                resp = {"ok": False, "error": str(e)}
        elif op == "apply":
            try:
                h.apply(req["action"], req.get("params", []))
                resp = {"ok": True}
            except Refused as e:
                resp = {"ok": False, "error": str(e)}
        elif op == "observe":
            resp = {"ok": True, "state": h.observe()}
        elif op == "quit":
            stdout.write(json.dumps({"ok": True}) + "\n")
            stdout.flush()
            return 0
        else:
            resp = {"ok": False, "error": f"unknown op {op!r}"}
        stdout.write(json.dumps(resp) + "\n")
        stdout.flush()
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="roomspec_sglang", description=__doc__.split("\n\n")[1])
    ap.add_argument("--sglang", required=True, help="folder holding sglang/srt/...")
    ap.add_argument("--backend", choices=("nixl", "mooncake"), default="nixl",
                    help="the KV-transfer backend whose conn.py is driven (default nixl)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="environment variable for the loaded code (repeatable)")
    ap.add_argument("--probe", action="store_true", help="print the ingredients and exit")
    ap.add_argument("--timeout", type=float, default=5.0,
                    help="seconds a real thread may run before it must park again")
    ap.add_argument("--verbose", action="store_true", help="show SGLang's own log")
    args = ap.parse_args(argv)
    env = _parse_env(ap, args.env)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.CRITICAL,
                        stream=sys.stderr)
    if not args.verbose:
        logging.disable(logging.CRITICAL)
    h = None
    try:
        if args.backend == "mooncake":
            from .mooncake import MooncakeHarness

            h = MooncakeHarness(args.sglang, env=env, timeout=args.timeout)
        else:
            h = Harness(args.sglang, env=env, timeout=args.timeout)
        if args.probe:
            from .probe import probe

            print(json.dumps(probe(h), sort_keys=True))
            return 0
        return serve(h, sys.stdin, sys.stdout)
    except LoadError as e:
        print(f"roomspec_sglang: {e}", file=sys.stderr)
        return 2
    except (BoundaryError, HarnessError) as e:
        print(f"roomspec_sglang: {e}", file=sys.stderr)
        return 3
    except ProbeFinding as e:
        print(f"roomspec_sglang: probe: {e}", file=sys.stderr)
        return 3
    except Exception as e:
        # Raised where the harness expected nothing: say whose exception it
        # is (SGLang's code, or the harness's own) and where.
        traceback.print_exc(file=sys.stderr)
        root = h.loader.root if h is not None else args.sglang
        print(f"roomspec_sglang: {describe(e, root)}", file=sys.stderr)
        return 3
    finally:
        if h is not None:
            h.close()


if __name__ == "__main__":
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # SGLang's bootstrap thread is not a daemon: leave without waiting.
    os._exit(code)
