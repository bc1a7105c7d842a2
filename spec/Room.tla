-------------------------------- MODULE Room --------------------------------
(***************************************************************************)
(* The life of a KV-transfer "room" in SGLang's prefill/decode             *)
(* disaggregation, as seen by one prefill rank.                            *)
(*                                                                         *)
(* Source of truth: SGLang's code.  Line numbers are those of upstream     *)
(* commit adca19c4 (2026-08-19, PR #35360); paths are relative to          *)
(* python/sglang/srt/disaggregation/.  Where a switch below differs by     *)
(* commit, its comment names the PR that changed it.  docs/ROOM-LIFECYCLE  *)
(* .md in this repository summarizes the system; roomspec's harness        *)
(* (conformance/sglang) runs the real code under this spec at any commit.  *)
(*                                                                         *)
(* A request is served by a prefill engine (computes the KV cache and      *)
(* writes it into decode's GPU pages) and a decode engine.  Both know the  *)
(* request by an integer "bootstrap room".  Prefill keeps per-room plain   *)
(* dicts shared, without locks, by three kinds of thread: the scheduler,   *)
(* the bootstrap thread (reads decode's ZeroMQ messages) and the transfer  *)
(* workers.  Decode is the environment: it sends TransferInfo (where to    *)
(* write) from each of its ranks, and at most once an ABORT to every       *)
(* prefill rank (client abort, or decode's own waiting timeout).           *)
(*                                                                         *)
(* The property the product exists for is AbortedRoomsTerminate: every     *)
(* aborted request is eventually released by prefill (its poll returned    *)
(* Success or Failed), under weak fairness of prefill's threads and of     *)
(* its timeouts.  A request that stays alive with a status that can never  *)
(* become Success or Failed is "pinned": it holds prefill GPU memory       *)
(* forever.                                                                *)
(*                                                                         *)
(* MODELLING CHOICES                                                       *)
(*  - Room ids are model values (Rooms).  A *request* is a pair            *)
(*    <<room, incarnation>>: with RoomReuse the same room id is used by    *)
(*    two requests (SGLang's PD re-bootstrap path reuses rooms on          *)
(*    purpose) as a retry: incarnation 2 starts once decode aborted        *)
(*    incarnation 1 (Started).  Prefill's dicts are keyed by room id only, *)
(*    so both incarnations share them, exactly as in the code; the wire    *)
(*    carries the room id only.                                            *)
(*  - Statuses are the strings of KVPoll's names; "Absent" stands for "no  *)
(*    entry in request_status".  KVPoll(s) gives KVPoll's integer value,   *)
(*    used by update_status's max rule (Failed=0 ... Success=4).           *)
(*  - One FIFO channel per decode rank (ZeroMQ PUSH->PULL keeps order per  *)
(*    connection); the bootstrap thread may read the channels in any       *)
(*    interleaving.  Each rank sends each message at most once per         *)
(*    request, so channels are bounded by construction (MaxChanLen).       *)
(*  - Transfer workers: add_transfer_request puts a request's chunks on    *)
(*    one of the worker queues, a FIFO (nixl/conn.py:2441-2444: sharded by *)
(*    the sum of the destination ports since PR #32025, by room before).   *)
(*    Every request of the model has the same room id and the same decode  *)
(*    ranks, so under either rule they all share one queue: wqueue.  Its   *)
(*    worker posts a chunk's writes and busy-waits on them in the same     *)
(*    iteration (:1348-1359), so at most one chunk is posted at a time.    *)
(*  - A forward pass hands all NumChunks chunks of a request to            *)
(*    add_transfer_request in one step (chunked prefill's interleaving     *)
(*    with other threads is not modelled); a chunk is the request's last   *)
(*    when no other chunk of it is queued behind it.                       *)
(*  - A KV write is in progress from the moment the worker posts it        *)
(*    (WorkerPost) until its completion (WorkerComplete).                  *)
(*  - Decode releases a request's KV pages when it aborts, unless the      *)
(*    variant sends ABORT_ACK, in which case each decode rank releases     *)
(*    its pages when that rank receives an ACK (deferred release).         *)
(*    Decode's fallback (it frees the pages anyway after                   *)
(*    SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE_TIMEOUT, 30 s) is   *)
(*    not modelled: AbortsAcked failing means decode waits for it.         *)
(*  - A KeyError (common/Mooncake check_status) or RuntimeError            *)
(*    ("Unexpected poll state", prefill.py:461-464, :894-897) escaping     *)
(*    the scheduler's event loop kills the prefill process: a loud         *)
(*    failure, prefill_crashed, which stops every prefill thread.  A       *)
(*    crashed prefill pins nothing (its memory is gone with it), so        *)
(*    Terminated counts it as terminated.                                  *)
(*  - Not modelled: registration messages, staging (WATERMARK,             *)
(*    STAGING_RSP, deferred staging chunks), optimistic prefill            *)
(*    (optimistic_prefill_attempts, default 0), failure_records and        *)
(*    req_to_decode_prefix_len (no property reads them), decode's          *)
(*    heartbeat thread, RDMA errors, several prefill ranks (the MIN        *)
(*    all-reduce across ranks), several rooms on different worker queues.  *)
(*                                                                         *)
(* WHERE THE CODE DECIDED (earlier versions of this spec assumed           *)
(* otherwise; the harness showed the code's behaviour)                     *)
(*  - A request that fails in the bootstrap queue is released WITH         *)
(*    clear() where FailureClears (since PR #27011): prefill.py:436        *)
(*    handle_bootstrap_failure -> :1001 failure_exception() ->             *)
(*    nixl/conn.py:2871 clear().  The bootstrap timeout and that release   *)
(*    are one scheduler step: the timeout fires inside NixlKVSender.poll   *)
(*    (:2832-2834), whose Failed the same pop_bootstrapped acts on.        *)
(*  - A poll that reads Transferring or Success in the bootstrap queue, or *)
(*    Bootstrapping in flight (where InflightBootstrappingRaises, since    *)
(*    PR #31075), raises RuntimeError.                                     *)
(*  - A completed non-last chunk does update_status(room, Transferring)    *)
(*    unless the room reads Success (nixl/conn.py:1369-1371): after        *)
(*    clear() that re-inserts the room, and the next chunk's worker step   *)
(*    then fails its assertion (room not in transfer_infos) and leaves a   *)
(*    stale Failed entry (:1147, :1405).                                   *)
(*  - Where CountsOutstanding (_staging_outstanding, since PR #30545) the  *)
(*    worker counts a chunk once its room passed its checks, and since PR  *)
(*    #35360 (CountsAtDequeue) as it takes it (:1137); it uncounts it when *)
(*    its writes complete (:1362) or when it skips a Failed room (pop,     *)
(*    :1141); its exception path (:1394) never uncounts, and the sender's  *)
(*    poll reads Success as Transferring while the count is positive       *)
(*    (:2838).                                                             *)
(*  - Deferred decode-side release (PR #35360, AckOnDrain): the ABORT is   *)
(*    handled at once (:2647); an active room gets ONE ack target          *)
(*    (common/conn.py:409, a dict entry per room, so a second rank's ABORT *)
(*    replaces the first's); the ACK goes out when the room's count        *)
(*    drains (common/conn.py:394, called by the worker at :1144, :1366     *)
(*    and by the ABORT handler);                                           *)
(*    an inactive room is ACKed at once only if nothing is counted         *)
(*    (:2691); clear() drops a held target (common/conn.py:1313-1316).     *)
(*                                                                         *)
(* MOONCAKE (mooncake/conn.py at adca19c4, run under the harness with its  *)
(* TransferEngine faked; the mooncake* cfgs)                               *)
(*  - The ABORT handler (:1993-2061) fails a present room that does not    *)
(*    read Success (AbortSparesSuccess) and sends a 2-frame ABORT_ACK for  *)
(*    every ABORT; decode's thread only logs it (:2143-2151 notes an ACK   *)
(*    only with 3 frames, under the deferred release) and freed its pages  *)
(*    when it aborted, so it is no ABORT_ACK of this spec (AbortAckSent    *)
(*    FALSE; AbortAckLogged TRUE: replay skips it).  Under the deferred    *)
(*    release the handler is NIXL's                                        *)
(*    (:2001-2030: AckOnDrain, one target per room).                       *)
(*  - update_status is common/conn.py:327's (Failed not sticky: a write    *)
(*    that completes after an ABORT turns Failed into Success) and         *)
(*    check_status indexes request_status (KeyError for an absent room).   *)
(*  - The worker counts a chunk as it takes it (:1642-1644), skips it if   *)
(*    the room is absent or Failed (:1648-1664, WorkerSkipsAbsent), writes *)
(*    to no rank where transfer_infos has none (:1672-1676,                *)
(*    WorkerSkipsMissing), never writes Transferring                       *)
(*    (WorkerMarksTransferring FALSE): the last chunk's writes make it     *)
(*    Success (:1895-1901; inserting an absent room), another's change no  *)
(*    status.  add_transfer_request enqueues nothing for an absent or      *)
(*    Failed room (:2198-2205, SendSkipsFailed).                           *)
(*  - MooncakeKVSender.poll (:2342-2362) caches the first Success or       *)
(*    Failed it returns in conclude_state, and failure_exception sets it   *)
(*    (:2366).  No variable models it: with one prefill rank every poll    *)
(*    that returns Success or Failed releases its request in the same pass *)
(*    (prefill.py: the in-flight pass; the bootstrap pass on Failed, a     *)
(*    RuntimeError on Success), so no later poll reads the cached value.   *)
(*    (Several prefill ranks, whose MIN all-reduce can keep a request that *)
(*    concluded on one rank, are not modelled.)                            *)
(*  - The bootstrap timeout is common/conn.py:1282's, read by the poll     *)
(*    only while the room reads Bootstrapping (:2355-2358), as NIXL's.     *)
(*                                                                         *)
(* ASSUMPTIONS where the code leaves a choice to the model                 *)
(*  - A transfer worker that meets a queued chunk whose room has no        *)
(*    transfer_infos either skips it (WorkerSkipsMissing, the fork) or     *)
(*    fails its assertion (:1147); the exception handler then does         *)
(*    update_status(Failed), a no-op for an absent room.                   *)
(*  - The worker's "Failed -> skip" test reads request_status (NIXL's      *)
(*    check_status: an absent room reads WaitingForInput, not Failed).     *)
(*  - Tombstones and AbsentLiveSenderFails (the proposed fix) are never    *)
(*    removed in the model (a real fix would expire tombstones); that can  *)
(*    only fail requests, never pin them.                                  *)
(*  - Where ABORT_ACK is sent without AckOnDrain (ablate-ack), it is sent  *)
(*    for every ABORT as soon as the bootstrap thread handles it.          *)
(*                                                                         *)
(* ANNOTATIONS                                                             *)
(* Structured comments, read by roomspec's generator and trace matcher     *)
(* (TLC and SANY ignore them).  Grammar, one annotation per line, on the   *)
(* comment lines directly above an action's definition (no blank line      *)
(* between the annotation block and the definition):                       *)
(*                                                                         *)
(*   LINE    ::= "\*" SP "@" KEY ":" SP VALUE                              *)
(*   KEY     ::= "action" | "models" | "wire" | "log" | "idle" | "fair"    *)
(*                                                                         *)
(*   VALUE of "action" ::= "environment" SP ENV                            *)
(*                       | "implementation" SP THREAD                      *)
(*       ENV    ::= "decode"                                               *)
(*       THREAD ::= "scheduler" | "bootstrap" | "worker" | "timeout"       *)
(*     Exactly one per action.  "environment" steps are taken by the       *)
(*     world (decode, clients) and are never assumed fair;                 *)
(*     "implementation" steps are prefill's own threads (timeouts are      *)
(*     implementation steps whose fairness the constant TimeoutsFair       *)
(*     switches).                                                          *)
(*                                                                         *)
(*   VALUE of "fair" ::= free text                                         *)
(*     An environment step that Fairness makes weakly fair all the same    *)
(*     (say why); the conformance suite's fair round-robin takes it too.   *)
(*     At most one per action.                                             *)
(*                                                                         *)
(*   VALUE of "models" ::= free text                                       *)
(*     The SGLang code the action models (file, function, line).  Zero or  *)
(*     more per action.                                                    *)
(*                                                                         *)
(*   VALUE of "wire" ::= EVENT SP MSG "(" FIELDS ")" SP DIR                *)
(*                       [SP "for" SP BINDER] [SP "if" SP COND]            *)
(*       EVENT  ::= "send" | "recv"                                        *)
(*       MSG    ::= "TransferInfo" | "ABORT" | "ABORT_ACK"                 *)
(*       FIELDS ::= FIELD { "," SP FIELD }                                 *)
(*       FIELD  ::= NAME ":" SP EXPR                                       *)
(*       DIR    ::= "decode->prefill" | "prefill->decode"                  *)
(*       BINDER ::= NAME SP "\in" SP EXPR                                  *)
(*       COND   ::= EXPR                                                   *)
(*     Zero or more per action, one per message the action puts on or      *)
(*     takes off the wire.  EXPR is a TLA+ expression over the action's    *)
(*     parameters, the constants and the unprimed variables; FIELDS are    *)
(*     split on commas at parenthesis/bracket/brace depth 0.  "send" puts  *)
(*     the message on the wire (what a capture sees), "recv" takes it off  *)
(*     (hidden from a capture; its order is the matcher's to explore).     *)
(*     "for x \in S": one message per element x of S (x may appear in      *)
(*     FIELDS and COND); "if C": the message exists only when C is TRUE.   *)
(*     FIELDS name the fields of the channel records: room (the room id,   *)
(*     frame "room" on the wire) and rank (the decode rank: on the wire,   *)
(*     the connection's decode ip and port, and TransferInfo's agent       *)
(*     name).  Other wire fields (page indices, aux index, ...) are not    *)
(*     modelled; required_dst_info_num is the constant RequiredDstInfoNum. *)
(*                                                                         *)
(*   VALUE of "log" ::= EVENT "(" [FIELDS] ")"                             *)
(*                      [SP "for" SP BINDER] [SP "if" SP COND]             *)
(*       EVENT  ::= "sender_create" | "status" | "poll" | "clear"          *)
(*     Zero or more per implementation action, one per line the prefill    *)
(*     event log (traces/instrument/roomlog.py) writes when the action is  *)
(*     taken, in the order it writes them.  EXPR and COND may also read    *)
(*     primed variables: the state the step leads to.  "status" has the    *)
(*     fields from and to (request_status before and after update_status), *)
(*     "poll" queue ("bootstrap" or "inflight", the scheduler queue that   *)
(*     polled) and status (what poll() returned); the others have none.    *)
(*     An action with no "log" annotation writes nothing.                  *)
(*                                                                         *)
(*   VALUE of "idle" ::= VALUE of "log"                                    *)
(*     A line the action's thread writes to the event log in a state       *)
(*     where it looks but takes no step: the scheduler polls every request *)
(*     of its queues at each iteration and logs what poll() returned, but  *)
(*     a poll whose result does not let the request move on is no step of  *)
(*     the spec.  Evaluated for every value of the action's parameters in  *)
(*     the current state only (no primed variables); COND says when.       *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Rooms,                  \* room ids (model values)
    DecodeRanks,            \* decode ranks bootstrapped with this prefill rank
    RequiredDstInfoNum,     \* TransferInfo count that completes bootstrap
    NumChunks,              \* KV chunks per request (>= 1)
    BootstrapTimeoutSecs,   \* SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT's
                            \*   default (environ.py:612, 300 s); the harness
                            \*   reads the code's own and checks it
    \* ---- variant switches (BOOLEAN), one per ingredient ----------------
    HasBootstrapTimeout,    \* PR #34692: Failed after 300 s while Bootstrapping
    AbortPopsTransferInfos, \* fork 90a52f44a: ABORT pops transfer_infos always
    AbsentReadsWaiting,     \* NIXL check_status: .get(room, WaitingForInput);
                            \*   FALSE: common/Mooncake index -> KeyError
    AbsentLiveSenderFails,  \* fix: an absent room of a live sender reads Failed
    FailedSticky,           \* NIXL update_status override (nixl/conn.py:698)
    AbortSparesSuccess,     \* ABORT handler leaves a Success room alone
    AbortKillsBootstrap,    \* before PR #30352: ABORT lacks the guard frame
                            \*   and its assert kills the bootstrap thread
    AbortAckSent,           \* prefill ACKs ABORTs; decode frees a rank's
                            \*   pages only on that rank's ACK
    AbortAckLogged,         \* Mooncake: the ABORT handler also sends every
                            \*   ABORT a 2-frame ABORT_ACK that decode's
                            \*   thread only logs (mooncake/conn.py:2040-2050,
                            \*   :2143-2151): no message of this spec, and no
                            \*   action reads it; replay skips such an ACK
    AckWaitsForWrites,      \* fix (deferred release): the ABORT, and so its
                            \*   ACK, waits until the room's writes complete
    AckOnDrain,             \* PR #35360: ACK when the room's chunk count
                            \*   drains, one target per room
    AckOnDrainFixed,        \* fix of AckOnDrain: a target per rank, held
                            \*   also for an inactive room still counted; the
                            \*   exception path uncounts; clear() keeps the
                            \*   targets of a room still counted
    RecordTombstones,       \* fix: ABORT of an absent room leaves a tombstone
    FailureTombstones,      \* fix: a failure that clears its room leaves a
                            \*   tombstone too, so that the request's late
                            \*   TransferInfos and ABORTs find it
    WorkerSkipsMissing,     \* fork 90a52f44a: worker skips chunks of rooms
                            \*   missing from transfer_infos (else asserts);
                            \*   Mooncake: it writes to no rank then
    WorkerSkipsAbsent,      \* Mooncake: the worker skips a chunk whose room
                            \*   is absent from request_status, as a Failed
                            \*   one (mooncake/conn.py:1648-1664)
    WorkerMarksTransferring, \* NIXL: the worker marks the room Transferring
                            \*   as it posts a chunk and after a non-last
                            \*   chunk (nixl/conn.py:1369-1371); Mooncake's
                            \*   worker never writes Transferring
    SendSkipsFailed,        \* Mooncake: add_transfer_request enqueues
                            \*   nothing for an absent or Failed room
                            \*   (mooncake/conn.py:2198-2205)
    FailureClears,          \* PR #27011: failure_exception() calls clear()
    InflightBootstrappingRaises, \* PR #31075: Bootstrapping in flight raises
                            \*   RuntimeError (before: kept waiting)
    CountsOutstanding,      \* PR #30545: _staging_outstanding per room
    CountsAtDequeue,        \* PR #35360: a chunk is counted as the worker
                            \*   takes it (before: once its room passed the
                            \*   worker's checks), so the exception path
                            \*   leaves it counted
    RoomReuse,              \* a second incarnation reuses each room id
    TimeoutsFair,           \* timeouts are weakly fair (FALSE: *-prompt cfgs)
    TickBeforeTimeout       \* the clock also stops one second before a
                            \*   timeout expires (TRUE in the real-code
                            \*   sglang-* cfgs; FALSE: straight to the instant
                            \*   it expires, where the extra point costs too
                            \*   many states)

VARIABLES
    \* ---- prefill, shared dicts (nixl/conn.py NixlKVManager) -------------
    request_status,   \* room -> KVPoll name, or "Absent" (no dict entry)
    transfer_infos,   \* room -> decode ranks whose TransferInfo is stored
    tombstones,       \* rooms with an ABORT recorded while absent (fix only)
    outstanding,      \* room -> chunks counted in _staging_outstanding
    ack_target,       \* room -> decode ranks held for a deferred ABORT_ACK
    bootstrap_alive,  \* the bootstrap thread is running
    prefill_crashed,  \* the prefill process died (KeyError, RuntimeError)
    \* ---- prefill, per request ------------------------------------------
    sender,           \* request -> which scheduler queue holds it
    wqueue,           \* the worker queue: per request sent, its chunks left
    posted,           \* request -> a chunk's KV writes are in progress
    elapsed,          \* request -> seconds since its sender was created
                      \*   (time.time() - init_time), capped at the
                      \*   timeout; 0 unless the scheduler holds it
    kv_held,          \* request -> prefill holds its KV pages (the
                      \*   forward pass allocated them; release_kv_cache
                      \*   has not freed them)
    kv_frees,         \* request -> how often release_kv_cache freed its
                      \*   pages (2: more than once)
    \* ---- wire ----------------------------------------------------------
    chan,             \* decode rank -> FIFO of messages to prefill
    ack_chan,         \* decode rank -> FIFO of ABORT_ACKs from prefill
    \* ---- decode (environment) ------------------------------------------
    ti_sent,          \* request -> decode ranks that sent TransferInfo
    aborted,          \* request -> decode aborted it (sent ABORT)
    pages_released    \* request -> decode ranks that freed its KV pages

vars == << request_status, transfer_infos, tombstones, outstanding,
           ack_target, bootstrap_alive, prefill_crashed, sender, wqueue,
           posted, elapsed, kv_held, kv_frees, chan, ack_chan, ti_sent,
           aborted, pages_released >>

\* What the scheduler's release of a request and the clock change, for
\* UNCHANGED in the actions that touch neither.
timing == << elapsed >>
kvpool == << kv_held, kv_frees >>

-----------------------------------------------------------------------------
(* Values *)

Incarnations == IF RoomReuse THEN {1, 2} ELSE {1}

Requests == Rooms \X Incarnations

RoomOf(q) == q[1]

\* Room reuse is a retry (PD re-bootstrap): decode starts incarnation i+1 of
\* a room id only after it aborted incarnation i, and prefill only then
\* receives the new request.  Prefill may still hold incarnation i.
\* (IF, not \/: in an action TLC explores both disjuncts, and <<r, 0>> is
\* not a request.)
Started(q) == IF q[2] = 1 THEN TRUE ELSE aborted[<<RoomOf(q), q[2] - 1>>]

Statuses == {"Failed", "Bootstrapping", "WaitingForInput", "Transferring",
             "Success"}

StatusOrAbsent == Statuses \cup {"Absent"}

\* What a live sender's poll can return: a status, or a KeyError.
PollResults == Statuses \cup {"KeyError"}

\* The scheduler queue a request is in (prefill.py): not yet added
\* ("NoSender"), bootstrap queue, waiting queue, in-flight queue, released.
SenderPositions == {"NoSender", "BootstrapQueue", "WaitingQueue",
                    "InflightQueue", "Released"}

Msg == [type : {"TransferInfo", "ABORT"}, room : Rooms, rank : DecodeRanks]

AckMsg == [type : {"ABORT_ACK"}, room : Rooms, rank : DecodeRanks]

\* Each rank sends at most one TransferInfo and one ABORT per request.
MaxChanLen == 2 * Cardinality(Requests)

\* Every chunk of every request is queued (and counted) at most once.
MaxChunks == NumChunks * Cardinality(Requests)

\* An entry of the worker queue: the chunks of one request not yet taken.
\* (A request's chunks are queued together and taken in order, so one
\* entry stands for all of them.)
Batch == [req : Requests, left : 1..NumChunks]

\* base/conn.py KVPoll: a plain int class.
KVPoll(s) ==
    CASE s = "Failed"          -> 0
      [] s = "Bootstrapping"   -> 1
      [] s = "WaitingForInput" -> 2
      [] s = "Transferring"    -> 3
      [] s = "Success"         -> 4

\* common/conn.py:327 update_status, with NIXL's sticky-Failed override
\* (nixl/conn.py:698) when FailedSticky.  cur is the room's current entry
\* ("Absent" if none), s the status written; the result is the new entry.
\* Absent: Failed is a no-op (no resurrection), anything else inserts.
\* Present: Failed overwrites anything (even Success); otherwise max, except
\* that a sticky Failed stays Failed.
UpdateStatus(cur, s) ==
    IF cur = "Absent"
    THEN IF s = "Failed" THEN "Absent" ELSE s
    ELSE IF s = "Failed" THEN "Failed"
    ELSE IF FailedSticky /\ cur = "Failed" THEN "Failed"
    ELSE IF KVPoll(s) > KVPoll(cur) THEN s ELSE cur

\* check_status(room) as a live sender's poll sees it.  NIXL
\* (nixl/conn.py:695): request_status.get(room, WaitingForInput), so an
\* absent room reads as the non-terminal WaitingForInput; common/Mooncake
\* index directly: KeyError; the fix reads an absent room of a live sender
\* as Failed.
CheckStatus(cur) ==
    IF cur # "Absent" THEN cur
    ELSE IF AbsentLiveSenderFails THEN "Failed"
    ELSE IF AbsentReadsWaiting THEN "WaitingForInput"
    ELSE "KeyError"

\* The room of a request as the request's own poll sees it
\* (NixlKVSender.poll, nixl/conn.py:2827): Success is held back as
\* Transferring while chunks of the room are still counted (:2838).
Poll(q) ==
    LET r == RoomOf(q)
        s == CheckStatus(request_status[r])
    IN  IF s = "Success" /\ CountsOutstanding /\ outstanding[r] > 0
        THEN "Transferring" ELSE s

\* clear() (common/conn.py:1307): the room leaves every dict, and a held
\* ACK target is dropped (:1313-1316), unless the fix keeps the target of
\* a room whose chunks are still counted.
ClearedStatus(r) == [request_status EXCEPT ![r] = "Absent"]
ClearedInfos(r) == [transfer_infos EXCEPT ![r] = {}]
ClearedTargets(r) ==
    IF AckOnDrainFixed /\ outstanding[r] > 0 THEN ack_target
    ELSE [ack_target EXCEPT ![r] = {}]

\* The ABORT_ACKs for room r to the ranks in ds, appended to their channels.
SendAcks(r, ds) ==
    [d \in DecodeRanks |->
        IF d \in ds
        THEN Append(ack_chan[d], [type |-> "ABORT_ACK", room |-> r, rank |-> d])
        ELSE ack_chan[d]]

\* _maybe_ack_drained_abort (common/conn.py:394): the held ranks ds of a
\* room whose count becomes n get their ACK (and are no longer held) once
\* nothing of the room is counted.
Drained(n, ds) == {a \in ds : AckOnDrain /\ n = 0}

\* The ABORT at the head of decode rank d's channel, as the bootstrap
\* thread's handler sees it (nixl/conn.py:2659-2692).
AbortRoom(d) == Head(chan[d]).room
AbortActive(d) ==
    LET cur == request_status[AbortRoom(d)]
    IN  cur # "Absent" /\ ~(AbortSparesSuccess /\ cur = "Success")
\* With AckOnDrain, whether the handler holds an ACK for d (an active room;
\* the fix: also an inactive room still counted), the ranks then held, and
\* the ranks ACKed by this step.
AbortHolds(d) ==
    /\ AckOnDrain
    /\ \/ AbortActive(d)
       \/ AckOnDrainFixed /\ outstanding[AbortRoom(d)] > 0
AbortHeld(d) ==
    IF ~AbortHolds(d) THEN ack_target[AbortRoom(d)]
    ELSE IF AckOnDrainFixed THEN ack_target[AbortRoom(d)] \cup {d}
    ELSE {d}
AbortAcks(d) ==
    {a \in DecodeRanks :
        /\ AbortAckSent /\ ~AbortKillsBootstrap
        /\ IF ~AckOnDrain THEN a = d
           ELSE IF AbortHolds(d)
           THEN a \in Drained(outstanding[AbortRoom(d)], AbortHeld(d))
           ELSE a = d /\ outstanding[AbortRoom(d)] = 0}

\* The ranks a worker step ACKs: a skipped chunk of a Failed room pops the
\* count (drained); the fix's exception path uncounts its chunk; completed
\* writes uncount theirs.
PostAcks(q) ==
    LET r == RoomOf(q) IN
    IF \/ request_status[r] = "Failed"
       \/ WorkerSkipsAbsent /\ request_status[r] = "Absent"
    THEN Drained(0, ack_target[r])
    ELSE {a \in Drained(outstanding[r], ack_target[r]) :
              /\ transfer_infos[r] = {} /\ ~WorkerSkipsMissing
              /\ AckOnDrainFixed /\ CountsAtDequeue}
CompleteAcks(q) ==
    LET r == RoomOf(q) IN
    Drained(IF CountsOutstanding THEN outstanding[r] - 1 ELSE 0, ack_target[r])

\* Some chunk of q is still queued.
Queued(q) == \E i \in 1..Len(wqueue) : wqueue[i].req = q

-----------------------------------------------------------------------------
(* Type invariant: the generator derives Go types from it. *)

TypeOK ==
    /\ request_status \in [Rooms -> StatusOrAbsent]
    /\ transfer_infos \in [Rooms -> SUBSET DecodeRanks]
    /\ tombstones \in SUBSET Rooms
    /\ outstanding \in [Rooms -> 0..MaxChunks]
    /\ ack_target \in [Rooms -> SUBSET DecodeRanks]
    /\ bootstrap_alive \in BOOLEAN
    /\ prefill_crashed \in BOOLEAN
    /\ sender \in [Requests -> SenderPositions]
    /\ wqueue \in Seq(Batch)
    /\ Len(wqueue) <= Cardinality(Requests)
    /\ posted \in [Requests -> BOOLEAN]
    /\ elapsed \in [Requests -> 0..BootstrapTimeoutSecs]
    /\ kv_held \in [Requests -> BOOLEAN]
    /\ kv_frees \in [Requests -> 0..2]
    /\ chan \in [DecodeRanks -> Seq(Msg)]
    /\ \A d \in DecodeRanks : Len(chan[d]) <= MaxChanLen
    /\ ack_chan \in [DecodeRanks -> Seq(AckMsg)]
    /\ \A d \in DecodeRanks : Len(ack_chan[d]) <= MaxChanLen
    /\ ti_sent \in [Requests -> SUBSET DecodeRanks]
    /\ aborted \in [Requests -> BOOLEAN]
    /\ pages_released \in [Requests -> SUBSET DecodeRanks]

-----------------------------------------------------------------------------
Init ==
    /\ request_status = [r \in Rooms |-> "Absent"]
    /\ transfer_infos = [r \in Rooms |-> {}]
    /\ tombstones = {}
    /\ outstanding = [r \in Rooms |-> 0]
    /\ ack_target = [r \in Rooms |-> {}]
    /\ bootstrap_alive = TRUE
    /\ prefill_crashed = FALSE
    /\ sender = [q \in Requests |-> "NoSender"]
    /\ wqueue = << >>
    /\ posted = [q \in Requests |-> FALSE]
    /\ elapsed = [q \in Requests |-> 0]
    /\ kv_held = [q \in Requests |-> FALSE]
    /\ kv_frees = [q \in Requests |-> 0]
    /\ chan = [d \in DecodeRanks |-> << >>]
    /\ ack_chan = [d \in DecodeRanks |-> << >>]
    /\ ti_sent = [q \in Requests |-> {}]
    /\ aborted = [q \in Requests |-> FALSE]
    /\ pages_released = [q \in Requests |-> {}]

-----------------------------------------------------------------------------
(* Prefill scheduler thread *)

\* The request arrives at prefill and gets its sender, which registers the
\* room as Bootstrapping.  If all TransferInfos already arrived (room is
\* WaitingForInput) max swallows the Bootstrapping.  Fix: a tombstoned
\* room fails at once.
\* @action: implementation scheduler
\* @models: prefill.py:358 PrefillBootstrapQueue.add -> create_sender -> NixlKVSender.__init__
\* @models: common/conn.py:1168 update_status(room, Bootstrapping)
\* @log: sender_create()
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
SchedulerCreateSender(q) ==
    /\ ~prefill_crashed
    /\ sender[q] = "NoSender"
    /\ Started(q)
    /\ sender' = [sender EXCEPT ![q] = "BootstrapQueue"]
    /\ request_status' =
           [request_status EXCEPT ![RoomOf(q)] =
                IF RecordTombstones /\ RoomOf(q) \in tombstones
                THEN "Failed"
                ELSE UpdateStatus(@, "Bootstrapping")]
    /\ UNCHANGED << transfer_infos, tombstones, outstanding, ack_target,
                    bootstrap_alive, prefill_crashed, wqueue, posted, chan,
                    ack_chan, ti_sent, aborted, pages_released,
                    timing, kvpool >>

\* The step releases request q and clears its room (clear(): on Success
\* always, on a failure where failure_exception() clears it): what the
\* event log's "clear" line records.  Only @log annotations use it.
ClearsRoom(q) ==
    /\ sender[q] # "Released"
    /\ sender'[q] = "Released"
    /\ (FailureClears \/ Poll(q) = "Success")

\* The requests scheduler queue Q holds.
InQueue(Q) == {q \in Requests : sender[q] = Q}

\* The scheduler holds q: its sender exists and q is not released.
Live(q) == sender[q] \in {"BootstrapQueue", "WaitingQueue", "InflightQueue"}

\* q's bootstrap timeout (PR #34692) has expired: elapsed reached it
\* (common/conn.py:1285-1286 fires unless elapsed < bootstrap_timeout).
Expired(q) == HasBootstrapTimeout /\ elapsed[q] >= BootstrapTimeoutSecs

\* The rooms whose bootstrap timeout fires in a pass over queue Q: a
\* request of Q whose room reads Bootstrapping and whose timeout expired;
\* its poll does update_status(room, Failed) (common/conn.py:1297) before
\* it returns Failed (nixl/conn.py:2831-2834; the in-flight poll is the
\* same NixlKVSender.poll).
TimeoutRooms(Q) ==
    {r \in Rooms : \E q \in InQueue(Q) : /\ RoomOf(q) = r
                                        /\ Poll(q) = "Bootstrapping"
                                        /\ Expired(q)}

\* The rooms of the requests in D.
RoomsOf(D) == {r \in Rooms : \E q \in D : RoomOf(q) = r}

\* What q's poll returns in a pass over queue Q.  A pass polls every request
\* of the queue before it acts on any (poll_and_all_reduce, prefill.py:429,
\* :842), in queue order, which is the order the senders were created: a
\* timeout fires first for the oldest sender, and a later request of the
\* same room then reads the Failed it wrote.
QPoll(q, Q) == IF RoomOf(q) \in TimeoutRooms(Q) THEN "Failed" ELSE Poll(q)

\* A pass's effect on the rooms: the rooms in C are cleared (clear(),
\* common/conn.py:1307), the timed-out rooms in F not cleared read Failed.
PassRooms(C, F) ==
    /\ request_status' =
           [r \in Rooms |-> IF r \in C THEN "Absent"
                            ELSE IF r \in F
                            THEN UpdateStatus(request_status[r], "Failed")
                            ELSE request_status[r]]
    /\ transfer_infos' =
           [r \in Rooms |-> IF r \in C THEN {} ELSE transfer_infos[r]]
    /\ ack_target' =
           [r \in Rooms |-> IF r \in C /\ ~(AckOnDrainFixed /\ outstanding[r] > 0)
                            THEN {} ELSE ack_target[r]]

\* The tombstones after a pass that fails the requests in D: where
\* FailureTombstones (the fix), a failure that clears its room records a
\* tombstone for it, as an ABORT of an absent room does: a TransferInfo or
\* ABORT of that request arriving late is dropped instead of re-inserting a
\* room no request will clear again.
FailureTombstoned(D) ==
    IF FailureTombstones /\ FailureClears THEN tombstones \cup RoomsOf(D)
    ELSE tombstones

\* The prefill process dies (an exception escaped the event loop).  The
\* loop raises at the first request whose poll it cannot handle; every
\* request a pass polls reads its room, and in the model's configurations
\* only a reused room id makes such a poll, so every request polled before
\* it in the pass is of the same room and raises too: nothing else changes.
Crash ==
    /\ prefill_crashed' = TRUE
    /\ UNCHANGED << sender, request_status, transfer_infos, ack_target,
                    tombstones, elapsed, kvpool >>

\* The bootstrap-queue pass: every request of the queue is polled, then
\* each acts on its poll.  Bootstrapping: keeps waiting.  Failed (an ABORT,
\* or the timeout firing in this poll): released (handle_bootstrap_failure:
\* failure_exception() clears the room where FailureClears; the request has
\* no KV pages yet, so release_kv_cache is not called, prefill.py:1013-1016).
\* WaitingForInput: bootstrapped, to the waiting queue.  Transferring or
\* Success (left by another incarnation): RuntimeError; KeyError: the
\* process dies too.  A pass in which nothing moves is a stutter.
\* @action: implementation scheduler
\* @models: prefill.py:383 PrefillBootstrapQueue.pop_bootstrapped (:436 failure, :461-464 RuntimeError)
\* @models: prefill.py:993 handle_bootstrap_failure -> nixl/conn.py:2862 failure_exception -> clear()
\* @models: common/conn.py:1282 CommonKVSender._check_bootstrap_timeout, via nixl/conn.py:2831-2834
\* @log: status(from: request_status[r], to: "Failed") for r \in TimeoutRooms("BootstrapQueue")
\* @log: poll(queue: "bootstrap", status: QPoll(q, "BootstrapQueue")) for q \in InQueue("BootstrapQueue")
\* @idle: poll(queue: "bootstrap", status: Poll(q)) for q \in InQueue("BootstrapQueue") if QPoll(q, "BootstrapQueue") = "Bootstrapping"
\* @log: clear() for q \in Requests if ClearsRoom(q)
SchedulerPollBootstrap ==
    LET B    == InQueue("BootstrapQueue")
        Fail == {q \in B : QPoll(q, "BootstrapQueue") = "Failed"}
        Go   == {q \in B : QPoll(q, "BootstrapQueue") = "WaitingForInput"}
        Bad  == {q \in B : QPoll(q, "BootstrapQueue")
                               \notin {"Failed", "WaitingForInput", "Bootstrapping"}}
    IN  /\ ~prefill_crashed
        /\ Fail \cup Go \cup Bad # {}
        /\ IF Bad # {}
           THEN Crash
           ELSE /\ sender' = [q \in Requests |->
                                 IF q \in Fail THEN "Released"
                                 ELSE IF q \in Go THEN "WaitingQueue"
                                 ELSE sender[q]]
                /\ elapsed' = [q \in Requests |->
                                  IF q \in Fail THEN 0 ELSE elapsed[q]]
                /\ PassRooms(IF FailureClears THEN RoomsOf(Fail) ELSE {},
                             TimeoutRooms("BootstrapQueue"))
                /\ tombstones' = FailureTombstoned(Fail)
                /\ UNCHANGED << prefill_crashed, kvpool >>
    /\ UNCHANGED << outstanding, bootstrap_alive, wqueue,
                    posted, chan, ack_chan, ti_sent, aborted,
                    pages_released >>

\* Forward pass done: the batch allocated q's KV pages on prefill, and
\* send sends the KV chunks.  add_transfer_request returns silently,
\* enqueuing nothing, when the room has no transfer_infos (nixl/conn.py:2431,
\* PR #32025); the request goes to the in-flight queue either way.
\* @action: implementation scheduler
\* @models: prefill.py:658 process_batch_result_disagg_prefill (:744 in-flight queue, :786 send_kv_chunk)
\* @models: prefill.py:1139 send_kv_chunk -> NixlKVSender.send (nixl/conn.py:2792)
\* @models: nixl/conn.py:2414 add_transfer_request (FIFO queue, :2441-2444)
\* @models: mooncake/conn.py:2184 add_transfer_request (status check :2198-2205, queue :2216-2232)
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
SchedulerSend(q) ==
    /\ ~prefill_crashed
    /\ sender[q] = "WaitingQueue"
    /\ sender' = [sender EXCEPT ![q] = "InflightQueue"]
    /\ kv_held' = [kv_held EXCEPT ![q] = TRUE]
    /\ wqueue' = IF /\ transfer_infos[RoomOf(q)] # {}
                    /\ ~(SendSkipsFailed
                         /\ request_status[RoomOf(q)] \in {"Absent", "Failed"})
                 THEN Append(wqueue, [req |-> q, left |-> NumChunks])
                 ELSE wqueue
    /\ UNCHANGED << request_status, transfer_infos, tombstones, outstanding,
                    ack_target, bootstrap_alive, prefill_crashed, posted,
                    elapsed, kv_frees, chan, ack_chan, ti_sent, aborted,
                    pages_released >>

\* The in-flight pass: every request of the queue is polled, then each acts
\* on its poll.  WaitingForInput/Transferring: kept, with no timeout.
\* Success: released, release_kv_cache frees its pages and clear() removes
\* the room from every dict.  Failed: released
\* (handle_inflight_transfer_failure: failure_exception() clears the room
\* where FailureClears, release_kv_cache frees the pages).  Bootstrapping
\* (left by another incarnation): the timeout fires if it expired, else
\* RuntimeError where InflightBootstrappingRaises, else kept.  KeyError:
\* the process dies.
\* @action: implementation scheduler
\* @models: prefill.py:830 process_disagg_prefill_inflight_queue (:880-893, :894-897 RuntimeError)
\* @models: prefill.py:886 release_kv_cache on Success; :937 handle_inflight_transfer_failure -> :957 release_kv_cache
\* @models: nixl/conn.py:2827 NixlKVSender.poll, common/conn.py:1307 clear
\* @log: status(from: request_status[r], to: "Failed") for r \in TimeoutRooms("InflightQueue")
\* @log: poll(queue: "inflight", status: QPoll(q, "InflightQueue")) for q \in InQueue("InflightQueue")
\* @idle: poll(queue: "inflight", status: Poll(q)) for q \in InQueue("InflightQueue") if QPoll(q, "InflightQueue") \notin {"Success", "Failed", "KeyError"}
\* @log: clear() for q \in Requests if ClearsRoom(q)
SchedulerPollInFlight ==
    LET I    == InQueue("InflightQueue")
        Succ == {q \in I : QPoll(q, "InflightQueue") = "Success"}
        Fail == {q \in I : QPoll(q, "InflightQueue") = "Failed"}
        Done == Succ \cup Fail
        Bad  == {q \in I : \/ QPoll(q, "InflightQueue") = "KeyError"
                           \/ /\ QPoll(q, "InflightQueue") = "Bootstrapping"
                              /\ InflightBootstrappingRaises}
    IN  /\ ~prefill_crashed
        /\ Done \cup Bad # {}
        /\ IF Bad # {}
           THEN Crash
           ELSE /\ sender' = [q \in Requests |->
                                 IF q \in Done THEN "Released" ELSE sender[q]]
                /\ elapsed' = [q \in Requests |->
                                  IF q \in Done THEN 0 ELSE elapsed[q]]
                /\ kv_held' = [q \in Requests |->
                                  IF q \in Done THEN FALSE ELSE kv_held[q]]
                /\ kv_frees' = [q \in Requests |->
                                   IF q \in Done THEN kv_frees[q] + 1
                                   ELSE kv_frees[q]]
                /\ PassRooms(RoomsOf(Succ)
                               \cup (IF FailureClears THEN RoomsOf(Fail) ELSE {}),
                             TimeoutRooms("InflightQueue"))
                /\ tombstones' = FailureTombstoned(Fail)
                /\ UNCHANGED prefill_crashed
    /\ UNCHANGED << outstanding, bootstrap_alive, wqueue,
                    posted, chan, ack_chan, ti_sent, aborted,
                    pages_released >>

-----------------------------------------------------------------------------
(* Prefill bootstrap thread: reads one message off a decode rank's channel *)

\* TransferInfo from decode rank d: store it; when RequiredDstInfoNum ranks
\* have sent one, update_status(WaitingForInput) -- which inserts the room
\* even if no sender exists yet.  Fix: a tombstoned room ignores it.
\* @action: implementation bootstrap
\* @models: nixl/conn.py:2696 NixlKVManager.bootstrap_thread, TransferInfo branch (:2744-2763)
\* @wire: recv TransferInfo(room: Head(chan[d]).room, rank: d) decode->prefill
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
BootstrapRecvTransferInfo(d) ==
    /\ ~prefill_crashed
    /\ bootstrap_alive
    /\ chan[d] # << >>
    /\ Head(chan[d]).type = "TransferInfo"
    /\ LET r   == Head(chan[d]).room
           tis == transfer_infos[r] \cup {d}
       IN  IF RecordTombstones /\ r \in tombstones
           THEN UNCHANGED << request_status, transfer_infos >>
           ELSE /\ transfer_infos' = [transfer_infos EXCEPT ![r] = tis]
                /\ request_status' =
                       IF Cardinality(tis) = RequiredDstInfoNum
                       THEN [request_status EXCEPT
                                 ![r] = UpdateStatus(@, "WaitingForInput")]
                       ELSE request_status
    /\ chan' = [chan EXCEPT ![d] = Tail(@)]
    /\ UNCHANGED << tombstones, outstanding, ack_target, bootstrap_alive,
                    prefill_crashed, sender, wqueue, posted, ack_chan,
                    ti_sent, aborted, pages_released,
                    timing, kvpool >>

\* ABORT from decode rank d.  Before PR #30352 the message (which has no
\* guard frame) trips an assert and kills the bootstrap thread.  Otherwise
\* (nixl/conn.py:2647): a present room (not Success, where
\* AbortSparesSuccess) is active and becomes Failed; an absent room is only
\* logged (upstream) or tombstoned (fix); the fork pops transfer_infos
\* unconditionally.  ABORT_ACK: Mooncake ACKs every ABORT at once; with
\* AckWaitsForWrites (the fix) the thread handles the ABORT only once no
\* KV write of the room is in progress; with AckOnDrain (PR #35360) an
\* active room holds the ACK for this rank (replacing any other rank's,
\* unless fixed) until the room's count drains, and an inactive room is
\* ACKed at once if nothing of it is counted, else never (the fix holds
\* it until the count drains).
\* @action: implementation bootstrap
\* @models: nixl/conn.py:2647 NixlKVManager._handle_abort_notification (deferred ACK :2685-2692)
\* @models: mooncake/conn.py bootstrap_thread ABORT branch (ABORT_ACK)
\* @wire: recv ABORT(room: Head(chan[d]).room, rank: d) decode->prefill
\* @wire: send ABORT_ACK(room: Head(chan[d]).room, rank: a) prefill->decode for a \in AbortAcks(d)
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
BootstrapRecvAbort(d) ==
    /\ ~prefill_crashed
    /\ bootstrap_alive
    /\ chan[d] # << >>
    /\ Head(chan[d]).type = "ABORT"
    /\ ~(AbortAckSent /\ AckWaitsForWrites /\ ~AbortKillsBootstrap
         /\ \E q \in Requests : RoomOf(q) = Head(chan[d]).room /\ posted[q])
    /\ chan' = [chan EXCEPT ![d] = Tail(@)]
    /\ IF AbortKillsBootstrap
       THEN /\ bootstrap_alive' = FALSE
            /\ UNCHANGED << request_status, transfer_infos, tombstones,
                            ack_target, ack_chan >>
       ELSE LET r   == AbortRoom(d)
                cur == request_status[r]
            IN  /\ bootstrap_alive' = bootstrap_alive
                /\ request_status' =
                       IF AbortActive(d)
                       THEN [request_status EXCEPT
                                 ![r] = UpdateStatus(@, "Failed")]
                       ELSE request_status
                /\ transfer_infos' = IF AbortPopsTransferInfos
                                     THEN ClearedInfos(r)
                                     ELSE transfer_infos
                /\ tombstones' = IF RecordTombstones /\ cur = "Absent"
                                 THEN tombstones \cup {r}
                                 ELSE tombstones
                /\ ack_chan' = SendAcks(r, AbortAcks(d))
                /\ ack_target' =
                       IF AbortHolds(d)
                       THEN [ack_target EXCEPT ![r] = AbortHeld(d) \ AbortAcks(d)]
                       ELSE ack_target
    /\ UNCHANGED << outstanding, prefill_crashed, sender, wqueue, posted,
                    ti_sent, aborted, pages_released,
                    timing, kvpool >>

-----------------------------------------------------------------------------
(* Prefill transfer workers *)

\* The worker takes the chunk at the head of its queue, once the previous
\* chunk's writes completed (it busy-waits on them).  It counts the chunk
\* (CountsOutstanding).  Failed room: skip the chunk, the count is popped,
\* and a held ACK goes out.  Room missing from transfer_infos: skip (fork)
\* or assert -> exception -> update_status(Failed) (a no-op for an absent
\* room), the chunk still counted unless fixed.  Otherwise mark the room
\* Transferring and post the RDMA writes into decode's pages.
\* @action: implementation worker
\* @models: nixl/conn.py:1121 NixlKVManager.transfer_worker (dequeue :1128, count :1137, skip :1139-1145)
\* @models: nixl/conn.py:1147 assert room in transfer_infos -> :1394 exception path
\* @models: mooncake/conn.py:1615 MooncakeKVManager.transfer_worker (count :1642-1644, skip :1648-1664, writes :1672-1772)
\* @wire: send ABORT_ACK(room: RoomOf(q), rank: a) prefill->decode for a \in PostAcks(q)
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
WorkerPost(q) ==
    /\ ~prefill_crashed
    /\ wqueue # << >>
    /\ Head(wqueue).req = q
    /\ \A p \in Requests : ~posted[p]
    /\ wqueue' = IF Head(wqueue).left = 1 THEN Tail(wqueue)
                 ELSE [wqueue EXCEPT ![1] = [req |-> q, left |-> @.left - 1]]
    /\ LET r       == RoomOf(q)
           counted == IF CountsOutstanding THEN outstanding[r] + 1 ELSE 0
       IN  /\ ack_chan' = SendAcks(r, PostAcks(q))
           /\ ack_target' = [ack_target EXCEPT ![r] = @ \ PostAcks(q)]
           /\ IF \/ request_status[r] = "Failed"
                 \/ WorkerSkipsAbsent /\ request_status[r] = "Absent"
              THEN /\ outstanding' = [outstanding EXCEPT ![r] = 0]
                   /\ UNCHANGED << request_status, posted >>
              ELSE IF transfer_infos[r] = {}
              THEN IF WorkerSkipsMissing
                   THEN UNCHANGED << request_status, posted, outstanding >>
                   ELSE /\ request_status' =
                               [request_status EXCEPT
                                    ![r] = UpdateStatus(@, "Failed")]
                        /\ outstanding' =
                               [outstanding EXCEPT ![r] =
                                    IF CountsAtDequeue /\ ~AckOnDrainFixed
                                    THEN counted ELSE outstanding[r]]
                        /\ UNCHANGED posted
              ELSE /\ posted' = [posted EXCEPT ![q] = TRUE]
                   /\ outstanding' = [outstanding EXCEPT ![r] = counted]
                   /\ request_status' =
                          IF WorkerMarksTransferring
                          THEN [request_status EXCEPT
                                    ![r] = UpdateStatus(@, "Transferring")]
                          ELSE request_status
    /\ UNCHANGED << transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, chan, ti_sent, aborted,
                    pages_released,
                    timing, kvpool >>

\* The posted writes complete.  The chunk is uncounted and a held ACK goes
\* out if the count drained.  Last chunk: update_status(Success).  Other
\* chunk: update_status(Transferring) unless the room reads Success -- which
\* re-inserts a room that clear() removed.  The room's transfer_infos (and
\* count) are dropped once nothing is counted and the room concluded: it
\* reads Success, or this was the last chunk and it reads Failed (before
\* CountsOutstanding: after the last chunk, always).
\* @action: implementation worker
\* @models: nixl/conn.py:1348-1359 wait for the writes, :1362-1371 uncount and status
\* @models: nixl/conn.py:1377-1386 drop per-room state
\* @models: mooncake/conn.py:1895-1901 last chunk: update_status(Success), :1931-1960 uncount and drop per-room state
\* @wire: send ABORT_ACK(room: RoomOf(q), rank: a) prefill->decode for a \in CompleteAcks(q)
\* @log: status(from: request_status[r], to: request_status'[r]) for r \in Rooms if request_status'[r] # request_status[r]
WorkerComplete(q) ==
    /\ ~prefill_crashed
    /\ posted[q]
    /\ posted' = [posted EXCEPT ![q] = FALSE]
    /\ LET r    == RoomOf(q)
           last == ~Queued(q)
           n    == IF CountsOutstanding THEN outstanding[r] - 1 ELSE 0
           cur  == request_status[r]
           s    == IF last THEN UpdateStatus(cur, "Success")
                   ELSE IF WorkerMarksTransferring /\ CheckStatus(cur) # "Success"
                   THEN UpdateStatus(cur, "Transferring")
                   ELSE cur
           drop == IF CountsOutstanding
                   THEN n <= 0 /\ (s \in {"Success", "Absent"}
                                   \/ (last /\ s = "Failed"))
                   ELSE last
       IN  /\ ack_chan' = SendAcks(r, CompleteAcks(q))
           /\ ack_target' = [ack_target EXCEPT ![r] = @ \ CompleteAcks(q)]
           /\ request_status' = [request_status EXCEPT ![r] = s]
           /\ outstanding' = [outstanding EXCEPT ![r] = IF drop THEN 0 ELSE n]
           /\ transfer_infos' = IF drop THEN ClearedInfos(r)
                                ELSE transfer_infos
    /\ UNCHANGED << tombstones, bootstrap_alive, prefill_crashed, sender,
                    wqueue, chan, ti_sent, aborted, pages_released,
                    timing, kvpool >>

-----------------------------------------------------------------------------
(* Prefill timeouts: the clock *)

Min(a, b) == IF a < b THEN a ELSE b

\* The clock moves on.  Only the bootstrap timeout reads it (elapsed =
\* time.time() - init_time, init_time set when the sender is created,
\* nixl/conn.py:2785; the timeout fires once elapsed reaches
\* bootstrap_timeout, common/conn.py:1285-1286), and only in a poll that
\* reads Bootstrapping (nixl/conn.py:2831): the clock moves to one second
\* before the timeout of such a request expires (only with
\* TickBeforeTimeout) or, from there, to the instant it expires, and every
\* held sender's elapsed time moves as much
\* (capped: beyond the timeout nothing changes).  No behaviour tells two
\* times between these instants apart, and while no polled request reads
\* Bootstrapping, time passing changes nothing a later poll can tell
\* (every held sender would age alike, and only one about to be polled
\* Bootstrapping can time out).  There is no timeout for WaitingForInput
\* or Transferring.
\* @action: implementation timeout
\* @models: common/conn.py:1282-1286 CommonKVSender._check_bootstrap_timeout; nixl/conn.py:2785 init_time
Tick(q) ==
    /\ HasBootstrapTimeout
    /\ ~prefill_crashed
    /\ sender[q] \in {"BootstrapQueue", "InflightQueue"}
    /\ Poll(q) = "Bootstrapping"
    /\ elapsed[q] < BootstrapTimeoutSecs
    /\ LET to == IF TickBeforeTimeout /\ elapsed[q] < BootstrapTimeoutSecs - 1
                 THEN BootstrapTimeoutSecs - 1 ELSE BootstrapTimeoutSecs
           d  == to - elapsed[q]
       IN  elapsed' = [p \in Requests |->
                          IF Live(p)
                          THEN Min(elapsed[p] + d, BootstrapTimeoutSecs)
                          ELSE 0]
    /\ UNCHANGED << request_status, transfer_infos, tombstones, outstanding,
                    ack_target, bootstrap_alive, prefill_crashed, sender,
                    wqueue, posted, kvpool, chan, ack_chan, ti_sent, aborted,
                    pages_released >>

-----------------------------------------------------------------------------
(* Decode: the environment *)

\* Decode rank d has pre-allocated q's KV pages and tells prefill where to
\* write them.  Never after decode aborted q.
\* @action: environment decode
\* @models: nixl/conn.py:2895 NixlKVReceiver.send_metadata (sends TransferInfo)
\* @wire: send TransferInfo(room: RoomOf(q), rank: d) decode->prefill
DecodeSendTransferInfo(d, q) ==
    /\ Started(q)
    /\ ~aborted[q]
    /\ d \notin ti_sent[q]
    /\ ti_sent' = [ti_sent EXCEPT ![q] = @ \cup {d}]
    /\ chan' = [chan EXCEPT ![d] = Append(@, [type |-> "TransferInfo",
                                              room |-> RoomOf(q), rank |-> d])]
    /\ UNCHANGED << request_status, transfer_infos, tombstones, outstanding,
                    ack_target, bootstrap_alive, prefill_crashed, sender,
                    wqueue, posted, ack_chan, aborted, pages_released,
                    timing, kvpool >>

\* Decode aborts q (client abort, or its 300 s waiting timeout), once: every
\* decode rank sends ABORT to this prefill rank, and never resends.  Without
\* ABORT_ACK decode frees q's KV pages at once.
\* @action: environment decode
\* @models: common/conn.py:1573 CommonKVReceiver.abort -> :1588 _send_abort_notification
\* @wire: send ABORT(room: RoomOf(q), rank: d) decode->prefill for d \in DecodeRanks
DecodeAbort(q) ==
    /\ Started(q)
    /\ ~aborted[q]
    /\ aborted' = [aborted EXCEPT ![q] = TRUE]
    /\ chan' = [d \in DecodeRanks |->
                   Append(chan[d], [type |-> "ABORT", room |-> RoomOf(q),
                                    rank |-> d])]
    /\ pages_released' = IF AbortAckSent THEN pages_released
                         ELSE [pages_released EXCEPT ![q] = DecodeRanks]
    /\ UNCHANGED << request_status, transfer_infos, tombstones, outstanding,
                    ack_target, bootstrap_alive, prefill_crashed, sender,
                    wqueue, posted, ack_chan, ti_sent,
                    timing, kvpool >>

\* Decode rank d receives an ABORT_ACK for a room and frees the pages of
\* its aborted requests with that room id.
\* @action: environment decode
\* @fair: decode's listener thread reads every ABORT_ACK that reaches it
\* @models: nixl/conn.py:596 decode listener thread -> common/conn.py:353 note_abort_ack
\* @models: mooncake/conn.py MooncakeKVReceiver ABORT_ACK handling
\* @wire: recv ABORT_ACK(room: Head(ack_chan[d]).room, rank: d) prefill->decode
DecodeRecvAbortAck(d) ==
    /\ ack_chan[d] # << >>
    /\ ack_chan' = [ack_chan EXCEPT ![d] = Tail(@)]
    /\ pages_released' =
           [q \in Requests |->
               IF RoomOf(q) = Head(ack_chan[d]).room /\ aborted[q]
               THEN pages_released[q] \cup {d}
               ELSE pages_released[q]]
    /\ UNCHANGED << request_status, transfer_infos, tombstones, outstanding,
                    ack_target, bootstrap_alive, prefill_crashed, sender,
                    wqueue, posted, chan, ti_sent, aborted, timing, kvpool >>

-----------------------------------------------------------------------------
Next ==
    \/ \E q \in Requests : SchedulerCreateSender(q)
    \/ SchedulerPollBootstrap
    \/ \E q \in Requests : SchedulerSend(q)
    \/ SchedulerPollInFlight
    \/ \E d \in DecodeRanks : BootstrapRecvTransferInfo(d)
    \/ \E d \in DecodeRanks : BootstrapRecvAbort(d)
    \/ \E q \in Requests : WorkerPost(q)
    \/ \E q \in Requests : WorkerComplete(q)
    \/ \E q \in Requests : Tick(q)
    \/ \E d \in DecodeRanks, q \in Requests : DecodeSendTransferInfo(d, q)
    \/ \E q \in Requests : DecodeAbort(q)
    \/ \E d \in DecodeRanks : DecodeRecvAbortAck(d)

\* Timeouts are fair only when TimeoutsFair (quantifying over the empty set
\* makes the conjunct TRUE otherwise).
TimeoutFairRequests == IF TimeoutsFair THEN Requests ELSE {}

\* Weak fairness of every prefill thread step; the environment (decode) is
\* never assumed to act, except that decode's listener thread reads the
\* ABORT_ACKs that reach it (AbortsAcked is about whether they are sent).
Fairness ==
    /\ \A q \in Requests : WF_vars(SchedulerCreateSender(q))
    /\ WF_vars(SchedulerPollBootstrap)
    /\ \A q \in Requests : WF_vars(SchedulerSend(q))
    /\ WF_vars(SchedulerPollInFlight)
    /\ \A d \in DecodeRanks : WF_vars(BootstrapRecvTransferInfo(d))
    /\ \A d \in DecodeRanks : WF_vars(BootstrapRecvAbort(d))
    /\ \A q \in Requests : WF_vars(WorkerPost(q))
    /\ \A q \in Requests : WF_vars(WorkerComplete(q))
    /\ \A q \in TimeoutFairRequests : WF_vars(Tick(q))
    /\ \A d \in DecodeRanks : WF_vars(DecodeRecvAbortAck(d))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties *)

\* Prefill has let go of q: released by the scheduler, or the whole prefill
\* process died loudly (KeyError, RuntimeError).
Terminated(q) == sender[q] = "Released" \/ prefill_crashed

\* THE property: every aborted request eventually terminates.
AbortedRoomsTerminate == \A q \in Requests : aborted[q] ~> Terminated(q)

\* The same formula, checked with TimeoutsFair = FALSE (cfgs *-prompt): a
\* timeout may never fire, so an aborted request must terminate without
\* relying on one.
PromptTermination == \A q \in Requests : aborted[q] ~> Terminated(q)

\* Deferred release: every rank of an aborted request eventually frees its
\* pages on an ABORT_ACK, instead of waiting for decode's fallback timeout.
\* (Trivially true where decode frees its pages when it aborts.)
Acked(q) == pages_released[q] = DecodeRanks

AbortsAcked == \A q \in Requests : aborted[q] ~> Acked(q)

\* The corruption hazard: prefill's KV writes for q are in progress while
\* a decode rank has already freed q's pages (they may hold another
\* request's KV by now).
NoWriteAfterRelease ==
    \A q \in Requests : posted[q] => pages_released[q] = {}

\* Every request the scheduler lets go has had its KV pages freed, once:
\* release_kv_cache unlocks them in the tree cache (prefill.py:886 on
\* Success, :957 on a failure in flight; a request failed in the bootstrap
\* queue has no pages yet, :1013-1016).  Violated by a release path that
\* forgets them (the GPU memory leaks) or frees them twice.
PagesFreedOnce ==
    \A q \in Requests : /\ sender[q] = "Released" => ~kv_held[q]
                      /\ kv_frees[q] <= 1

\* Prefill never frees a request's KV pages while a KV write of it is
\* posted (the RDMA engine still reads them, and the pool may already
\* have handed them to another request), nor posts one after.
NoFreeWhileWriting ==
    \A q \in Requests : posted[q] => kv_held[q]

\* NIXL's claim (where FailedSticky): a Failed room stays Failed until its
\* entry is removed.
FailedStaysFailed ==
    [][\A r \in Rooms :
          (FailedSticky /\ request_status[r] = "Failed")
              => request_status'[r] \in {"Failed", "Absent"}]_vars

\* Prefill has received (and handled or dropped) an ABORT of q: decode
\* aborted q and one of its ranks' ABORTs for q's room has been read.
AbortReceived(q) ==
    /\ aborted[q]
    /\ \E d \in DecodeRanks :
           \A i \in 1..Len(chan[d]) :
               ~(chan[d][i].type = "ABORT" /\ chan[d][i].room = RoomOf(q))

\* The hazard as prefill's own fault: prefill starts writing q's KV after it
\* has received an ABORT of q (e.g. the ABORT was dropped for an absent
\* room and bootstrap completed later).  Unlike NoWriteAfterRelease this
\* ignores the race with an ABORT still on the wire.
NoWriteAfterAbortReceived ==
    [][\A q \in Requests :
          (~posted[q] /\ posted'[q]) => ~AbortReceived(q)]_vars

\* The worker's claim: no KV chunk is posted for a room that is Failed.
NoTransferForFailedRoom ==
    [][\A q \in Requests :
          (~posted[q] /\ posted'[q])
              => request_status[RoomOf(q)] # "Failed"]_vars

\* No entry outlives its requests: once every request of a room is
\* released and no chunk of it is queued or in progress, the room reads
\* Absent (or WaitingForInput: a TransferInfo that arrives after the release
\* re-inserts the room, and nothing ever reads it).  Violated where a
\* worker step re-inserts a room that clear() removed: the entry leaks,
\* and a later request reusing the room id reads it.
NoEntryAfterRelease ==
    \A r \in Rooms :
        (\A q \in Requests :
             RoomOf(q) = r => /\ sender[q] = "Released"
                              /\ ~posted[q]
                              /\ ~Queued(q))
        => request_status[r] \in {"Absent", "WaitingForInput"}

(***************************************************************************)
(* VERDICTS (spec/check, each property on its own; spec/README.md has the  *)
(* table; conformance/sglang runs SGLang's code against the sglang-* cfgs) *)
(*                                                                         *)
(* AbortedRoomsTerminate is violated by every SGLang commit before PR      *)
(* #34692 (sglang-pre-27011 ... sglang-30545: no bootstrap timeout, so a   *)
(* room whose ABORTs reached prefill before its sender existed stays       *)
(* Bootstrapping; before PR #30352 the first ABORT kills the bootstrap     *)
(* thread), by the fork, and wherever a room id is reused: one request's   *)
(* failure clears the room the other still needs (upstream-reuse, 8        *)
(* steps).  Since PR #34692 it holds, but only through the 300 s timeout   *)
(* (PromptTermination fails).                                              *)
(*                                                                         *)
(* AbortsAcked (decode's pages released by ABORT_ACK, not by its 30 s      *)
(* fallback) fails under PR #35360's deferred release (14 steps): one ACK  *)
(* target per room, clear() dropping a held target, an inactive room       *)
(* still counted never ACKed, the exception path's leaked count.           *)
(* fixed-35360-deferred repairs those four and holds it.                   *)
(*                                                                         *)
(* NoWriteAfterRelease holds only for fixed-deferred.  PR #35360's         *)
(* deferred release does not close the hazard: an ABORT of a room not yet  *)
(* present is ACKed at once, and a TransferInfo that arrives later still   *)
(* completes bootstrap and writes into the pages decode freed (11 steps).  *)
(*                                                                         *)
(* NoEntryAfterRelease fails wherever a write completes after its room was *)
(* cleared: the worker's update_status re-inserts the room (Success after  *)
(* the last chunk; Transferring after another, which the next chunk's      *)
(* failed assertion turns into a stale Failed).                            *)
(***************************************************************************)

=============================================================================
