-------------------------------- MODULE Room --------------------------------
(***************************************************************************)
(* The life of a KV-transfer "room" in SGLang's prefill/decode             *)
(* disaggregation, as seen by one prefill rank.                            *)
(*                                                                         *)
(* Source of truth: ROOM-LIFECYCLE.md (shared design folder), which        *)
(* describes SGLang at upstream a4ffb996 and the variants that shipped.    *)
(* Paths in comments are relative to python/sglang/srt/disaggregation/.    *)
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
(*  - A forward pass hands all NumChunks chunks of a request to            *)
(*    add_transfer_request in one step (chunked prefill's interleaving     *)
(*    with other threads is not modelled).  Chunks of one room are         *)
(*    processed in order by one worker (SGLang shards the worker queues    *)
(*    by room), so per request at most one chunk is "posted" at a time.    *)
(*  - A KV write is in progress from the moment the worker posts it        *)
(*    (WorkerPost) until its completion (WorkerComplete).                  *)
(*  - Decode releases a request's KV pages when it aborts, unless the      *)
(*    variant sends ABORT_ACK, in which case each decode rank releases     *)
(*    its pages when that rank receives the ACK (deferred release).        *)
(*  - Not modelled: registration messages, staging (WATERMARK,             *)
(*    STAGING_RSP), failure_records / req_to_decode_prefix_len (no         *)
(*    property reads them), decode's heartbeat thread, RDMA errors,        *)
(*    several prefill ranks (the MIN all-reduce across ranks).             *)
(*                                                                         *)
(* ASSUMPTIONS where ROOM-LIFECYCLE.md is silent (say so if wrong)         *)
(*  - A request that fails in the bootstrap queue is released WITHOUT      *)
(*    clear() (prefill.py pop_bootstrapped calls prepare_abort and drops   *)
(*    the request; it does not call sender.clear()); the in-flight poll    *)
(*    calls clear() on Success and on Failed (as ROOM-LIFECYCLE.md says).  *)
(*  - The bootstrap timeout writes Failed into request_status (so, with    *)
(*    room reuse, it is visible to the other incarnation too).             *)
(*  - A transfer worker that meets a queued chunk whose room has no        *)
(*    transfer_infos either skips it (WorkerSkipsMissing, the fork) or     *)
(*    fails its assertion; the exception handler then does                 *)
(*    update_status(Failed), a no-op for an absent room.                   *)
(*  - The worker reads request_status directly for its "Failed -> skip"    *)
(*    test (an absent room is not Failed).                                 *)
(*  - A KeyError from check_status (common/Mooncake index request_status   *)
(*    directly) escapes the scheduler's event loop and kills the prefill   *)
(*    process: a loud failure.  It is modelled by prefill_crashed, which   *)
(*    stops every prefill thread; a crashed prefill pins nothing (its      *)
(*    memory is gone with it), so Terminated counts it as terminated.      *)
(*  - Tombstones (fix only) are never removed in the model (a real fix     *)
(*    would expire them); that can only fail requests, never pin them.     *)
(*  - ABORT_ACK (Mooncake) is sent for every ABORT as soon as the          *)
(*    bootstrap thread handles it, whatever the room's state.              *)
(*                                                                         *)
(* ANNOTATIONS                                                             *)
(* Structured comments, read by roomspec's generator and trace matcher     *)
(* (TLC and SANY ignore them).  Grammar, one annotation per line, on the   *)
(* comment lines directly above an action's definition (no blank line      *)
(* between the annotation block and the definition):                       *)
(*                                                                         *)
(*   LINE    ::= "\*" SP "@" KEY ":" SP VALUE                              *)
(*   KEY     ::= "action" | "models" | "wire"                              *)
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
(*     FIELDS); "if C": the message exists only when the constant          *)
(*     expression C is TRUE.                                               *)
(*     FIELDS name the fields of the channel records: room (the room id,   *)
(*     frame "room" on the wire) and rank (the decode rank: on the wire,   *)
(*     the connection's decode ip and port, and TransferInfo's agent       *)
(*     name).  Other wire fields (page indices, aux index, ...) are not    *)
(*     modelled; required_dst_info_num is the constant RequiredDstInfoNum. *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Rooms,                  \* room ids (model values)
    DecodeRanks,            \* decode ranks bootstrapped with this prefill rank
    RequiredDstInfoNum,     \* TransferInfo count that completes bootstrap
    NumChunks,              \* KV chunks per request (>= 1)
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
    AbortAckSent,           \* prefill ACKs every ABORT; decode defers page
                            \*   release until the ACK (Mooncake)
    AckWaitsForWrites,      \* fix (deferred release): the ABORT, and so its
                            \*   ACK, waits until the room's writes complete
    RecordTombstones,       \* fix: ABORT of an absent room leaves a tombstone
    WorkerSkipsMissing,     \* fork 90a52f44a: worker skips chunks of rooms
                            \*   missing from transfer_infos (else asserts)
    RoomReuse,              \* a second incarnation reuses each room id
    TimeoutsFair            \* timeouts are weakly fair (FALSE: *-prompt cfgs)

VARIABLES
    \* ---- prefill, shared dicts (nixl/conn.py NixlKVManager) -------------
    request_status,   \* room -> KVPoll name, or "Absent" (no dict entry)
    transfer_infos,   \* room -> decode ranks whose TransferInfo is stored
    tombstones,       \* rooms with an ABORT recorded while absent (fix only)
    bootstrap_alive,  \* the bootstrap thread is running
    prefill_crashed,  \* the prefill process died on a KeyError
    \* ---- prefill, per request ------------------------------------------
    sender,           \* request -> which scheduler queue holds it
    queued,           \* request -> chunks in the transfer worker queue
    posted,           \* request -> a chunk's KV writes are in progress
    \* ---- wire ----------------------------------------------------------
    chan,             \* decode rank -> FIFO of messages to prefill
    ack_chan,         \* decode rank -> FIFO of ABORT_ACKs from prefill
    \* ---- decode (environment) ------------------------------------------
    ti_sent,          \* request -> decode ranks that sent TransferInfo
    aborted,          \* request -> decode aborted it (sent ABORT)
    pages_released    \* request -> decode ranks that freed its KV pages

vars == << request_status, transfer_infos, tombstones, bootstrap_alive,
           prefill_crashed, sender, queued, posted, chan, ack_chan,
           ti_sent, aborted, pages_released >>

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

\* check_status(room) as a live sender's poll sees it.  NIXL:
\* request_status.get(room, WaitingForInput), so an absent room reads as the
\* non-terminal WaitingForInput; common/Mooncake index directly: KeyError;
\* the fix reads an absent room of a live sender as Failed.
CheckStatus(cur) ==
    IF cur # "Absent" THEN cur
    ELSE IF AbsentLiveSenderFails THEN "Failed"
    ELSE IF AbsentReadsWaiting THEN "WaitingForInput"
    ELSE "KeyError"

\* The room of a request as the request's own poll sees it.
Poll(q) == CheckStatus(request_status[RoomOf(q)])

\* clear() (nixl/conn.py NixlKVSender.clear): the room leaves every dict.
ClearedStatus(r) == [request_status EXCEPT ![r] = "Absent"]
ClearedInfos(r) == [transfer_infos EXCEPT ![r] = {}]

-----------------------------------------------------------------------------
(* Type invariant: the generator derives Go types from it. *)

TypeOK ==
    /\ request_status \in [Rooms -> StatusOrAbsent]
    /\ transfer_infos \in [Rooms -> SUBSET DecodeRanks]
    /\ tombstones \in SUBSET Rooms
    /\ bootstrap_alive \in BOOLEAN
    /\ prefill_crashed \in BOOLEAN
    /\ sender \in [Requests -> SenderPositions]
    /\ queued \in [Requests -> 0..NumChunks]
    /\ posted \in [Requests -> BOOLEAN]
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
    /\ bootstrap_alive = TRUE
    /\ prefill_crashed = FALSE
    /\ sender = [q \in Requests |-> "NoSender"]
    /\ queued = [q \in Requests |-> 0]
    /\ posted = [q \in Requests |-> FALSE]
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
\* @models: prefill.py PrefillBootstrapQueue.add -> NixlKVSender.__init__
\* @models: common/conn.py:327 update_status(room, Bootstrapping)
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
    /\ UNCHANGED << transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, queued, posted, chan, ack_chan,
                    ti_sent, aborted, pages_released >>

\* Bootstrap-queue poll.  Bootstrapping: keep waiting (a stutter, not
\* modelled as a step).  Failed: the request is aborted and released
\* (no clear(), see ASSUMPTIONS).  Anything else (WaitingForInput, or a
\* higher status left by another incarnation): bootstrapped, to the
\* waiting queue.  KeyError: the prefill process dies.
\* @action: implementation scheduler
\* @models: prefill.py PrefillBootstrapQueue.pop_bootstrapped
\* @models: nixl/conn.py NixlKVSender.poll -> check_status
SchedulerPollBootstrap(q) ==
    /\ ~prefill_crashed
    /\ sender[q] = "BootstrapQueue"
    /\ Poll(q) # "Bootstrapping"
    /\ prefill_crashed' = (Poll(q) = "KeyError")
    /\ sender' = [sender EXCEPT ![q] =
                      CASE Poll(q) = "KeyError" -> @
                        [] Poll(q) = "Failed"   -> "Released"
                        [] OTHER                -> "WaitingQueue"]
    /\ UNCHANGED << request_status, transfer_infos, tombstones,
                    bootstrap_alive, queued, posted, chan, ack_chan,
                    ti_sent, aborted, pages_released >>

\* Forward pass done: send the KV chunks.  add_transfer_request returns
\* silently, enqueuing nothing, when the room has no transfer_infos
\* (PR #32025); the request goes to the in-flight queue either way.
\* @action: implementation scheduler
\* @models: prefill.py process_batch_result_disagg_prefill -> send_kv_chunk
\* @models: nixl/conn.py NixlKVSender.send -> add_transfer_request
SchedulerSend(q) ==
    /\ ~prefill_crashed
    /\ sender[q] = "WaitingQueue"
    /\ sender' = [sender EXCEPT ![q] = "InflightQueue"]
    /\ queued' = [queued EXCEPT ![q] =
                      IF transfer_infos[RoomOf(q)] # {} THEN NumChunks ELSE 0]
    /\ UNCHANGED << request_status, transfer_infos, tombstones,
                    bootstrap_alive, prefill_crashed, posted, chan,
                    ack_chan, ti_sent, aborted, pages_released >>

\* In-flight poll.  WaitingForInput/Transferring: keep, with no timeout (a
\* stutter).  Success/Failed: release the request and clear() the room
\* from every dict.  KeyError: the prefill process dies.
\* @action: implementation scheduler
\* @models: prefill.py process_disagg_prefill_inflight_queue
\* @models: nixl/conn.py NixlKVSender.poll, NixlKVSender.clear
SchedulerPollInFlight(q) ==
    /\ ~prefill_crashed
    /\ sender[q] = "InflightQueue"
    /\ Poll(q) \in {"Success", "Failed", "KeyError"}
    /\ prefill_crashed' = (Poll(q) = "KeyError")
    /\ sender' = [sender EXCEPT ![q] =
                      IF Poll(q) = "KeyError" THEN @ ELSE "Released"]
    /\ request_status' = IF Poll(q) = "KeyError" THEN request_status
                         ELSE ClearedStatus(RoomOf(q))
    /\ transfer_infos' = IF Poll(q) = "KeyError" THEN transfer_infos
                         ELSE ClearedInfos(RoomOf(q))
    /\ UNCHANGED << tombstones, bootstrap_alive, queued, posted, chan,
                    ack_chan, ti_sent, aborted, pages_released >>

-----------------------------------------------------------------------------
(* Prefill bootstrap thread: reads one message off a decode rank's channel *)

\* TransferInfo from decode rank d: store it; when RequiredDstInfoNum ranks
\* have sent one, update_status(WaitingForInput) -- which inserts the room
\* even if no sender exists yet.  Fix: a tombstoned room ignores it.
\* @action: implementation bootstrap
\* @models: nixl/conn.py NixlKVManager.bootstrap_thread, TransferInfo branch
\* @wire: recv TransferInfo(room: Head(chan[d]).room, rank: d) decode->prefill
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
    /\ UNCHANGED << tombstones, bootstrap_alive, prefill_crashed, sender,
                    queued, posted, ack_chan, ti_sent, aborted,
                    pages_released >>

\* ABORT from decode rank d.  Before PR #30352 the message (which has no
\* guard frame) trips an assert and kills the bootstrap thread.  Otherwise:
\* a present room (not Success, where AbortSparesSuccess) becomes Failed;
\* an absent room is only logged (upstream) or tombstoned (fix); the fork
\* pops transfer_infos unconditionally; Mooncake ACKs every ABORT.  With
\* AckWaitsForWrites (deferred release done right) the thread handles the
\* ABORT only once no KV write of the room is in progress, so the ACK
\* never lets decode free pages under a write.  (That is a wait, so with
\* NumChunks > 1 weak fairness may not suffice for this action.)
\* @action: implementation bootstrap
\* @models: nixl/conn.py:2647 NixlKVManager.bootstrap_thread, ABORT branch
\* @models: mooncake/conn.py bootstrap_thread ABORT branch (ABORT_ACK)
\* @wire: recv ABORT(room: Head(chan[d]).room, rank: d) decode->prefill
\* @wire: send ABORT_ACK(room: Head(chan[d]).room, rank: d) prefill->decode if AbortAckSent /\ ~AbortKillsBootstrap
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
                            ack_chan >>
       ELSE LET r   == Head(chan[d]).room
                cur == request_status[r]
            IN  /\ bootstrap_alive' = bootstrap_alive
                /\ request_status' =
                       IF /\ cur # "Absent"
                          /\ ~(AbortSparesSuccess /\ cur = "Success")
                       THEN [request_status EXCEPT
                                 ![r] = UpdateStatus(@, "Failed")]
                       ELSE request_status
                /\ transfer_infos' = IF AbortPopsTransferInfos
                                     THEN ClearedInfos(r)
                                     ELSE transfer_infos
                /\ tombstones' = IF RecordTombstones /\ cur = "Absent"
                                 THEN tombstones \cup {r}
                                 ELSE tombstones
                /\ ack_chan' = IF AbortAckSent
                               THEN [ack_chan EXCEPT ![d] = Append(@,
                                        [type |-> "ABORT_ACK", room |-> r,
                                         rank |-> d])]
                               ELSE ack_chan
    /\ UNCHANGED << prefill_crashed, sender, queued, posted, ti_sent,
                    aborted, pages_released >>

-----------------------------------------------------------------------------
(* Prefill transfer workers *)

\* Dequeue one chunk of q.  Failed room: skip the chunk.  Room missing
\* from transfer_infos: skip (fork) or assert -> exception ->
\* update_status(Failed) (a no-op for an absent room).  Otherwise mark the
\* room Transferring and post the RDMA writes into decode's pages.
\* @action: implementation worker
\* @models: nixl/conn.py NixlKVManager.transfer_worker (dequeue, post writes)
WorkerPost(q) ==
    /\ ~prefill_crashed
    /\ queued[q] > 0
    /\ ~posted[q]
    /\ queued' = [queued EXCEPT ![q] = @ - 1]
    /\ LET r == RoomOf(q) IN
       IF request_status[r] = "Failed"
       THEN UNCHANGED << request_status, posted >>
       ELSE IF transfer_infos[r] = {}
       THEN /\ posted' = posted
            /\ request_status' =
                   IF WorkerSkipsMissing THEN request_status
                   ELSE [request_status EXCEPT ![r] = UpdateStatus(@, "Failed")]
       ELSE /\ posted' = [posted EXCEPT ![q] = TRUE]
            /\ request_status' =
                   [request_status EXCEPT
                        ![r] = UpdateStatus(@, "Transferring")]
    /\ UNCHANGED << transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, chan, ack_chan, ti_sent,
                    aborted, pages_released >>

\* The posted writes complete.  After the last chunk: Success, and the
\* room's transfer_infos are popped (the room concluded).
\* @action: implementation worker
\* @models: nixl/conn.py NixlKVManager.transfer_worker (wait, last chunk)
WorkerComplete(q) ==
    /\ ~prefill_crashed
    /\ posted[q]
    /\ posted' = [posted EXCEPT ![q] = FALSE]
    /\ IF queued[q] = 0
       THEN /\ request_status' =
                   [request_status EXCEPT
                        ![RoomOf(q)] = UpdateStatus(@, "Success")]
            /\ transfer_infos' = ClearedInfos(RoomOf(q))
       ELSE UNCHANGED << request_status, transfer_infos >>
    /\ UNCHANGED << tombstones, bootstrap_alive, prefill_crashed, sender,
                    queued, chan, ack_chan, ti_sent, aborted,
                    pages_released >>

-----------------------------------------------------------------------------
(* Prefill timeouts *)

\* Bootstrap timeout (300 s, NIXL since PR #34692, and Mooncake): marks the
\* room Failed, only while its status is Bootstrapping.  There is no
\* timeout for WaitingForInput or Transferring.
\* @action: implementation timeout
\* @models: nixl/conn.py NixlKVSender.poll bootstrap timeout (PR #34692)
BootstrapTimeout(q) ==
    /\ HasBootstrapTimeout
    /\ ~prefill_crashed
    /\ sender[q] = "BootstrapQueue"
    /\ request_status[RoomOf(q)] = "Bootstrapping"
    /\ request_status' =
           [request_status EXCEPT ![RoomOf(q)] = UpdateStatus(@, "Failed")]
    /\ UNCHANGED << transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, queued, posted, chan,
                    ack_chan, ti_sent, aborted, pages_released >>

-----------------------------------------------------------------------------
(* Decode: the environment *)

\* Decode rank d has pre-allocated q's KV pages and tells prefill where to
\* write them.  Never after decode aborted q.
\* @action: environment decode
\* @models: nixl/conn.py NixlKVReceiver.init (sends TransferInfo)
\* @wire: send TransferInfo(room: RoomOf(q), rank: d) decode->prefill
DecodeSendTransferInfo(d, q) ==
    /\ Started(q)
    /\ ~aborted[q]
    /\ d \notin ti_sent[q]
    /\ ti_sent' = [ti_sent EXCEPT ![q] = @ \cup {d}]
    /\ chan' = [chan EXCEPT ![d] = Append(@, [type |-> "TransferInfo",
                                              room |-> RoomOf(q), rank |-> d])]
    /\ UNCHANGED << request_status, transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, queued, posted,
                    ack_chan, aborted, pages_released >>

\* Decode aborts q (client abort, or its 300 s waiting timeout), once: every
\* decode rank sends ABORT to this prefill rank, and never resends.  Without
\* ABORT_ACK decode frees q's KV pages at once.
\* @action: environment decode
\* @models: nixl/conn.py NixlKVReceiver.abort (client abort, waiting timeout)
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
    /\ UNCHANGED << request_status, transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, queued, posted,
                    ack_chan, ti_sent >>

\* Decode rank d receives an ABORT_ACK for a room and frees the pages of
\* its aborted requests with that room id.
\* @action: environment decode
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
    /\ UNCHANGED << request_status, transfer_infos, tombstones, bootstrap_alive,
                    prefill_crashed, sender, queued, posted,
                    chan, ti_sent, aborted >>

-----------------------------------------------------------------------------
Next ==
    \/ \E q \in Requests : SchedulerCreateSender(q)
    \/ \E q \in Requests : SchedulerPollBootstrap(q)
    \/ \E q \in Requests : SchedulerSend(q)
    \/ \E q \in Requests : SchedulerPollInFlight(q)
    \/ \E d \in DecodeRanks : BootstrapRecvTransferInfo(d)
    \/ \E d \in DecodeRanks : BootstrapRecvAbort(d)
    \/ \E q \in Requests : WorkerPost(q)
    \/ \E q \in Requests : WorkerComplete(q)
    \/ \E q \in Requests : BootstrapTimeout(q)
    \/ \E d \in DecodeRanks, q \in Requests : DecodeSendTransferInfo(d, q)
    \/ \E q \in Requests : DecodeAbort(q)
    \/ \E d \in DecodeRanks : DecodeRecvAbortAck(d)

\* Timeouts are fair only when TimeoutsFair (quantifying over the empty set
\* makes the conjunct TRUE otherwise).
TimeoutFairRequests == IF TimeoutsFair THEN Requests ELSE {}

\* Weak fairness of every prefill thread step; the environment (decode) is
\* never assumed to act.
Fairness ==
    /\ \A q \in Requests : WF_vars(SchedulerCreateSender(q))
    /\ \A q \in Requests : WF_vars(SchedulerPollBootstrap(q))
    /\ \A q \in Requests : WF_vars(SchedulerSend(q))
    /\ \A q \in Requests : WF_vars(SchedulerPollInFlight(q))
    /\ \A d \in DecodeRanks : WF_vars(BootstrapRecvTransferInfo(d))
    /\ \A d \in DecodeRanks : WF_vars(BootstrapRecvAbort(d))
    /\ \A q \in Requests : WF_vars(WorkerPost(q))
    /\ \A q \in Requests : WF_vars(WorkerComplete(q))
    /\ \A q \in TimeoutFairRequests : WF_vars(BootstrapTimeout(q))

Spec == Init /\ [][Next]_vars /\ Fairness

-----------------------------------------------------------------------------
(* Properties *)

\* Prefill has let go of q: released by the scheduler, or the whole prefill
\* process died loudly (KeyError).
Terminated(q) == sender[q] = "Released" \/ prefill_crashed

\* THE property: every aborted request eventually terminates.
AbortedRoomsTerminate == \A q \in Requests : aborted[q] ~> Terminated(q)

\* The same formula, checked with TimeoutsFair = FALSE (cfgs *-prompt): a
\* timeout may never fire, so an aborted request must terminate without
\* relying on one.
PromptTermination == \A q \in Requests : aborted[q] ~> Terminated(q)

\* The corruption hazard: prefill's KV writes for q are in progress while
\* a decode rank has already freed q's pages (they may hold another
\* request's KV by now).
NoWriteAfterRelease ==
    \A q \in Requests : posted[q] => pages_released[q] = {}

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

(***************************************************************************)
(* VERDICTS (spec/check, each property on its own; see spec/README.md for  *)
(* the table with state counts and counterexample lengths)                 *)
(*                                                                         *)
(* AbortedRoomsTerminate is violated by fork-90a52f44a, pre-30352,         *)
(* upstream-reuse and fixed-reuse, and holds for upstream, mooncake,       *)
(* fixed and fixed-deferred.  Where this differs from what the issue       *)
(* expected, the reason:                                                   *)
(*  - fork-90a52f44a: the seed race (TransferInfo(A), ABORT(A),            *)
(*    TransferInfo(B), ABORT(B), all before the sender exists) pins the    *)
(*    room, but the shortest pin is simpler: decode aborts before any      *)
(*    TransferInfo, both ABORTs find the room absent, the sender then      *)
(*    sits in Bootstrapping.  It needs only the missing timeout; the pop   *)
(*    of transfer_infos is what the seed race needs (without it,           *)
(*    TransferInfo(B) completes bootstrap and ABORT(B) fails the room).    *)
(*  - fixed: liveness, PromptTermination and NoWriteAfterAbortReceived     *)
(*    hold, but NoWriteAfterRelease does not: without deferred release     *)
(*    decode frees its pages as it sends ABORT, while prefill's write may  *)
(*    already be in flight.  No prefill-side fix closes that race;         *)
(*    fixed-deferred (ACK once the room's writes completed, decode frees   *)
(*    pages on the ACK) holds every property.                              *)
(*  - mooncake: the ACK does not protect decode's pages: an ABORT of an    *)
(*    absent room is ACKed at once, and a later TransferInfo still         *)
(*    completes bootstrap.                                                 *)
(*  - fixed-reuse: the fix does not make room reuse safe: after the other  *)
(*    incarnation's clear(), add_transfer_request skips silently and the   *)
(*    room, re-inserted by TransferInfo, reads WaitingForInput forever.    *)
(*  - The KeyError crash (AbsentReadsWaiting = FALSE) is unreachable       *)
(*    without room reuse: a live sender's room is only removed by its own  *)
(*    clear().                                                             *)
(***************************************************************************)

=============================================================================
