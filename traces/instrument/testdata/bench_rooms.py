"""The cost of the event log per room, on SGLang's real prefill code: run
by traces/instrument's BenchmarkRoomCost, once plainly and once under
python -m roomspec_instrument, in turn.

    bench_rooms.py HARNESS_DIR SGLANG_PYTHON_ROOT ROOMS

roomspec's harness runs the real prefill free (conformance/sglang's
live.py: its bootstrap thread on a real ZeroMQ socket, its transfer
workers, prefill.py's scheduler functions in a scheduler loop; NIXL faked,
transfers complete at once). Two decode ranks register, then ROOMS
healthy rooms go through: both ranks' TransferInfo, the request reaches
the scheduler, its KV is sent, it is released. Prints the process's CPU
time (every thread) and the wall time from the first room's TransferInfo
to the last room's release, as JSON."""

import json
import os
import sys
import time


def main():
    harness_dir, root, rooms = sys.argv[1], sys.argv[2], int(sys.argv[3])
    sys.path.insert(0, harness_dir)
    import zmq
    from roomspec_sglang.driver import registration_frames, transfer_info_frames, TOKENS_PER_CHUNK
    from roomspec_sglang.live import LivePrefill

    pre = LivePrefill(root, env={"SGLANG_HOST_IP": "127.0.0.1"}, write_time=0.0, tick=0.0005,
                      max_requests=rooms + 16)
    pre.start()
    ctx = zmq.Context.instance()
    socks = []
    for i in range(2):
        s = ctx.socket(zmq.PUSH)
        s.connect("tcp://127.0.0.1:%d" % pre.port)
        s.send_multipart(registration_frames(pre.guard, ("127.0.0.1", 17000 + i), "decode-%d" % i, i))
        socks.append(s)
    time.sleep(0.5)
    cpu0, wall0 = time.process_time(), time.monotonic()
    for k in range(rooms):
        room = 5000 + k
        for i, s in enumerate(socks):
            s.send_multipart(transfer_info_frames(pre.guard, room, ("127.0.0.1", 17000 + i), "decode-%d" % i, k,
                                                  TOKENS_PER_CHUNK, 2))
        pre.arrive(room, room)
    deadline = time.monotonic() + 120
    while len(pre.released) < rooms:
        if pre.crashed or time.monotonic() > deadline:
            sys.exit("bench_rooms: %d of %d rooms released (crashed: %s)" % (len(pre.released), rooms, pre.crashed))
        time.sleep(0.001)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    ri = sys.modules.get("roomspec_instrument")
    print(json.dumps({"rooms": rooms, "cpu_s": cpu, "wall_s": wall, "instrumented": bool(ri and ri.active())}))
    sys.stdout.flush()
    # SGLang's bootstrap thread never returns: leave without waiting.
    os._exit(0)


if __name__ == "__main__":
    main()
