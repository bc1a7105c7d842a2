"""The free-running harness (live.py) on SGLang's real tree, NIXL's and
Mooncake's backends: real sockets on loopback, a request that completes
and one that decode aborts, both released. Each runs in a child process:
SGLang's bootstrap thread never returns."""

import json
import os
import subprocess
import sys
import unittest

from support import HERE, TREE, needs_tree

CHILD = r'''
import json, os, sys, time
import zmq
from roomspec_sglang import driver, mooncake
from roomspec_sglang.driver import TOKENS_PER_CHUNK
from roomspec_sglang.live import LivePrefill

tree, backend = sys.argv[1], sys.argv[2]
# A 1 s bootstrap timeout: Mooncake's sender, created after the ABORT
# failed its room, sets it Bootstrapping again (Failed is not sticky
# there), and only the timeout releases the request.
lp = LivePrefill(tree, env={"SGLANG_HOST_IP": "127.0.0.1", "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "1"},
                 backend=backend)
lp.start()
ctx = zmq.Context.instance()
ranks = []
for i in range(2):
    push = ctx.socket(zmq.PUSH)
    push.connect("tcp://127.0.0.1:%d" % lp.port)
    pull = ctx.socket(zmq.PULL)
    port = pull.bind_to_random_port("tcp://127.0.0.1")
    if backend == "mooncake":
        name = "127.0.0.1:%d" % (mooncake.SESSION_PORT + i)
        push.send_multipart(mooncake.registration_frames(("127.0.0.1", port), name, i))
    else:
        name = "decode-agent-%d" % i
        push.send_multipart(driver.registration_frames(lp.guard, ("127.0.0.1", port), name, i))
    ranks.append((push, pull, port, name))
time.sleep(0.3)
for k, room in enumerate((700, 701)):
    for push, pull, port, name in ranks:
        if backend == "mooncake":
            push.send_multipart(mooncake.transfer_info_frames(room, ("127.0.0.1", port), name, k, TOKENS_PER_CHUNK, 2))
        else:
            push.send_multipart(driver.transfer_info_frames(lp.guard, room, ("127.0.0.1", port), name, k, TOKENS_PER_CHUNK, 2))
for push, pull, port, name in ranks:
    push.send_multipart([b"ABORT", b"701", b"127.0.0.1", str(port).encode()])
time.sleep(0.2)
lp.arrive(("ok", 1), 700)
lp.arrive(("aborted", 1), 701)
deadline = time.monotonic() + 10
while lp.held() or len(lp.released) < 2:
    if time.monotonic() > deadline or lp.crashed:
        break
    time.sleep(0.05)
print(json.dumps({"held": sorted(k[0] for k in lp.held()), "released": sorted(k[0] for k in lp.released),
                  "crashed": lp.crashed}))
sys.stdout.flush()
os._exit(0)
'''


@needs_tree
class LiveTest(unittest.TestCase):

    def run_child(self, backend):
        p = subprocess.run([sys.executable, "-c", CHILD, TREE, backend], capture_output=True, text=True,
                           timeout=60, env=dict(os.environ, PYTHONPATH=HERE))
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout.splitlines()[-1])

    def test_nixl(self):
        self.assertEqual(self.run_child("nixl"), {"held": [], "released": ["aborted", "ok"], "crashed": None})

    def test_mooncake(self):
        self.assertEqual(self.run_child("mooncake"), {"held": [], "released": ["aborted", "ok"], "crashed": None})


if __name__ == "__main__":
    unittest.main()
