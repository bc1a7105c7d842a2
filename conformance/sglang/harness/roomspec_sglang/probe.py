"""Which ingredients of the room lifecycle the loaded code has.

Each ingredient is found by running the real code on a small situation and
looking at what it did (not by reading its source), so a refactoring that
keeps the behaviour keeps the answer. The names are the switches of
spec/Room.tla; the Go side (conformance/sglang) picks the spec
configuration from them.
"""

from .driver import Refused


class ProbeFinding(Exception):
    """The loaded code did not take a step the probe drives in a situation
    that every modelled commit handles (a Failed request left in its queue,
    ...): no switch of spec/Room.tla describes it, and the probe says what
    the code did instead of guessing a switch."""


def _run(name, fn, *args):
    """One ingredient's probe; a step the real code would not take is a
    ProbeFinding naming the ingredient (Refused is the harness's exception,
    never reported as SGLang's)."""
    try:
        return fn(*args)
    except Refused as e:
        raise ProbeFinding(f"{name}: SGLang's code did not take the step the probe drives "
                           f"({e}); no configuration of spec/Room.tla models that") from e

CONFIG = {"rooms": ["r"], "decode_ranks": ["d1", "d2"],
          "requests": [{"room": 0, "incarnation": 1}],
          "required_dst_info_num": 2, "num_chunks": 1}


def _fresh(h):
    h.reset(CONFIG)
    return h.room_ids[0]


def _status(h, room):
    s = h.mgr.request_status.get(room)
    return None if s is None else int(s)


def _abort_handled(h):
    """An ABORT reaches a present room; before PR #30352 the bootstrap
    thread's guard assert dies on it."""
    _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    h.apply("DecodeAbort", [0])
    h.apply("BootstrapRecvAbort", [0])
    return h.bootstrap_thread.is_alive()


def _bootstrap_timeout(h):
    """A sender left Bootstrapping until its timeout expires: does the
    bootstrap-queue pass then release it?"""
    _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    try:
        h.apply("Tick", [0])
        h.apply("Tick", [0])
        h.apply("SchedulerPollBootstrap", [])
    except Refused:
        return False
    return h.reqs[0] not in h.bq.queue and h.crashed is None


def _absent_reads_waiting(h):
    room = _fresh(h)
    try:
        return int(h.mgr.check_status(room)) == int(h.KVPoll.WaitingForInput)
    except KeyError:
        return False


def _failed_sticky(h):
    room = _fresh(h)
    h.mgr.update_status(room, h.KVPoll.Failed)  # absent: no-op
    h.mgr.update_status(room, h.KVPoll.Bootstrapping)
    h.mgr.update_status(room, h.KVPoll.Failed)
    h.mgr.update_status(room, h.KVPoll.Success)
    return _status(h, room) == int(h.KVPoll.Failed)


def _failure_clears(h):
    """A request failed in the bootstrap queue: is its room cleared?"""
    room = _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    h.mgr.update_status(room, h.KVPoll.Failed)
    h.apply("SchedulerPollBootstrap", [])
    return _status(h, room) is None


def _abort_spares_success(h, abort_handled):
    if not abort_handled:
        return True
    room = _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    h.mgr.update_status(room, h.KVPoll.Success)
    h.apply("DecodeAbort", [0])
    h.apply("BootstrapRecvAbort", [0])
    return _status(h, room) == int(h.KVPoll.Success)


def _abort_pops_transfer_infos(h, abort_handled):
    if not abort_handled:
        return False
    room = _fresh(h)
    h.apply("DecodeSendTransferInfo", [0, 0])
    h.apply("BootstrapRecvTransferInfo", [0])
    h.apply("DecodeAbort", [0])
    h.apply("BootstrapRecvAbort", [0])
    return room not in h.mgr.transfer_infos


def _inflight_bootstrapping_raises(h):
    """The in-flight poll of a request whose room reads Bootstrapping (a
    reused room id's other request can leave it so)."""
    _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    req = h.reqs[0]
    h.bq.queue.remove(req)
    req.pending_bootstrap = False
    h.sched.disagg_prefill_inflight_queue = [req]
    try:
        h.apply("SchedulerPollInFlight", [])
    except Refused:
        return False
    return h.crashed is not None


def _bootstrapped(h):
    """A fresh room whose request is bootstrapped by both decode ranks: it
    waits in the scheduler's waiting queue. Returns the room."""
    room = _fresh(h)
    h.apply("SchedulerCreateSender", [0])
    for d in (0, 1):
        h.apply("DecodeSendTransferInfo", [d, 0])
        h.apply("BootstrapRecvTransferInfo", [d])
    h.apply("SchedulerPollBootstrap", [])
    return room


def _sent(h):
    """A fresh room whose request is bootstrapped by both decode ranks and
    sent: its chunk waits in a transfer queue. Returns the room."""
    room = _bootstrapped(h)
    h.apply("SchedulerSend", [0])
    return room


def _counts_outstanding(h):
    """A chunk posted and not complete: does the room count it, and does
    the sender's poll hold a Success back while it is counted?"""
    room = _sent(h)
    h.apply("WorkerPost", [0])
    counted = getattr(h.mgr, "_staging_outstanding", {}).get(room, 0) > 0
    return bool(counted)


def _counts_at_dequeue(h):
    """A chunk whose room has no transfer_infos any more when the worker
    takes it (the worker's assertion fails): is it still counted?"""
    room = _sent(h)
    h.mgr.transfer_infos.pop(room, None)
    h.apply("WorkerPost", [0])
    return getattr(h.mgr, "_staging_outstanding", {}).get(room, 0) > 0


def _worker_marks_transferring(h):
    """A chunk posted: does the worker mark its room Transferring?"""
    room = _sent(h)
    h.apply("WorkerPost", [0])
    return _status(h, room) == int(h.KVPoll.Transferring)


def _worker_skips(h, drop):
    """A chunk taken after drop(room) removed something of its room: did
    the worker skip it (nothing posted, the room's status unchanged)?"""
    room = _sent(h)
    drop(room)
    before = _status(h, room)
    h.apply("WorkerPost", [0])
    return not any(h.observe()["posted"]) and _status(h, room) == before


def _send_skips_failed(h):
    """A bootstrapped request whose room reads Failed is sent: is nothing
    enqueued?"""
    room = _bootstrapped(h)
    h.mgr.update_status(room, h.KVPoll.Failed)
    h.apply("SchedulerSend", [0])
    return not h.observe()["wqueue"]


def _worker_switches(h):
    """The worker's and add_transfer_request's room checks, where the
    backend's differ from NIXL's (Mooncake's: Room.tla, MOONCAKE). NIXL's
    are those of every NIXL commit from the floor on (its sglang-*
    configurations), and its probe leaves them to the expectation; a
    Mooncake worker has no assertion path, so CountsAtDequeue, which the
    spec reads only there, is not probed for it."""
    if h.BACKEND != "mooncake":
        return {"CountsAtDequeue": _run("CountsAtDequeue", _counts_at_dequeue, h)}
    return {
        "WorkerMarksTransferring": _run("WorkerMarksTransferring", _worker_marks_transferring, h),
        "WorkerSkipsAbsent": _run("WorkerSkipsAbsent", _worker_skips, h,
                                  lambda room: h.mgr.request_status.pop(room, None)),
        "WorkerSkipsMissing": _run("WorkerSkipsMissing", _worker_skips, h,
                                   lambda room: h.mgr.transfer_infos.pop(room, None)),
        "SendSkipsFailed": _run("SendSkipsFailed", _send_skips_failed, h),
    }


def _deferred_ack(h):
    """PR #35360: the manager has prefill's side of the deferred release
    (its ACK targets); and whether decode waits for ACKs, by the decode
    emulator's own rule (h.deferred_release): one source of truth, so the
    configuration chosen and the emulator agree on what turns it on."""
    _fresh(h)
    return {"available": hasattr(h.mgr, "enable_deferred_decode_kv_release")
            and hasattr(h.mgr, "_deferred_ack_targets"),
            "enabled": h.deferred_release()}


def _ack_on_drain(h, deferred):
    """PR #35360's ACK on drain: an ABORT of a room whose chunk is in
    flight holds the ACK (an ACK target of the room) until the count
    drains. A fix that ACKs every ABORT as it handles it holds none."""
    if not (deferred["available"] and deferred["enabled"]):
        return False
    room = _sent(h)
    h.apply("WorkerPost", [0])
    h.apply("DecodeAbort", [0])
    try:
        h.apply("BootstrapRecvAbort", [0])
    except Refused:
        pass  # the handler waits for the room's writes: nothing held
    return getattr(h.mgr, "_deferred_ack_targets", {}).get(room) is not None


def probe(h):
    """The ingredients of the code h loaded, as a JSON-able dict."""
    # The probe's situations are made by hand (a room's transfer_infos
    # taken away under the worker): what they leave in the manager's dicts
    # is no finding; the suite's reachable states judge that.
    h.left_behind_checked = False
    out = {}
    handled = _run("AbortKillsBootstrap", _abort_handled, h)
    deferred = _deferred_ack(h)
    out["AbortKillsBootstrap"] = not handled
    out["HasBootstrapTimeout"] = _run("HasBootstrapTimeout", _bootstrap_timeout, h)
    out["AbsentReadsWaiting"] = _run("AbsentReadsWaiting", _absent_reads_waiting, h)
    out["FailedSticky"] = _run("FailedSticky", _failed_sticky, h)
    out["FailureClears"] = _run("FailureClears", _failure_clears, h)
    out["AbortSparesSuccess"] = _run("AbortSparesSuccess", _abort_spares_success, h, handled)
    out["AbortPopsTransferInfos"] = _run("AbortPopsTransferInfos", _abort_pops_transfer_infos, h, handled)
    out["InflightBootstrappingRaises"] = _run("InflightBootstrappingRaises", _inflight_bootstrapping_raises, h)
    out["CountsOutstanding"] = _run("CountsOutstanding", _counts_outstanding, h)
    out.update(_worker_switches(h))
    # NIXL's ACK on drain is told by behaviour (a fix may ACK at once);
    # Mooncake's deferred release is NIXL's code path (Room.tla, MOONCAKE)
    out["AckOnDrain"] = (_run("AckOnDrain", _ack_on_drain, h, deferred) if h.BACKEND != "mooncake"
                         else deferred["available"] and deferred["enabled"])
    # Decode waits for an ABORT_ACK wherever the deferred release is on
    # (decode.py reads the same variable), whether prefill sends one or
    # not (PR #35049 before #35360: it does not).
    out["AbortAckSent"] = deferred["enabled"]
    out["deferred_ack_available"] = deferred["available"]
    # The code's own bootstrap timeout (the manager's, read at a reset
    # that names none): the configuration's BootstrapTimeoutSecs must be it.
    _fresh(h)
    out["bootstrap_timeout"] = h.bootstrap_timeout
    out["time_readers"] = sorted(h.time_readers)
    h.close()
    return out
