"""The client's side of a prefill request, as a boundary the harness
observes: the answer prefill streams to the client (the scheduler's
output_streamer.stream_output), the metadata buffer index the bootstrap
queue gives the request (req_to_metadata_buffer_idx_allocator), and the
pending-chunk set that gates memory compaction
(disagg_prefill_pending_chunk_rids).

Room.tla's "the scheduler lets the request go" (sender = "Released") is
what the client and the pools see, not only "in none of the scheduler's
queues": a request that leaves every queue must have been answered once,
with an abort exactly where its room failed (prepare_abort on every Failed
path: prefill.py handle_bootstrap_failure, handle_inflight_transfer_failure;
FINISH_LENGTH(0) on Success, prefill.py:884-885 at adca19c4), its metadata
buffer index freed once (maybe_release_metadata_buffer, prefill.py:102)
and, after Success, set once with the last chunk (set_buf), the writes
NIXL's decode counts on landed (KV chunks 0..n-1 and one aux write with
the last chunk, as its receiver counts them by their notifications), and
its rid gone from the pending-chunk set ("a stale entry holds the
unified-memory compaction gate closed for the process lifetime",
clear_pending_chunk_send, prefill.py:984). A release that breaks one of
these is SGLang's finding at the step that released the request: the
client waits forever, or a pool leaks.
"""


class Client:
    """What the client and the metadata pool have seen of each request."""

    def __init__(self, num_chunks, counts_notifications=True):
        self.num_chunks = num_chunks
        # NIXL's decode counts a room's writes by their notifications;
        # Mooncake's writes carry none (its decode is told by status
        # messages), so there is nothing of them to judge here.
        self.counts_notifications = counts_notifications
        self.writes = {}      # rid -> the notifications of each completed write set
        self.answers = {}     # rid -> finish reasons streamed, by class name
        self.meta_next = 0
        self.meta_frees = {}  # metadata index -> times freed
        self.meta_of = {}     # rid -> the metadata index it was given
        self.status = {}      # rid -> its room's status before the step
        self.released = set()
        self.in_last = False  # the scheduler is sending a last chunk
        self.set_bufs = {}    # rid -> for each set_buf call, in a last chunk?
        self.noted = []       # problems seen inside a step

    # ---- the fakes SGLang's code calls ----------------------------------

    def stream_output(self, reqs, *args, **kwargs):
        """output_streamer.stream_output(reqs, return_logprob, ...)."""
        for r in reqs:
            fr = getattr(r, "finished_reason", None)
            self.answers.setdefault(r.rid, []).append(None if fr is None else type(fr).__name__)

    def set_buf(self, req):
        """disagg_metadata_buffers.set_buf(req): the request's first output
        token and logprobs, which decode reads with the last chunk's aux
        transfer (send_kv_chunk, prefill.py:1180-1181)."""
        self.set_bufs.setdefault(req.rid, []).append(self.in_last)

    def chunks_sent(self, req, pending):
        """After the non-last chunks of req are sent: the memory-compaction
        gate must know it has chunks in flight (send_kv_chunk adds the rid,
        prefill.py:1324-1326), or compaction may move pages a write
        reads."""
        if req.rid not in pending:
            self.noted.append(f"SGLang sent non-last chunks of {req.rid} without its rid in the "
                              "pending-chunk set (memory compaction may move pages still being written)")

    def landed(self, rid, notifs):
        """Posted writes into request rid's pages completed
        (WorkerComplete): their notifications reach NIXL's decode,
        `{room}_kv_{chunk}_{last}_{src}` per KV chunk and `{room}_aux...`
        with the metadata (nixl/conn.py's transfer_worker). By the request
        whose pages they fill, not by room: a reused room id carries two
        requests' writes, and one incarnation's chunk may fill the other's
        pages (the driver tells whose, _destination)."""
        if not self.counts_notifications:
            return
        self.writes.setdefault(rid, []).append(list(notifs))

    def _transfer_problem(self, rid):
        """Decode takes a room's transfer as complete when each of its
        destination ranks has KV chunks 0..n-1, the last flagged last, and
        an aux write landed with the last chunk (decode's receiver counts
        chunks by their ids and reads the metadata from the aux buffer):
        "" if so, else what is wrong."""
        kv, aux_with_last, aux = [], False, 0
        for group in self.writes.get(rid, []):
            parts = [str(n).split("_") for n in group]
            last = any(p[1] == "kv" and len(p) > 3 and p[3] == "1" for p in parts)
            for p in parts:
                if p[1] == "kv" and len(p) > 3:
                    kv.append((int(p[2]), p[3] == "1"))
                elif p[1] == "aux":
                    aux += 1
                    aux_with_last = aux_with_last or last
        # each destination rank gets every chunk and one aux write
        ranks = max(len(kv) // self.num_chunks, 1)
        want = sorted([(i, i == self.num_chunks - 1) for i in range(self.num_chunks)] * ranks)
        if sorted(kv) != want:
            return f"KV chunks (id, last) {sorted(kv)} reached decode, not {want}"
        if aux != ranks or not aux_with_last:
            return (f"{aux} aux writes reached decode{'' if aux_with_last else ', none with the last chunk'} "
                    f"(one per destination rank, with the last chunk, is right)")
        return ""

    def alloc(self):
        """req_to_metadata_buffer_idx_allocator.alloc()."""
        self.meta_next += 1
        return self.meta_next

    def free(self, idx):
        """req_to_metadata_buffer_idx_allocator.free(idx)."""
        self.meta_frees[idx] = self.meta_frees.get(idx, 0) + 1

    # ---- around one step ------------------------------------------------

    def before(self, reqs, room_status):
        """Note what the step's polls will read: each room's status."""
        for r in reqs:
            self.status[r.rid] = room_status(r)

    def after(self, reqs, held, pending, aborted=lambda r: False):
        """Judge each request the step let go; returns the first problem
        (a sentence naming the request), or None. held(req) says whether
        the scheduler still holds req; pending is the pending-chunk set
        (None in a commit without the memory-compaction gate);
        aborted(req) whether decode has aborted req (its receiver is gone:
        what reached decode for it no longer matters)."""
        problems, self.noted = self.noted, []
        for r in reqs:
            idx = getattr(r, "metadata_buffer_index", -1)
            if isinstance(idx, int) and idx >= 0:
                self.meta_of[r.rid] = idx
        for r in reqs:
            if r.rid in self.released or r.disagg_kv_sender is None or held(r):
                continue
            self.released.add(r.rid)
            problem = self._problem(r, pending, aborted(r))
            if problem:
                problems.append(f"SGLang let {r.rid} go {problem}")
        return problems[0] if problems else None

    def _problem(self, r, pending, aborted):
        answers = self.answers.get(r.rid, [])
        if not answers:
            return "without an answer to the client (output_streamer.stream_output never got it)"
        if len(answers) > 1:
            return f"with {len(answers)} answers to the client ({', '.join(map(str, answers))})"
        want_abort = self.status.get(r.rid) != "Success"
        got = answers[0]
        if want_abort and got != "FINISH_ABORT":
            return (f"answering {got} for a room that read {self.status.get(r.rid)}: "
                    "a failed transfer must reach the client as an abort")
        if not want_abort and got in (None, "FINISH_ABORT"):
            return f"answering {got} for a room that read Success"
        if not want_abort and self.counts_notifications and not aborted:
            wrong = self._transfer_problem(r.rid)
            if wrong:
                return f"after Success, though decode could not complete the transfer: {wrong}"
        if not want_abort and self.set_bufs.get(r.rid) != [True]:
            return (f"after Success with its metadata buffer set {self.set_bufs.get(r.rid, [])} "
                    "(once, with the last chunk, is right: decode reads it with the aux transfer)")
        idx = self.meta_of.get(r.rid)
        if idx is not None and self.meta_frees.get(idx, 0) != 1:
            return f"with its metadata buffer {idx} freed {self.meta_frees.get(idx, 0)} times (once is right)"
        if pending is not None and r.rid in pending:
            return "with its rid left in the pending-chunk set (the memory-compaction gate stays closed)"
        return None
