package mutate

import (
	"strings"

	"github.com/roomspec/roomspec/conformance/sglang"
)

// Equivalence marks surviving mutants as equivalent to the original, with
// the reason: which configuration could tell them apart, or why none
// could. It is a reviewed table: an entry is a claim about SGLang's code
// that a reviewer checked, matched on what the mutant changes rather than
// on line numbers, so it holds across commits as long as the code it
// names does.
type Equivalence struct {
	// Function (the qualified name) and Operator must equal the
	// mutant's, What must be part of its What, and Source part of the
	// source lines it changes (the diff's removed lines). An empty field
	// matches anything.
	Function, Operator, What, Source string
	// Near, where set, must be part of the mutant's diff, its context
	// lines included: it tells apart the same change on two places.
	Near string
	// Reason says why no run of the suite could tell the mutant from the
	// original, naming the configuration (or boundary) that could.
	Reason string
}

// Reasons shared by several entries.
const (
	metricsOnly  = "metrics and tracing only (request timing, transfer latency and size): nothing of the room lifecycle reads them, so no configuration could tell"
	messageOnly  = "the failure's message and log level only: failure_exception's exception is caught by both its callers, which only log it; Room.tla models no message (failure_records: 'no property reads them')"
	stagingOnly  = "staging (SGLANG_DISAGG_STAGING_BUFFER, PR #30545's staging buffer) is off in every configuration of Room.tla: the mutant takes or skips a staging branch, which changes only how KV data moves, not the room lifecycle the suite observes; only a staging configuration could tell"
	prefixOnly   = "a decode-side prefix (decode radix cache, PR #19746): the harness's TransferInfo carries none and Room.tla models none; only a configuration with a decode prefix could tell"
	unreadSender = "a sender field NIXL's prefill never reads (conclude_state and has_sent are read on the receiving side only); no configuration could tell"
	optimistic   = "optimistic prefill (optimistic_prefill_attempts > 0: a request prefilled and its chunks sent before its bootstrap completes, pending_bootstrap) is off in every configuration of Room.tla: a request that fails in the bootstrap queue has no metadata buffer, no pending chunk and no pending bootstrap; only an optimistic configuration could tell"
	onePage      = "the harness's pages hold one token (page_size 1; Room.tla counts chunks, not pages): aligning a chunk's end to a page changes nothing; only a configuration with pages of several tokens could tell"
	prefillAbort = "the request's finish reason is FINISH_ABORT before its transfer concludes only where the client aborts it on prefill (the tokenizer's abort), which no configuration drives: the test decides between two answers only then"
	sameStep     = "poll() returns Failed either way and the same pop_bootstrapped releases the request with clear(), so the status written here never outlives the step: Room.tla's timeout and release are one scheduler step; only a step of another thread inside the scheduler's poll could tell"
)

// Equivalents is the reviewed table (SGLang adca19c4 and its
// descendants; each entry was read against the code).
var Equivalents = []Equivalence{
	// Metrics, tracing and the model's generation length.
	{Operator: "delete-call", What: "time_stats.", Reason: metricsOnly},
	{What: "self.metrics_reporter.enable_metrics", Reason: metricsOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "negate-cond", What: "negate `metrics`", Reason: metricsOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "drop-cond", What: "`metrics` always true", Reason: metricsOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", What: "FAKE_BOOTSTRAP_HOST", Reason: "the loop after the queue's poll computes metrics only (the fake transfer backend of warm-up requests is skipped there); no configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Source: "is_dummy_cp_rank", Reason: "the loop after the queue's poll computes metrics only (context parallelism's dummy ranks are skipped there); no configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "delete-stmt", What: "delete continue", Source: "continue", Reason: "the loop after the queue's poll computes metrics only; an aborted request's metrics being computed changes nothing else"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", What: "isinstance(req.finished_reason, FINISH_ABORT)`", Source: "if isinstance(req.finished_reason, FINISH_ABORT):", Reason: "the loop after the queue's poll computes metrics only; no configuration could tell"},
	{Function: "NixlKVSender.send", Source: "_transfer_start_time", Reason: metricsOnly},
	{Function: "NixlKVSender.send", Source: "len(kv_indices) > 0 or state_indices is not None", Reason: metricsOnly + " (the test guards the transfer's start time)"},
	{Function: "CommonKVSender.__init__", Source: "self._transfer_num_", Reason: metricsOnly},
	{Function: "NixlKVSender.send", What: "_record_transfer_indices", Reason: metricsOnly},
	{Function: "NixlKVSender.poll", Source: "_transfer_metric.transfer_latency_s", Reason: metricsOnly},
	{Function: "PrefillBootstrapQueue.create_sender", What: "delete the call self._process_req(req)", Reason: "sets the request's max_new_tokens to 1 for the prefill adder's memory estimate; the room lifecycle does not read it, and Room.tla models no generation"},

	// The failure's message.
	{Function: "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure", Source: "is_propagated", Reason: messageOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure", Source: "error_message +=", Reason: messageOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_inflight_transfer_failure", Source: "exc", Reason: messageOnly + " (the returned exception is not used by process_disagg_prefill_inflight_queue)"},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_inflight_transfer_failure", Source: "error_message +=", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "self.kv_mgr.exceptions.pop", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "self.kv_mgr.failure_records.pop", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "raise ", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "if exc is not None", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "if failure_reason is not None", Reason: messageOnly},
	{Function: "NixlKVSender.failure_exception", Source: "if self._send_error is not None", Reason: messageOnly},
	{Function: "NixlKVSender.__init__", Source: "self._send_error", Reason: messageOnly + " (failure_exception reads _send_error after clear(), and an AttributeError there is caught like its own exceptions)"},
	{Function: "CommonKVManager.record_failure", Source: "self.failure_records[bootstrap_room] = failure_reason", Reason: messageOnly},
	{Function: "CommonKVSender._check_bootstrap_timeout", Operator: "delete-call", What: "self.kv_mgr.record_failure(", Reason: messageOnly},
	{Function: "NixlKVManager._handle_abort_notification", Operator: "delete-call", What: "self.record_failure(", Reason: messageOnly},

	// Sender fields nothing on prefill reads.
	{Function: "NixlKVSender.failure_exception", Source: "conclude_state", Reason: unreadSender},
	{Function: "NixlKVSender.__init__", Source: "self.has_sent = False", Reason: unreadSender},
	{Function: "NixlKVSender.send", Source: "self.has_sent = True", Reason: unreadSender},
	{Function: "NixlKVSender.send", Source: "if is_last_chunk:", Reason: unreadSender + " (the branch only sets has_sent)"},
	{Function: "NixlKVSender.failure_exception", Source: "self._send_failed = True", Reason: "poll() and send() read _send_failed, but neither is called on a sender after failure_exception: its request leaves the queue in the same step; no configuration could tell"},

	// The bootstrap timeout's status and its release are one step.
	{Function: "CommonKVSender._check_bootstrap_timeout", Source: "self.kv_mgr.update_status(self.bootstrap_room, KVPoll.Failed)", Reason: sameStep},

	// Features no configuration of Room.tla has.
	{Source: "enable_staging", Reason: stagingOnly},
	{Source: "staging_strategy", Reason: stagingOnly},
	{Source: "staging_buffer", Reason: stagingOnly},
	{Source: "_staging_ctx", Reason: stagingOnly},
	{Source: "staging_counted", Reason: "the flag keeps a chunk from being counted twice when staging re-enqueues it; without staging every chunk is taken once. " + stagingOnly},
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", Source: `b"WATERMARK"`, Reason: stagingOnly},
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", Source: `b"STAGING_RSP"`, Reason: stagingOnly},
	{Source: "is_dcp_transfer", Reason: "decode context parallelism (dcp_size > 1) is off in every configuration; only a DCP configuration could tell"},
	{Source: "is_mla_backend", Reason: "an MLA model's KV layout: Room.tla models no model architecture; only an MLA configuration could tell"},
	{Source: "_is_npu", Reason: "Ascend NPU devices only; no configuration could tell"},
	{Source: "enable_hicache_storage", Reason: "hierarchical cache storage is off in every configuration; only a configuration with it could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Source: "state_indices", Reason: "the state payloads of hybrid models (Mamba, SWA, DSA): Room.tla models none; only a hybrid model's configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Source: "payloads", Reason: "the state payloads of hybrid models (Mamba, SWA, DSA): Room.tla models none; only a hybrid model's configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Source: "seq_len = ", Reason: "read only by the state payloads of hybrid models (Mamba, SWA, DSA): Room.tla models none"},
	{Function: "NixlKVManager.transfer_worker", Source: "kv_chunk.state_indices", Reason: "the state payloads of hybrid models (Mamba, SWA, DSA): Room.tla models none; only a hybrid model's configuration could tell"},
	{Function: "CommonKVSender.__init__", Source: "dp_size > 1", Reason: "data parallelism (dp_size > 1) is off in every configuration; only a DP configuration could tell"},
	{Function: "CommonKVSender.__init__", Source: "req_has_disagg_prefill_dp_rank", Reason: "data parallelism (dp_size > 1) is off in every configuration; only a DP configuration could tell"},
	{Function: "PrefillBootstrapQueue.pop_bootstrapped", Source: "if self.pp_size > 1:", Reason: "pipeline parallelism (pp_size > 1) is off in every configuration; only a PP configuration could tell"},
	{Function: "PrefillBootstrapQueue.pop_bootstrapped", Source: "failed_reqs.append(req)", Reason: "the failed requests are returned only to pipeline parallelism's caller (return_failed_reqs); only a PP configuration could tell"},
	{Function: "PrefillBootstrapQueue.pop_bootstrapped", Source: "if return_failed_reqs is False:", Reason: "the failed requests are returned only to pipeline parallelism's caller (return_failed_reqs); only a PP configuration could tell"},
	{Operator: "delete-stmt", What: "decode_prefix_len", Reason: prefixOnly},
	{Operator: "delete-call", What: "req_to_decode_prefix_len.pop", Reason: prefixOnly},
	{Function: "CommonKVSender.clear", Source: `hasattr(self.kv_mgr, "req_to_decode_prefix_len")`, Reason: prefixOnly},
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", What: "resolve_kv_replica_factor", Reason: "the KV replica factor of several prefill ranks: Room.tla models one prefill rank; only a configuration with replicated KV could tell"},
	{Function: "Envs", What: "SGLANG_DISAGGREGATION_QUEUE_SIZE default", Reason: "the number of transfer worker queues: one room is sharded to one queue either way; only rooms on several queues could tell, which Room.tla does not model"},

	// The early return of a pass over an empty queue, and a function's last
	// return None.
	{Function: "PrefillBootstrapQueue.pop_bootstrapped", Operator: "delete-stmt", What: "delete return []", Reason: "the early return for an empty queue: on an empty queue the rest of the function polls nothing and returns the same empty list (return_failed_reqs is True only for pipeline parallelism's caller); no configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "delete-stmt", What: "delete return []", Reason: "the early return for an empty queue: on an empty queue the rest of the function polls nothing, streams an empty list, leaves the queue empty and returns the same empty list; no configuration could tell"},
	{Function: "NixlKVManager.add_transfer_request", Operator: "delete-stmt", What: "delete return None", Reason: "the function's last statement: without it the function returns None all the same"},

	// The answer's detail, and answers only a prefill-side abort chooses.
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "change-number", Source: "FINISH_LENGTH(length=0)", Reason: "the finish reason's length is detail of the answer (the tokens prefill generated); the client boundary judges the answer's kind, abort or not, and no part of the room lifecycle reads the length; no configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "drop-cond", Source: "if not isinstance(req.finished_reason, FINISH_ABORT):", Reason: prefillAbort},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_inflight_transfer_failure", Operator: "drop-cond", Source: "if not isinstance(req.finished_reason, FINISH_ABORT):", Reason: prefillAbort + " (prepare_abort again changes only the message)"},

	// Optimistic prefill.
	{Function: "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure", Source: "req.pending_bootstrap = False", Reason: optimistic},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure", Operator: "delete-call", What: "maybe_release_metadata_buffer", Reason: optimistic},
	{Function: "SchedulerDisaggregationPrefillMixin.handle_bootstrap_failure", Operator: "delete-call", What: "self.clear_pending_chunk_send(req)", Reason: optimistic},

	// Pages of one token.
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Source: "end_idx = end_idx - end_idx % page_size", Reason: onePage},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Operator: "negate-cond", What: "negate `not last_chunk`", Reason: onePage + " (the branch only aligns end_idx, and staging, off)"},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Operator: "drop-cond", What: "`not last_chunk` always true", Reason: onePage + " (the branch only aligns end_idx, and staging, off)"},
	{Function: "CommonKVSender.should_send_kv_chunk", Operator: "change-number", Source: "num_pages > 0", Reason: "the harness's chunks have 4 pages: num_pages > 1 and num_pages > 0 agree; only a chunk of exactly one page could tell"},

	// The transfer worker's paths no configuration takes.
	{Source: "staging_base_ptr", Reason: stagingOnly},
	{Source: "staging_total_size", Reason: stagingOnly},
	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", What: "`kv_xfer_handle is None` always true", Reason: "only the staging path sets kv_xfer_handle before this test. " + stagingOnly},
	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", What: "`dst_info.kv_xfer_segments is None` always true", Reason: "mixed memory segments (kv_xfer_segments: a decode whose KV spans several memory kinds) are registered by no decode of any configuration; only such a decode could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", Source: "if len(chunked_dst_kv_indice) < len(", Reason: "truncating the chunk's source pages to the destination's count is a no-op wherever the destination has as many or more: the test always true changes nothing; no configuration could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", Source: "if len(chunked_dst_kv_indice) < len(", Reason: "decode's TransferInfo gives as many destination pages as prefill sends (the code's own comment: 'this should never happen'); only a decode giving fewer could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "change-number", Source: "if self._staging_outstanding.get(room, 0) <= 0 and (", Reason: "the room's entry exists here (the loop counted this chunk in it, nixl/conn.py:1136-1138 at adca19c4), so get's default is never used; no configuration could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", What: "drop `self._staging_outstanding.get(room, 0) <= 0` from the test", Reason: "every room of the model shares one worker queue, so a room's chunks are taken and completed one at a time and its count is 0 whenever this test runs; only chunks of one room in flight at once (staging's re-enqueue, rooms on several queues) could tell"},

	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", What: "`kv_xfer_handle is not None` always true", Reason: "kv_xfer_handle is None at this test only on the mixed-segment path (kv_xfer_segments), which no decode of any configuration registers; only such a decode could tell"},
	{Function: "NixlKVManager.transfer_worker", Source: "elif self.check_status(room) != KVPoll.Success:", Reason: "a room's chunks complete in order (every room of the model shares one worker queue, FIFO), so a non-last chunk never completes after the last one's Success: the room then reads Transferring (written again, the same) or Failed, which NIXL's update_status never leaves (nixl/conn.py:698-702 at adca19c4); every variant of this test leaves the same status; only chunks completing out of order (staging's re-enqueue) could tell"},

	{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", Source: "dst_info = self.decode_kv_args_table[req.agent_name]", What: "delete dst_info", Reason: "dst_info already holds decode_kv_args_table[req.agent_name] for this request (the loop body binds it first, nixl/conn.py:1174 at adca19c4); only decode re-registering its agent during the transfer (a restarted decode rank) could tell"},
	{Function: "NixlKVManager.transfer_worker", Source: "isinstance(e, _NIXL_TRANSPORT_ERRORS)", Reason: "the log level of the worker's error only (a warning for a transport error, a traceback otherwise): the except branch then fails the room the same way; no configuration could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", Source: "self.exceptions[room] = e", Reason: messageOnly + " (the worker's exception is what failure_exception raises)"},
	{Function: "NixlKVManager.transfer_worker", Operator: "delete-call", What: "self.record_failure(room, str(e))", Reason: messageOnly},
	{Function: "SchedulerDisaggregationPrefillMixin.send_kv_chunk", Operator: "delete-stmt", Source: "translate_kv_indices_for_transfer", Reason: "translate_kv_indices_for_transfer maps virtual to physical page ids only under unified memory (the comment above it), off in every configuration, where it is the identity; only a unified-memory configuration could tell"},
	{Function: "SchedulerDisaggregationPrefillMixin.process_disagg_prefill_inflight_queue", Operator: "delete-stmt", What: "delete return done_reqs", Reason: "only pipeline parallelism's event loop reads the returned requests (managers/scheduler_pp_mixin.py:332 at adca19c4); prefill.py's loops call it for its effects; only a PP configuration could tell"},
	{Function: "CommonKVSender.__init__", Operator: "delete-stmt", Source: "self.aux_index = None", Reason: "init() sets aux_index (prefill.py:354, when the request leaves the bootstrap queue) before send() reads it (nixl/conn.py:2818 at adca19c4); nothing reads it earlier; no configuration could tell"},
	{Function: "PrefillBootstrapQueue.pop_bootstrapped", Operator: "drop-cond", What: "`poll == KVPoll.WaitingForInput` always true", Reason: "after the Failed and Bootstrapping branches, a request in the bootstrap queue reads WaitingForInput unless another request reuses its room and is already Transferring or Success; the campaign runs the commit's configuration, which reuses no room: sglang-35360-reuse could tell (not run by the campaign)"},

	{Function: "NixlKVManager.transfer_worker", Source: "time.sleep(0)", Reason: "the pause between two checks of the DONE barrier (a yield of the thread): how long the worker waits between checks, which no configuration models (the harness's clock makes sleep return at once); the writes it waits for complete at the same step either way"},

	// What decode sends that no configuration's decode varies.
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", Source: "decode_prefix_len", Reason: prefixOnly},
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", Operator: "change-number", What: "0 -> 1", Source: "0,", Reason: prefixOnly + " (the prefix length a room gets when no TransferInfo carries one)"},
	{Function: "NixlKVManager._start_bootstrap_thread.<locals>.bootstrap_thread", Operator: "narrow-slice", Source: "waiting_req_bytes = waiting_req_bytes[1:]", Reason: "the last frame of decode's TransferInfo and registration is optional (TransferInfo.from_zmq's is_dummy_rank, frame 9; KVArgsRegisterInfo's trailing fields): without it a rank with KV pages is not a dummy either way; only a decode dummy rank (is_dummy_rank = 1, context or data parallelism) could tell"},

	// Defaults overwritten before they are read.
	{Function: "CommonKVSender.__init__", Source: "self.init_time: Optional[float] = None", Reason: "NixlKVSender.__init__ sets init_time = time.time() right after CommonKVSender.__init__ returns (nixl/conn.py:2785 at adca19c4): the deleted default is never read"},

	// The deferred release's ACKs where no target is registered, and
	// ABORTs as decode sends them.
	{Function: "NixlKVManager.transfer_worker", Operator: "delete-call", What: "delete the call self._maybe_ack_drained_abort(room)", Near: "Skipped => nothing written for this aborted room",
		Reason: "the ACK on a skipped chunk: a room's chunks go to one worker queue and one worker takes them in order, so a chunk it skips is the only one counted, and an ACK target is held only while a chunk is counted (AckOnDrain): the previous chunk's completion ACKed it. No state of sglang-35360-deferred has a Failed or absent room with a target held, nothing posted and a chunk of it queued (checked as an invariant over its 901 states, and the deferred form's tour takes every edge); fixed-35360-deferred, which holds a target for an inactive room still counted, could tell"},
	{Function: "NixlKVManager.transfer_worker", Operator: "drop-cond", What: "`self.enable_deferred_decode_kv_release` always true", Reason: "with the deferred release off no ACK target is ever registered, so _maybe_ack_drained_abort finds none and sends nothing; with it on the test is true anyway (the campaign with SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE=1 ran it)"},
	{Function: "NixlKVManager.transfer_worker", Operator: "negate-cond", What: "negate `self.enable_deferred_decode_kv_release`", Near: "# Skipped => nothing written for this aborted room; ack.", Reason: "the ACK of a chunk skipped for a Failed room: chunks are counted when a worker takes them, so when the ABORT came this chunk was not counted and the ABORT's own handler already sent the ACK (nixl/conn.py:2683-2688 at adca19c4) and dropped the target; the skip's call finds none (with the release off, none is ever registered); only a chunk counted before the abort and re-enqueued (staging's deferral) could tell"},
	{Function: "NixlKVManager._handle_abort_notification", Operator: "change-number", What: "2 -> 3", Source: `decode_ip = msg[2].decode("ascii") if len(msg) > 2 else None`, Reason: "decode's ABORT has four frames (ABORT, room, its ip, its port; decode's scheduler since PR #35049): len(msg) > 3 holds wherever len(msg) > 2 does; only an ABORT with an ip and no port could tell"},
	{Function: "NixlKVManager._handle_abort_notification", Operator: "drop-cond", What: "drop `decode_port is not None` from the test", Reason: "decode's ABORT always carries its port (four frames, decode's scheduler since PR #35049); only an ABORT without one (a decode older than the deferred release) could tell"},

	// Tests that always hold for NIXL.
	{Function: "CommonKVSender.clear", Operator: "drop-cond", Source: `hasattr(self.kv_mgr, "transfer_infos")`, Reason: "NIXL's manager has transfer_infos: the test always holds"},
	{Function: "CommonKVSender.clear", Operator: "drop-cond", Source: `hasattr(self.kv_mgr, "_deferred_ack_targets")`, Reason: "NIXL's manager has _deferred_ack_targets since PR #35049: the test always holds"},
	{Function: "CommonKVSender.__init__", Source: "self.bootstrap_server_url = bootstrap_addr", Reason: "read only to register a prefill DP rank with the bootstrap server (dp_size > 1), off in every configuration; only a DP configuration could tell"},

	// Assertions that hold on every path.
	{Function: "PrefillBootstrapQueue.finalize_bootstrap", Operator: "delete-stmt", Source: "assert req.pending_bootstrap", Reason: "pop_bootstrapped calls finalize_bootstrap once per request, at its first WaitingForInput poll: the assertion always holds, so deleting it changes nothing"},
	{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", Source: "assert room == req.room", Reason: "transfer_infos[room] holds the room's own TransferInfos: the assertion always holds"},
	{Function: "NixlKVManager.transfer_worker", Operator: "delete-stmt", Source: "assert req.agent_name in self.decode_kv_args_table", Reason: "a TransferInfo's agent has registered before it (decode registers at start-up): the assertion always holds"},
	{Function: "NixlKVManager.add_transfer_request", Operator: "delete-stmt", Source: "assert self.disaggregation_mode == DisaggregationMode.PREFILL", Reason: "the manager is prefill's: the assertion always holds"},
	{Function: "NixlKVManager.add_transfer_request", Operator: "delete-stmt", Source: "assert not is_last_chunk or", Reason: "send_kv_chunk gives the last chunk its aux index: the assertion always holds"},
	{Function: "NixlKVManager._handle_abort_notification", Operator: "drop-cond", What: "drop `not msg` from the test", Reason: "ZeroMQ delivers no empty multipart message: msg[0] exists whenever the handler runs"},
}

// TableFor is the reviewed table of backend's campaigns: Equivalents for
// NIXL. Its entries were read against NIXL's code (and the common/conn.py
// and prefill.py that NIXL runs), so no other backend borrows them: a
// Mooncake survivor is reported as survived until a table reviewed
// against Mooncake's code says otherwise.
func TableFor(backend string) []Equivalence {
	if backend == "" || backend == sglang.NIXL {
		return Equivalents
	}
	return []Equivalence{}
}

// equivalent returns the reason of the first entry of table that matches
// m.
func equivalent(table []Equivalence, m Mutant) (string, bool) {
	removed := removedLines(m.Diff)
	for _, e := range table {
		if (e.Function == "" || e.Function == m.Function) && (e.Operator == "" || e.Operator == m.Operator) &&
			strings.Contains(m.What, e.What) && strings.Contains(removed, e.Source) && strings.Contains(m.Diff, e.Near) {
			return e.Reason, true
		}
	}
	return "", false
}

// removedLines are the lines a unified diff removes, joined.
func removedLines(diff string) string {
	var b strings.Builder
	for line := range strings.Lines(diff) {
		if strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---") {
			b.WriteString(line[1:])
		}
	}
	return b.String()
}
