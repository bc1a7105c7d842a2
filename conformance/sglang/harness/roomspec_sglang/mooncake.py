"""Mooncake's backend (mooncake/conn.py) under the same driver as NIXL's.

MooncakeHarness is driver.Harness with what differs for Mooncake: the
module and its classes (MooncakeKVManager, MooncakeKVSender), the transfer
engine in place of the NIXL agent (the same boundary: the worker's writes),
decode's frames (no guard frame; a TransferInfo carries the decode rank's
Mooncake session id) and decode's listener (decode_thread of a decode-side
MooncakeKVManager). An ABORT_ACK counts as the spec's (ack_chan) as for
NIXL: with three frames, the only form decode's thread notes
(mooncake/conn.py:2143-2151, under the deferred release); the 2-frame
ABORT_ACK Mooncake sends for every ABORT otherwise (:2040-2050) decode only
logs, having freed its pages when it aborted (Room.tla, MOONCAKE). The ZeroMQ sockets, transfer queues, clock, registration
and KV pool are the same fakes (fakes.py), and the scheduler is the same
prefill.py; so are apply() and observe().
"""

import collections
import struct
import threading
import time

from . import fakes
from .driver import BoundaryError, Harness, TOKENS_PER_CHUNK

# Decode rank d's Mooncake session id (its transfer engine's "ip:port"):
# add_transfer_request shards by the sum of these ports
# (mooncake/conn.py:2216-2218), the same for every room.
SESSION_PORT = 15100


class FakeTransferEngine:
    """Mooncake's TransferEngine (get_mooncake_transfer_engine(),
    mooncake/conn.py:282): registration succeeds; batch_transfer_sync is
    synchronous in the real engine, so the worker's first write of a chunk
    parks its thread until the driver completes the chunk (the spec's
    WorkerPost, then WorkerComplete), and the chunk's other writes (the
    other decode rank's KV, the aux data) then return 0 at once."""

    def __init__(self, controller):
        self.controller = controller
        self.written = set()  # worker threads whose current chunk completed
        self.transfers = []  # (session, total bytes)

    def get_session_id(self):
        return f"10.0.0.100:{SESSION_PORT - 1}"

    def batch_register(self, *args, **kwargs):
        return 0

    def batch_deregister(self, *args, **kwargs):
        return 0

    def register_memory(self, *args, **kwargs):
        return 0

    def deregister_memory(self, *args, **kwargs):
        return 0

    def begin_chunk(self, thread):
        """The driver lets thread take its next chunk: its first write parks."""
        self.written.discard(thread)

    def batch_transfer_sync(self, session_id, src, dst, lengths):
        me = threading.current_thread()
        if me not in self.written:
            self.controller.park("xfer", key=session_id)
            self.written.add(me)
        self.transfers.append((session_id, sum(lengths)))
        return 0

    def transfer_sync(self, session_id, src, dst, length):
        return self.batch_transfer_sync(session_id, [src], [dst], [length])

    def __getattr__(self, name):
        # An engine method the harness does not know: succeed, like the rest.
        if name.startswith("__"):
            raise AttributeError(name)
        return lambda *a, **k: 0


class TimedEngine(FakeTransferEngine):
    """The engine of the free-running harness (live.py): each write takes
    write_time seconds of the real clock."""

    def __init__(self, write_time):
        super().__init__(None)
        self.write_time = write_time

    def batch_transfer_sync(self, session_id, src, dst, lengths):
        time.sleep(self.write_time)
        return 0


def registration_frames(addr, session, d):
    """Decode rank d's registration (KVArgsRegisterInfo.from_zmq,
    mooncake/conn.py:150): room "None", its KV and aux base pointers, tp
    rank 0 of attention TP size 1, the KV item length of the prefill's."""
    ip, port = addr
    return [b"None", ip.encode(), str(port).encode(), session.encode(),
            struct.pack("2Q", 0x300000 + d * 0x100000, 0x380000 + d * 0x100000),  # K, V
            struct.pack("Q", 0x900000 + d * 0x10000),  # aux ptrs
            b"",  # state ptrs
            b"0", b"1", b"64"]  # tp rank, attn tp size, kv item len


def transfer_info_frames(room, addr, session, index, num_tokens, required):
    """A TransferInfo of decode rank `session` for room
    (TransferInfo.from_zmq, mooncake/conn.py:92): its page indices (a
    disjoint range per request index), aux index, no state indices,
    required_dst_info_num, decode prefix len 0."""
    ip, port = addr
    pages = struct.pack(f"<{num_tokens}i", *range(index * num_tokens, (index + 1) * num_tokens))
    return [str(room).encode(), ip.encode(), str(port).encode(), session.encode(), pages,
            str(index % 1024).encode(), b"", str(required).encode(), b"0", b""]


class MooncakeHarness(Harness):
    """SGLang's real prefill room handling with Mooncake's backend."""

    BACKEND = "mooncake"
    COUNTS_NOTIFICATIONS = False  # Mooncake's writes carry no notification

    def __init__(self, root, env=None, timeout=5.0, engine=None):
        """engine, if given, makes the harness free-running (live.py) with
        engine() as the transfer engine; the default parks every thread at
        the fakes."""
        self._engine_factory = engine
        super().__init__(root, env=env, timeout=timeout, agent=engine)

    def _import_backend(self):
        self.mooncake = self.loader.optional("disaggregation.mooncake.conn")
        if self.mooncake is None:
            raise BoundaryError("loading", "this commit has no mooncake/conn.py")
        for name in ("MooncakeKVManager", "MooncakeKVSender"):
            if not hasattr(self.mooncake, name):
                raise BoundaryError("loading", f"mooncake/conn.py has no {name}")
        if not hasattr(self.mooncake, "FastQueue"):
            raise BoundaryError("transfer queues",
                                "mooncake/conn.py does not build its queues from FastQueue")
        if not hasattr(self.mooncake, "get_mooncake_transfer_engine"):
            raise BoundaryError("transfer engine",
                                "mooncake/conn.py does not take its engine from get_mooncake_transfer_engine")
        self.mooncake.get_mooncake_transfer_engine = self._make_engine
        self.conn = self.mooncake
        self.guard = None

    def _make_engine(self):
        if self._engine_factory is not None:
            self.engine = self._engine_factory()
        else:
            self.engine = FakeTransferEngine(self.controller)
        return self.engine

    def _manager_class(self):
        return self.mooncake.MooncakeKVManager

    def _kv_layout(self, values):
        """One layer's K and V buffers: Mooncake's MHA path pairs the first
        half of kv_data_ptrs (K) with the second (V) per layer
        (get_mha_kv_ptrs_with_pp), so a single buffer is zero layers and no
        KV write at all."""
        return dict(values, kv_data_ptrs=[0x100000, 0x180000], kv_data_lens=[4096 * 64] * 2,
                    kv_item_lens=[64, 64])

    def _start_decode_listeners(self):
        """Decode's real listener (mooncake/conn.py start_decode_thread's
        decode_thread), one per decode rank, on a decode-side manager that
        holds only what the thread reads for ABORT_ACK and status frames:
        its PULL socket, its request_status (no request of its own: a
        status frame changes nothing), the drain-ack tracker. Its heartbeat
        checker (HTTP to prefill) is not started."""
        self.decode = []
        M = self.mooncake.MooncakeKVManager
        if not hasattr(M, "start_decode_thread"):
            raise BoundaryError("decode listener", "MooncakeKVManager has no start_decode_thread")
        deferred = self.deferred_release()
        for d in range(len(self.ranks)):
            dm = M.__new__(M)
            dm.server_socket = fakes.DecodeSocket(self.controller, d)
            dm._deferred_abort_ack_tracker = {}
            dm._staging_handler = None
            dm.enable_staging = False
            dm.enable_deferred_decode_kv_release = deferred
            dm.request_status = {}
            dm.failure_records = {}
            dm.failure_lock = threading.Lock()
            dm.prefill_response_tracker = collections.defaultdict(set)
            dm.required_prefill_response_num_table = {}
            dm._start_heartbeat_checker_thread = lambda: None
            M.start_decode_thread(dm)
            self.decode.append(dm)
        self.controller.wait_parked(len(self.controller.parked) + len(self.ranks)
                                    - len(self.controller.find("decode-recv")),
                                    "decode's listeners")

    def _session(self, d):
        return f"{self.decode_addr[d][0]}:{SESSION_PORT + d}"

    def _registration(self, d):
        return registration_frames(self.decode_addr[d], self._session(d), d)

    def _transfer_info(self, d, qi):
        room = self.room_ids[self.requests[qi]["room"]]
        return transfer_info_frames(room, self.decode_addr[d], self._session(d), qi,
                                    TOKENS_PER_CHUNK * self.num_chunks, self.required)

    def _info_rank(self):
        """transfer_infos[room] is keyed by the decode rank's session id."""
        return {self._session(d): d for d in range(len(self.ranks))}

    def do_WorkerPost(self, qi):
        for p in self.controller.find("queue"):
            q = p.key
            if q.items and q.items[0][0] == qi:
                self.engine.begin_chunk(p.thread)
                break
        super().do_WorkerPost(qi)
