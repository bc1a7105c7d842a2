"""The driver: spec actions in, SGLang's real threads and scheduler functions
run, spec variables out.

One Harness owns one prefill rank of SGLang's real code: a real NixlKVManager
(its bootstrap thread and transfer workers running, parked at the fakes), a
real PrefillBootstrapQueue, and a scheduler object that is SGLang's own
SchedulerDisaggregationPrefillMixin with the attributes those methods read.
The decode side is emulated here (decode is the spec's environment).

Each apply() takes exactly one step of one real thread, or one call of one
real scheduler function, as Room.tla's action of that name describes it;
observe() maps SGLang's dicts and the fakes back onto Room.tla's variables
(the refinement mapping). The mapping is the only part of the harness that
knows the spec.
"""

import os
import struct
import sys
import types

from . import fakes
from .client import Client
from .loader import Loader
from .origin import describe, raise_site
from .park import Controller, HarnessError
from .stubs import Namespace

POLL_NAMES = {0: "Failed", 1: "Bootstrapping", 2: "WaitingForInput", 3: "Transferring",
              4: "Success"}

# The prefill rank's PULL port and the decode ranks' addresses (fake network).
PREFILL_PORT = 41000
TOKENS_PER_CHUNK = 4


def registration_frames(guard, addr, agent, d):
    """Decode rank d's registration (its KV and aux base pointers): the
    frames of KVArgsRegisterInfo.from_zmq, optional trailing frames empty."""
    ip, port = addr
    return [guard, b"None", ip.encode(), str(port).encode(), agent.encode(),
            f"agent-metadata-{d}".encode(),
            struct.pack("Q", 0x300000 + d * 0x100000),  # kv ptrs
            struct.pack("Q", 0x900000 + d * 0x10000),  # aux ptrs
            b"",  # state ptrs
            b"0", b"1", b"0",  # gpu id, attn tp size, engine rank
            b"64",  # kv item len
            b"", b"", b"", b"", b""]  # state item lens, dims, staging base, size, slots


def transfer_info_frames(guard, room, addr, agent, index, num_tokens, required):
    """A TransferInfo of decode rank `agent` for room: its page indices (a
    disjoint range per request index), aux index, required_dst_info_num."""
    ip, port = addr
    pages = struct.pack(f"<{num_tokens}i", *range(index * num_tokens, (index + 1) * num_tokens))
    return [guard, str(room).encode(), ip.encode(), str(port).encode(), agent.encode(), pages,
            str(index % 1024).encode(), str(required).encode(), b"", b"0", b"0"]


class Refused(Exception):
    """The action is not possible in the implementation's current state."""


class EffectViolation(Refused):
    """The step ran, and what it did to a boundary the spec's variables do
    not show (the client's answer, the metadata pool) is wrong: SGLang's
    finding at this step (client.py)."""


class ConfigMismatch(Exception):
    """The reset's configuration does not describe the loaded code (its
    timeout differs): a reply out of the configuration, not a step."""


class BoundaryError(HarnessError):
    """The loaded code does not fit a boundary the harness fakes."""

    def __init__(self, boundary, detail):
        super().__init__(f"boundary {boundary}: {detail}")
        self.boundary = boundary


class HostTensor(__import__("numpy").ndarray):
    """The scheduler's req_to_token table: a torch tensor on the host in
    SGLang; here a numpy array that answers the tensor calls send_kv_chunk
    makes on it (.cpu(), .numpy(), .to())."""

    def cpu(self):
        return self

    def numpy(self):
        return self.view(__import__("numpy").ndarray)

    def to(self, *args, **kwargs):
        return self


class ExtendRange:
    def __init__(self, end):
        self.start = 0
        self.end = end


class Harness:
    """SGLang's real prefill room handling under the conformance protocol.

    This class drives NIXL's backend (nixl/conn.py); mooncake.py's
    MooncakeHarness overrides what differs for Mooncake's (the module, its
    transfer engine, decode's frames and listener). BACKEND names the
    TransferBackend member and the server's --disaggregation-transfer-backend.
    """

    BACKEND = "nixl"
    # decode counts a room's writes by the notifications they carry
    # (client.py judges them after Success)
    COUNTS_NOTIFICATIONS = True

    def __init__(self, root, env=None, timeout=5.0, agent=None):
        """agent, if given, makes the harness free-running (live.py): real
        ZeroMQ sockets, real transfer queues, the real clock, and agent()
        as the NIXL agent; the default parks every thread at the fakes."""
        self.timeout = timeout
        self.env = dict(env or {})
        self.live = agent is not None
        # Per-room state left behind is judged after each step; the probe
        # turns it off (its situations are made by hand).
        self.left_behind_checked = True
        self.net = None
        self.controller = None
        self.clock = fakes.Clock()
        self._fake_zmq = fakes.fake_zmq_module(lambda: self.net)
        extra = fakes.fake_nixl_modules(agent or self._make_agent)
        self.loader = Loader(root, extra=extra)
        if not self.live:
            sys.modules["zmq"] = self._fake_zmq
        os.environ.update(self.env)
        self._import()

    # ---- loading -------------------------------------------------------------

    def _import(self):
        L = self.loader
        self.base = L.module("disaggregation.base.conn")
        self.utils = L.module("disaggregation.utils")
        self.common = L.module("disaggregation.common.conn")
        self._import_backend()
        self.prefill = L.module("disaggregation.prefill")
        self.envs = getattr(L.module("environ"), "envs", None)
        self.KVPoll = self.base.KVPoll
        for name in ("PrefillBootstrapQueue", "SchedulerDisaggregationPrefillMixin"):
            if not hasattr(self.prefill, name):
                raise BoundaryError("loading", f"prefill.py has no {name}")
        self.time_readers = []
        if self.live:
            return
        # The clock: every real module that reads time.time() sees the fake.
        fake_time = fakes.fake_time_module(self.clock)
        for modname, mod in list(sys.modules.items()):
            if modname.startswith("sglang.srt.") and isinstance(mod, types.ModuleType):
                if getattr(mod, "time", None) is sys.modules.get("time"):
                    mod.time = fake_time
                    self.time_readers.append(modname)
        self.conn.FastQueue = fakes.ParkingQueue

    def _import_backend(self):
        """The backend's module (self.conn) and what the fakes replace in it."""
        self.nixl = self.loader.module("disaggregation.nixl.conn")
        for name in ("NixlKVManager", "NixlKVSender"):
            if not hasattr(self.nixl, name):
                raise BoundaryError("loading", f"nixl/conn.py has no {name}")
        if not hasattr(self.nixl, "FastQueue"):
            raise BoundaryError("transfer queues",
                                "nixl/conn.py does not build its queues from FastQueue")
        self.guard = getattr(self.nixl, "GUARD", b"NixlMsgGuard")
        self.conn = self.nixl

    def _make_agent(self, *args, **kwargs):
        return fakes.FakeAgent(self.controller, *args, **kwargs)

    # ---- reset ---------------------------------------------------------------

    def reset(self, config):
        if self.controller is not None:
            self.controller.close()
        self.rooms = config["rooms"]
        self.ranks = config["decode_ranks"]
        self.requests = config["requests"]
        self.required = int(config["required_dst_info_num"])
        self.num_chunks = int(config["num_chunks"])
        self.bootstrap_timeout = config.get("bootstrap_timeout")
        self.tick_before = bool(config.get("clock_before_timeout", True))
        self.decode_addr = [(f"10.0.0.{i + 1}", 17000 + i) for i in range(len(self.ranks))]
        self.agent_names = [f"decode-{i}" for i in range(len(self.ranks))]

        self.controller = Controller(self.timeout)
        endpoints = {f"tcp://{ip}:{port}": i for i, (ip, port) in enumerate(self.decode_addr)}
        self.net = fakes.Network(self.controller, PREFILL_PORT, endpoints)
        self.net.inbound = {i: [] for i in range(len(self.ranks))}
        self.queues = []
        fakes.ParkingQueue.controller = self.controller
        fakes.ParkingQueue.registry = self.queues
        self.sending = None
        fakes.ParkingQueue.tagger = lambda: self.sending
        self.crashed = None
        self.processing = {}  # worker thread -> request index of its posted chunk
        self.destination = {}  # worker thread -> the requests whose pages its writes fill

        # decode's own bookkeeping (the environment)
        n = len(self.requests)
        self.ti_sent = [set() for _ in range(n)]
        self.aborted = [False] * n
        self.pages_released = [set() for _ in range(n)]

        self.mgr = self._build_manager()
        self._check_timeout()
        workers = len(self.queues)
        # Room ids: the model has one worker queue, so the rooms get ids that
        # share one under either sharding rule (by room before PR #32025,
        # nixl/conn.py:2124 at 1b4176cc; by the destination ports since,
        # :2441-2444, the same decode ranks for every room).
        self.room_ids = [1000 + i * max(workers, 1) for i in range(len(self.rooms))]
        self.controller.wait_parked(1 + workers, "start-up (bootstrap thread and workers)")
        self.bootstrap_thread = self.controller.find("recv")[0].thread
        # A message whose handler sleeps waits in it, unhandled: (rank, entry).
        self.held = None
        self.clock.controller = None if self.live else self.controller
        self.clock.sleepers = (self.bootstrap_thread,)
        for i in range(len(self.ranks)):
            what = f"registration of decode rank {i}"
            if self._deliver(self._registration(i), what) == "died":
                raise BoundaryError("decode registration",
                                    f"the bootstrap thread died on {what}: {self.controller._deaths_text()}")
        self._start_decode_listeners()
        self.client = Client(self.num_chunks, self.COUNTS_NOTIFICATIONS)
        self.bq = self._build_bootstrap_queue()
        self.pool = fakes.KVPool(max(n, 1), TOKENS_PER_CHUNK * self.num_chunks)
        self.sched = self._build_scheduler(self.pool)
        self.bq.scheduler = self.sched
        self.reqs = [self._make_req(i, self.room_ids[self.requests[i]["room"]]) for i in range(n)]

    def _check_timeout(self):
        """The configuration's bootstrap timeout must be the code's own: the
        one its manager reads (SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT,
        common/conn.py:248), whose default environ.py declares. A code
        without one (before PR #34692 NIXL's sender never reads it) has
        nothing to check."""
        want = self.bootstrap_timeout
        got = getattr(self.mgr, "bootstrap_timeout", None)
        if want is None:
            # No configuration to hold it to (the probe): the code's own.
            self.bootstrap_timeout = None if got is None else int(got)
            return
        if got is None:
            return
        if float(got) != float(want):
            field = getattr(getattr(self.envs, "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT", None), "default", None)
            raise ConfigMismatch(
                f"the code's bootstrap timeout is {got:g} s (SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT, "
                f"default {field} in environ.py{'' if 'SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT' not in os.environ else ', set in the environment'}), "
                f"the configuration's BootstrapTimeoutSecs is {want}")

    def _start_decode_listeners(self):
        """Decode's real ABORT_ACK listener (nixl/conn.py
        _start_decode_listener_thread, PR #35360), one per decode rank, on a
        decode-side manager that holds only what the listener reads: its
        PULL socket and the drain-ack tracker (common/conn.py:263). Commits
        before it have no listener: prefill sends no ABORT_ACK there."""
        self.decode = []
        start = getattr(self.nixl.NixlKVManager, "_start_decode_listener_thread", None)
        if start is None or not hasattr(self.nixl.NixlKVManager, "note_abort_ack"):
            return
        for d in range(len(self.ranks)):
            dm = self.nixl.NixlKVManager.__new__(self.nixl.NixlKVManager)
            dm.server_socket = fakes.DecodeSocket(self.controller, d)
            dm._deferred_abort_ack_tracker = {}
            dm._staging_handler = None
            start(dm)
            self.decode.append(dm)
        self.controller.wait_parked(len(self.controller.parked) + len(self.ranks)
                                    - len(self.controller.find("decode-recv")),
                                    "decode's ABORT_ACK listeners")

    def _build_manager(self):
        KVArgs = self.base.KVArgs
        args = KVArgs()
        values = dict(
            engine_rank=0, pp_rank=0, system_dp_rank=0, kv_cache_dtype_str="bfloat16",
            kv_data_ptrs=[0x100000], kv_data_lens=[4096 * 64], kv_item_lens=[64],
            aux_data_ptrs=[0x200000], aux_data_lens=[4096 * 16], aux_item_lens=[16],
            state_data_ptrs=[], state_data_lens=[], state_item_lens=[], state_types=[],
            state_dim_per_tensor=[], state_layer_ids=[], kv_layer_ids=[],
            ib_device=None, gpu_id=0, page_size=1, kv_head_num=1, total_kv_head_num=1,
            prefill_start_layer=0, prefill_end_layer=1, mla_compression_ratios=None,
            kv_data_mem_kinds=["VRAM"], decode_tp_size=1, prefill_pp_size=1,
        )
        for k, v in self._kv_layout(values).items():
            setattr(args, k, v)
        server_args = Namespace(
            "server_args", host="127.0.0.1", disaggregation_bootstrap_port=8998,
            dist_init_addr=None, pp_size=1, tp_size=1, dp_size=1, enable_dp_attention=False,
            disaggregation_ib_device=None, load_balance_method="round_robin",
            optimistic_prefill_attempts=0, disaggregation_transfer_backend=self.BACKEND,
            enable_hierarchical_cache=False, nnodes=1, node_rank=0, dcp_size=1,
            attn_cp_size=1, ep_size=1, moe_dp_size=1, page_size=1,
        )
        mode = self.utils.DisaggregationMode.PREFILL
        cls = self._manager_class()
        try:
            return cls(args, mode, server_args, False)
        except HarnessError:
            raise
        except Exception as e:
            raise BoundaryError("manager construction",
                                f"{cls.__name__}(...) raised {type(e).__name__}: {e}") from e

    def _manager_class(self):
        return self.nixl.NixlKVManager

    def _kv_layout(self, values):
        """The KV cache's registration (KVArgs) as the backend reads it."""
        return values

    def _build_bootstrap_queue(self):
        PBQ = self.prefill.PrefillBootstrapQueue
        bq = PBQ.__new__(PBQ)
        allocator = Namespace("metadata_allocator", available_size=lambda: 1 << 20)
        allocator.alloc = self.client.alloc
        allocator.free = self.client.free
        attrs = dict(
            token_to_kv_pool=Namespace("token_to_kv_pool", page_size=1),
            draft_token_to_kv_pool=None, is_mla_backend=False,
            metadata_buffers=Namespace("metadata_buffers"),
            req_to_metadata_buffer_idx_allocator=allocator, tp_rank=0, tp_size=1,
            pp_rank=0, pp_size=1, gpu_id=0, bootstrap_port=8998, queue=[],
            gloo_group=None, max_total_num_tokens=1 << 30,
            transfer_backend=self.utils.TransferBackend(self.BACKEND), kv_manager=self.mgr,
        )
        for k, v in attrs.items():
            setattr(bq, k, v)
        return bq

    def _build_scheduler(self, pool):
        Mixin = self.prefill.SchedulerDisaggregationPrefillMixin
        harness = self

        class Scheduler(Mixin):
            """SGLang's prefill scheduler methods on the attributes they read."""

            def __getattr__(self, key):
                if key.startswith("__"):
                    raise AttributeError(key)
                from .stubs import Stub

                full = f"scheduler.{key}"
                Stub.served.add(full)
                return Stub(full)

        s = Scheduler()
        req_to_token = pool.req_to_token.view(HostTensor)
        attrs = dict(
            disagg_prefill_bootstrap_queue=self.bq,
            disagg_prefill_inflight_queue=[],
            disagg_prefill_pending_chunk_rids=set(),
            server_args=Namespace("server_args", optimistic_prefill_attempts=0,
                                   disaggregation_mode="prefill"),
            attn_cp_cpu_group=None, attn_tp_cpu_group=None, tp_cpu_group=None,
            tree_cache=pool,
            # one metadata pool, as in SGLang (the scheduler hands its
            # allocator to the bootstrap queue)
            req_to_metadata_buffer_idx_allocator=self.bq.req_to_metadata_buffer_idx_allocator,
            output_streamer=Namespace("output_streamer", stream_output=self.client.stream_output),
            metrics_reporter=Namespace("metrics_reporter", enable_metrics=False),
            enable_metrics=False, enable_hicache_storage=False, enable_overlap=False,
            enable_staging=False, spec_algorithm=Namespace("spec_algorithm"),
            token_to_kv_pool_allocator=Namespace(
                "token_to_kv_pool_allocator", page_size=1,
                translate_kv_indices_for_transfer=lambda idx: idx),
            req_to_token_pool=Namespace("req_to_token_pool", req_to_token=req_to_token),
            disagg_metadata_buffers=Namespace("disagg_metadata_buffers",
                                               set_buf=self.client.set_buf),
            ps=Namespace("ps", tp_rank=0, pp_rank=0, dp_rank=0, gpu_id=0),
            tp_rank=0, pp_rank=0, chunked_req=None, waiting_queue=[],
        )
        for k, v in attrs.items():
            object.__setattr__(s, k, v)
        return s

    def _make_req(self, qi, room):
        num_tokens = TOKENS_PER_CHUNK * self.num_chunks
        # req_pool_idx and kv stay None until the forward pass allocates the
        # request's KV pages (KVPool.alloc): release_kv_cache is for
        # requests that hold them (prefill.py:1013-1016).
        return Namespace(
            f"req[{qi}]", rid=f"req-{qi}", bootstrap_room=room, bootstrap_host="10.0.0.100",
            bootstrap_port=8998, disagg_kv_sender=None, origin_input_ids=list(range(num_tokens)),
            metadata_buffer_index=-1, pending_bootstrap=False, prefill_attempt_count=0,
            is_retracted=False, time_stats=Namespace("time_stats"),
            sampling_params=Namespace("sampling_params"), finished_reason=None,
            to_finish=None, req_pool_idx=None, kv=None, mamba_pool_idx=None,
            start_send_idx=0, extend_range=ExtendRange(num_tokens), return_logprob=False,
            disagg_decode_prefix_len=0, disagg_prefill_dp_rank=None, inflight_middle_chunks=0,
            output_ids=[], grammar=None, return_sampling_mask=False, tmp_end_idx=-1,
            early_send_prefix_end=None, hidden_states_tensor=None, is_chunked=0,
            routed_dp_rank=None, data_parallel_rank=None,
        )

    # ---- decode's frames -----------------------------------------------------

    def _info_rank(self):
        """transfer_infos[room] is keyed by the decode rank's agent name."""
        return {name: i for i, name in enumerate(self.agent_names)}

    def _registration(self, d):
        return registration_frames(self.guard, self.decode_addr[d], self.agent_names[d], d)

    def _transfer_info(self, d, qi):
        room = self.room_ids[self.requests[qi]["room"]]
        return transfer_info_frames(self.guard, room, self.decode_addr[d], self.agent_names[d],
                                    qi, TOKENS_PER_CHUNK * self.num_chunks, self.required)

    def _abort(self, d, qi):
        ip, port = self.decode_addr[d]
        room = self.room_ids[self.requests[qi]["room"]]
        return [b"ABORT", str(room).encode(), ip.encode(), str(port).encode()]

    def _deliver(self, frames, what):
        """Hand one message to the bootstrap thread; wait until it parks again."""
        parked = self.controller.find("recv")
        if not parked:
            raise Refused("the bootstrap thread is not reading")
        outcome = self.controller.resume(parked[0], frames, what)
        return outcome

    # ---- apply ---------------------------------------------------------------

    def apply(self, action, params):
        if self.crashed is not None and not action.startswith("Decode"):
            raise Refused(f"prefill crashed: {self.crashed}")
        fn = getattr(self, "do_" + action, None)
        if fn is None:
            raise BoundaryError("protocol", f"unknown action {action}")
        self._judged(lambda: fn(*params))

    def _judged(self, step):
        """Run step, then judge what it did at the client boundary."""
        self.client.before(self.reqs, self._room_status)
        step()
        if self.crashed is None:
            problem = self.client.after(self.reqs, lambda r: self._position(r) != "Released",
                                        self._compaction_gate(),
                                        lambda r: any(x is r and self.aborted[i] for i, x in enumerate(self.reqs)))
            if problem:
                raise EffectViolation("real effect: " + problem)
            problem = self._left_behind() if self.left_behind_checked else ""
            if problem:
                raise EffectViolation("real effect: " + problem)

    def _left_behind(self):
        """The transfer manager's per-room chunk counter
        (_staging_outstanding, PR #30545) must not outlive the room's
        chunks: a room none of whose chunks is queued or posted has no
        entry, or prefill keeps one entry per room it ever served (the
        worker drops it with the last chunk, nixl/conn.py transfer_worker).
        The spec's `outstanding` is the count, which cannot tell an entry
        at 0 from none; this is the presence, judged once the room is gone
        from request_status (while it is there, the spec's variables show
        the room alive, or left behind: NoEntryAfterRelease). An entry
        above 0 is the spec's to judge (a worker that raised keeps its
        chunk counted on purpose: its writes may still land). "" if none
        is left."""
        counter = getattr(self.mgr, "_staging_outstanding", None)
        if not counter:
            return ""
        tags = [tag for q in self.queues for tag, _ in q.items]
        if None in tags:
            return ""  # a chunk of no known request: its room cannot be told
        busy = {self.requests[tag]["room"] for tag in tags}
        busy |= {self.requests[qi]["room"] for qi in self.processing.values()}
        for i, rid in enumerate(self.room_ids):
            if i not in busy and counter.get(rid) == 0 and rid not in self.mgr.request_status:
                return (f"SGLang keeps an entry at 0 for room {i} in the transfer manager's _staging_outstanding "
                        "with no chunk of it queued or posted: a per-room counter prefill never frees")
        return ""

    def do_DecodeSendTransferInfo(self, d, qi):
        if self.aborted[qi] or d in self.ti_sent[qi]:
            raise Refused("decode sends one TransferInfo per rank, before it aborts")
        self.ti_sent[qi].add(d)
        self.net.inbound[d].append(("TransferInfo", qi, self._transfer_info(d, qi)))

    def do_DecodeAbort(self, qi):
        if self.aborted[qi]:
            raise Refused("decode aborts once")
        self.aborted[qi] = True
        for d in range(len(self.ranks)):
            self.net.inbound[d].append(("ABORT", qi, self._abort(d, qi)))
        if self.deferred_release() and self.decode:
            # Decode holds the pages until every prefill rank it notified
            # ACKs the drain: the scheduler arms the room's tracker when it
            # sends the ABORT (managers/scheduler.py:4611
            # register_deferred_abort_room; a fresh set per abort).
            room = self.room_ids[self.requests[qi]["room"]]
            for dm in self.decode:
                dm.register_deferred_abort_room(room)
        else:
            self.pages_released[qi] = set(range(len(self.ranks)))

    def deferred_release(self):
        return bool(getattr(self.mgr, "enable_deferred_decode_kv_release", False))

    def _ack_frames(self, d):
        """The frame lists prefill pushed to decode rank d and d has not read,
        and among them the ABORT_ACKs: the message type is the first frame,
        as decode's listener tells them (nixl/conn.py:607)."""
        box = self.net.outbound.get(d, [])
        return box, [f for f in box if f and f[0] == b"ABORT_ACK"]

    def do_DecodeRecvAbortAck(self, d):
        box, acks = self._ack_frames(d)
        if not acks:
            raise Refused("no ABORT_ACK for this rank")
        if not self.decode:
            raise BoundaryError("decode listener", "prefill sent an ABORT_ACK, and decode's code at this "
                                "commit has no listener for it (nixl/conn.py _start_decode_listener_thread)")
        # Decode's listener reads what prefill pushed, in order, up to and
        # including the first ABORT_ACK (what it does not recognise it logs
        # and drops).
        while True:
            frames = box.pop(0)
            p = self.controller.find("decode-recv", lambda x: x.key == d)
            if not p:
                raise HarnessError(f"decode rank {d}'s listener is not reading")
            if self.controller.resume(p[0], frames, f"decode rank {d}'s listener") == "died":
                raise HarnessError(f"decode rank {d}'s listener died: {self.controller._deaths_text()}")
            if frames[0] == b"ABORT_ACK":
                break
        # Decode releases a held request once is_abort_release_safe: every
        # prefill rank it notified ACKed (decode.py:2267; one prefill rank
        # here), then drops the room's tracker (_do_release, :2249).
        dm = self.decode[d]
        released = set()
        for qi, req in enumerate(self.requests):
            room = self.room_ids[req["room"]]
            if self.aborted[qi] and d not in self.pages_released[qi] and dm.is_abort_release_safe(room, 1):
                self.pages_released[qi].add(d)
                released.add(room)
        for room in released:
            dm.clear_deferred_abort_state(room)

    def _bootstrap_recv(self, d, kind):
        what = f"bootstrap thread: {kind} from decode rank {d}"
        if self.held is not None:
            # The thread sleeps in the handler of a message it read: only
            # that message's step can go on (it re-checks what it waits for).
            hd, entry = self.held
            if (hd, entry[0]) != (d, kind):
                raise Refused(f"the bootstrap thread waits in the handler of rank {hd}'s {entry[0]}")
            p = self.controller.find("sleep", lambda x: x.thread is self.bootstrap_thread)
            self.controller.resume(p[0], None, what)
        else:
            box = self.net.inbound[d]
            if not box or box[0][0] != kind:
                raise Refused(f"the head of rank {d}'s connection is not a {kind}")
            if not self.bootstrap_thread.is_alive():
                raise Refused("the bootstrap thread is dead")
            entry = box.pop(0)
            self._deliver(entry[2], what)
        self.held = None
        if self.controller.find("sleep", lambda x: x.thread is self.bootstrap_thread):
            # It sleeps before it acted on the message (the state is as
            # before: the message is still the head of its connection).
            self.held = (d, entry)
            raise Refused(f"the bootstrap thread waits in the handler of this {kind}")

    def do_BootstrapRecvTransferInfo(self, d):
        self._bootstrap_recv(d, "TransferInfo")

    def do_BootstrapRecvAbort(self, d):
        self._bootstrap_recv(d, "ABORT")

    def _scheduler_call(self, what, fn):
        try:
            return fn()
        except Exception as e:
            # An exception SGLang's scheduler code raises escapes its event
            # loop and kills the prefill process: the spec's loud failure.
            # One the harness (a fake, a stub) raised is the harness's.
            who, where = raise_site(e, self.loader.root)
            if who != "sglang" or not isinstance(e, (KeyError, RuntimeError)):
                raise HarnessError(f"{what}: {describe(e, self.loader.root)}") from e
            self.crashed = f"{what}: {type(e).__name__}: {e} (at {where})"
            return None

    def do_SchedulerCreateSender(self, qi):
        req = self.reqs[qi]
        if req.disagg_kv_sender is not None:
            raise Refused("the sender exists")
        self._scheduler_call("PrefillBootstrapQueue.add", lambda: self.bq.add(req, 1))

    def _statuses(self, reqs):
        return ", ".join(f"{r.rid}: {self._room_status(r)}" for r in reqs) or "empty"

    def _room_status(self, req):
        s = self.mgr.request_status.get(req.bootstrap_room)
        return "Absent" if s is None else POLL_NAMES.get(int(s), str(s))

    def do_SchedulerPollBootstrap(self):
        """One pass of the event loop over the bootstrap queue, as
        event_loop_normal_disagg_prefill makes it (prefill.py:577):
        waiting_queue.extend(pop_bootstrapped())."""
        before = list(self.bq.queue)
        popped = self._scheduler_call("pop_bootstrapped", self.bq.pop_bootstrapped)
        if self.crashed is not None:
            return
        self.sched.waiting_queue.extend(popped or [])
        if [id(r) for r in self.bq.queue] == [id(r) for r in before]:
            raise Refused("the bootstrap-queue pass moved no request (" + self._statuses(before) + ")")

    def do_SchedulerSend(self, qi):
        """The forward pass of request qi, a batch of one: the scheduler
        takes it off the waiting queue (scheduler.py's batch selection) and
        allocates its KV pages (the pool); the non-last chunks go out with
        send_kv_chunk as chunked prefill sends them; then
        process_batch_result_disagg_prefill moves it to the in-flight queue
        and sends the last chunk (prefill.py:658, :744, :786)."""
        req = self.reqs[qi]
        if req not in self.sched.waiting_queue:
            raise Refused("not in the waiting queue")
        self.sending = qi
        try:
            self._scheduler_call("process_batch_result_disagg_prefill", lambda: self.forward(req))
        finally:
            self.sending = None

    def _compaction_gate(self):
        """The scheduler's pending-chunk set (the memory-compaction gate of
        PR #33362, prefill.py clear_pending_chunk_send), or None in a
        commit before it, where nothing gates compaction and no rule of
        the set applies."""
        if not hasattr(self.prefill.SchedulerDisaggregationPrefillMixin, "clear_pending_chunk_send"):
            return None
        return self.sched.disagg_prefill_pending_chunk_rids

    def forward(self, req):
        """The forward pass of req (a batch of one) and its KV sent."""
        self.sched.waiting_queue.remove(req)
        self.pool.alloc(req)
        # The tokens the forward pass filled (Req.init_next_round_input:
        # fill_ids = origin_input_ids + output_ids): send_kv_chunk's last
        # chunk ends there in commits before extend_range (June 2026).
        req.fill_ids = list(req.origin_input_ids) + list(req.output_ids)
        for k in range(1, self.num_chunks):
            self.sched.send_kv_chunk(req, last_chunk=False, end_idx=k * TOKENS_PER_CHUNK)
        if self.num_chunks > 1 and self._compaction_gate() is not None:
            self.client.chunks_sent(req, self._compaction_gate())
        self.client.in_last = True
        try:
            self._batch_result(req)
        finally:
            self.client.in_last = False

    def _batch_result(self, req):
        from .stubs import FakeTensor

        batch = Namespace("batch", reqs=[req], spec_info=None, prefill_stats=None,
                          dp_cooperation_info=None, return_logprob=False)
        result = Namespace("result", logits_output=None, next_token_ids=FakeTensor([0]),
                           extend_input_len_per_req=None, extend_logprob_start_len_per_req=None,
                           copy_done=None, routed_experts_output=None, indexer_topk_output=None,
                           next_draft_input=None, can_run_cuda_graph=False)
        self.sched.process_batch_result_disagg_prefill(batch, result)

    def do_SchedulerPollInFlight(self):
        """One pass of the event loop over the in-flight queue
        (process_disagg_prefill_inflight_queue, prefill.py:830)."""
        before = list(self.sched.disagg_prefill_inflight_queue)
        self._scheduler_call("process_disagg_prefill_inflight_queue",
                             self.sched.process_disagg_prefill_inflight_queue)
        if self.crashed is not None:
            return
        after = self.sched.disagg_prefill_inflight_queue
        if [id(r) for r in after] == [id(r) for r in before]:
            raise Refused("the in-flight pass moved no request (" + self._statuses(before) + ")")

    def do_Tick(self, qi):
        """The clock moves to one second before request qi's bootstrap
        timeout expires (where the configuration's TickBeforeTimeout stops
        there) or, from there, to the instant it expires
        (Room.tla's Tick): time.time() of every module that reads it."""
        req = self.reqs[qi]
        sender = req.disagg_kv_sender
        if sender is None or self._position(req) == "Released":
            raise Refused("the scheduler does not hold this request")
        init = getattr(sender, "init_time", None)
        if init is None or self.bootstrap_timeout is None:
            raise Refused("this code's sender keeps no init_time: it has no bootstrap timeout")
        # Only a poll that reads Bootstrapping reads the clock
        # (nixl/conn.py:2831): for any other, time passing changes nothing
        # a later poll can tell, and the spec moves the clock only then.
        if self._room_status(req) != "Bootstrapping":
            raise Refused(f"its room reads {self._room_status(req)}: no poll of it reads the clock")
        t = int(self.bootstrap_timeout)
        elapsed = self.clock.now - init
        if self.tick_before and elapsed < t - 1:
            self.clock.now = init + t - 1
        elif elapsed < t:
            self.clock.now = init + t
        else:
            raise Refused("its bootstrap timeout has expired")

    def do_WorkerPost(self, qi):
        for p in self.controller.find("queue"):
            q = p.key
            if q.items and q.items[0][0] == qi:
                outcome = self.controller.resume(p, None, f"transfer worker: a chunk of request {qi}")
                if outcome == "died":
                    raise HarnessError("a transfer worker died")
                if self.controller.find("xfer", lambda x: x.thread is p.thread):
                    self.processing[p.thread] = qi
                    self.destination[p.thread] = self._destination(qi)
                return
        raise Refused("no worker's queue has a chunk of this request at its head")

    def _destination(self, qi):
        """The requests whose pages a chunk of request qi's room is written
        to: those whose TransferInfo the room's transfer_infos holds as the
        worker posts (it reads them there), told by their page indices
        (decode's pages are a range per request index, _transfer_info).
        With a room id reused, a chunk of one incarnation may be written
        into the other's pages. [qi] where the room holds none."""
        room = self.room_ids[self.requests[qi]["room"]]
        infos = getattr(self.mgr, "transfer_infos", {}).get(room, {})
        per = TOKENS_PER_CHUNK * self.num_chunks
        dest = set()
        for ti in infos.values():
            pages = getattr(ti, "dst_kv_indices", None)
            if pages is not None and len(pages) > 0 and int(pages[0]) // per < len(self.reqs):
                dest.add(int(pages[0]) // per)
        return sorted(dest) or [qi]

    def do_WorkerComplete(self, qi):
        for p in self.controller.find("xfer"):
            if self.processing.get(p.thread) == qi:
                del self.processing[p.thread]
                for q in self.destination.pop(p.thread, [qi]):
                    self.client.landed(self.reqs[q].rid, p.key)
                outcome = self.controller.resume(p, "DONE", f"transfer worker: writes of request {qi} complete")
                if outcome == "died":
                    raise HarnessError("a transfer worker died")
                return
        raise Refused("no write of this request is in progress")

    # ---- observe -------------------------------------------------------------

    def _position(self, req):
        """Where SGLang's scheduler holds req: its queues (the bootstrap
        queue's, the scheduler's waiting and in-flight queues). A request
        with a sender in none of them has been let go."""
        if req.disagg_kv_sender is None:
            return "NoSender"
        for name, queue in (("BootstrapQueue", self.bq.queue), ("WaitingQueue", self.sched.waiting_queue),
                            ("InflightQueue", self.sched.disagg_prefill_inflight_queue)):
            if any(r is req for r in queue):
                return name
        return "Released"

    def _elapsed(self, req, position):
        """time.time() - init_time of a held sender (nixl/conn.py:2785),
        capped at the timeout: 0 for a request not held, or a code whose
        sender keeps no init_time."""
        init = getattr(req.disagg_kv_sender, "init_time", None)
        if position in ("NoSender", "Released") or init is None or self.bootstrap_timeout is None:
            return 0
        e = self.clock.now - init
        if e != int(e):
            raise HarnessError(f"{req.rid}: elapsed time {e} is not whole seconds")
        return min(int(e), int(self.bootstrap_timeout))

    def observe(self):
        mgr = self.mgr
        status = []
        infos = []
        outstanding = []
        targets = []
        agent_rank = self._info_rank()
        addr_rank = {(ip, port): i for i, (ip, port) in enumerate(self.decode_addr)}
        room_index = {rid: i for i, rid in enumerate(self.room_ids)}
        for rid in self.room_ids:
            s = mgr.request_status.get(rid)
            status.append("Absent" if s is None else POLL_NAMES[int(s)])
            ti = getattr(mgr, "transfer_infos", {}).get(rid, {})
            infos.append(sorted(agent_rank[a] for a in ti))
            outstanding.append(int(getattr(mgr, "_staging_outstanding", {}).get(rid, 0)))
            t = getattr(mgr, "_deferred_ack_targets", {}).get(rid)
            targets.append(sorted(self._target_ranks(t, addr_rank)))
        sender, elapsed, held, frees = [], [], [], []
        for req in self.reqs:
            pos = self._position(req)
            sender.append(pos)
            elapsed.append(self._elapsed(req, pos))
            held.append(self.pool.holds(req.rid))
            frees.append(min(self.pool.frees.get(req.rid, 0), 2))
        # The worker queues as the spec's wqueue: one batch per run of a
        # request's chunks (all requests of the model share one queue).
        wqueue = []
        for q in self.queues:
            for tag, _ in q.items:
                if wqueue and wqueue[-1]["req"] == tag:
                    wqueue[-1]["left"] += 1
                else:
                    wqueue.append({"req": tag, "left": 1})
        posted = [False] * len(self.reqs)
        for qi in self.processing.values():
            posted[qi] = True
        chan = []
        for d in range(len(self.ranks)):
            waiting = [self.held[1]] if self.held is not None and self.held[0] == d else []
            chan.append([{"type": kind, "room": self.requests[qi]["room"], "rank": d}
                         for kind, qi, _ in waiting + self.net.inbound[d]])
        ack_chan = []
        for d in range(len(self.ranks)):
            ack_chan.append([{"type": "ABORT_ACK", "room": room_index[r], "rank": d}
                             for r in (self._ack_room(f) for f in self._ack_frames(d)[1]) if r in room_index])
        return {
            "request_status": status,
            "transfer_infos": infos,
            "tombstones": sorted(room_index[r] for r in self._tombstones() if r in room_index),
            "bootstrap_alive": self.bootstrap_thread.is_alive(),
            "prefill_crashed": self.crashed is not None,
            "sender": sender,
            "wqueue": wqueue,
            "posted": posted,
            "elapsed": elapsed,
            "kv_held": held,
            "kv_frees": frees,
            "outstanding": outstanding,
            "ack_target": targets,
            "chan": chan,
            "ack_chan": ack_chan,
            "ti_sent": [sorted(s) for s in self.ti_sent],
            "aborted": list(self.aborted),
            "pages_released": [sorted(s) for s in self.pages_released],
        }

    @staticmethod
    def _ack_room(frames):
        """The room an ABORT_ACK names, as decode's listener parses it
        (int(msg[1]), with at least 3 frames), or None."""
        try:
            return int(frames[1].decode("ascii")) if len(frames) >= 3 else None
        except (ValueError, UnicodeDecodeError):
            return None

    @staticmethod
    def _target_ranks(t, addr_rank):
        """_deferred_ack_targets[room]: one (ip, port) (PR #35360), or, in a
        fixed tree, a collection of them."""
        if t is None:
            return []
        if isinstance(t, tuple) and len(t) == 2 and not isinstance(t[0], tuple):
            t = [t]
        return [addr_rank[(ip, int(port))] for ip, port in t]

    def _tombstones(self):
        return getattr(self.mgr, "_roomspec_tombstones", ())

    def close(self):
        if self.controller is not None:
            self.controller.close()
