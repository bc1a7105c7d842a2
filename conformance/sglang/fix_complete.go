package sglang

// fixComplete is Room.tla's fixed-complete configuration as edits of
// SGLang's NIXL backend at adca19c49709 (PR #35360): the code then
// refines fixed-complete, in which every property of the spec holds
// (README, "A fix proven on the real code"). Each edit names the switch
// of Room.tla it gives the code.
var fixComplete = &Fix{
	Name:    "complete",
	Variant: "fixed-complete",
	Commit:  "adca19c49709",
	What: "Prefill remembers the rooms it let go: an ABORT of a room it does not know, and a failure " +
		"that clears a room, leave a tombstone, and the room's late TransferInfos and ABORTs (and a " +
		"sender created for it) are then dropped or failed instead of re-inserting a room no " +
		"request will clear. A live sender whose room is gone reads Failed, not WaitingForInput. " +
		"Decode frees its pages only on prefill's ABORT_ACK (the deferred release, on by default), " +
		"and prefill handles an ABORT, and ACKs it, only once no KV write of the room is in flight.",
	Edits: []Edit{
		{File: "environ.py", Line: 628,
			Why:    "AbortAckSent: decode frees a rank's pages on that rank's ABORT_ACK (the deferred release on by default)",
			Anchor: []string{"    SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE = EnvBool(False)"},
			Where:  Replace,
			Lines:  []string{"    SGLANG_DISAGGREGATION_DEFERRED_DECODE_KV_RELEASE = EnvBool(True)"}},
		{File: "disaggregation/nixl/conn.py", Line: 489,
			Why:    "the manager's tombstones (RecordTombstones, FailureTombstones) and the rooms with KV writes in flight (AckWaitsForWrites)",
			Anchor: []string{"            self._staging_outstanding = defaultdict(int)"},
			Where:  After,
			Lines: []string{
				"            # roomspec fix: rooms let go (an ABORT of an unknown room, a failure",
				"            # that cleared it), whose late messages are dropped; and per room,",
				"            # the chunks whose KV writes are in flight.",
				"            self._roomspec_tombstones = set()",
				"            self._roomspec_writing = defaultdict(int)",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 1131,
			Why:    "AckWaitsForWrites: a worker chunk starts with no write in flight",
			Anchor: []string{"            handles: List[Any] = []", "            try:"},
			Where:  Before,
			Lines:  []string{"            writing = False"}},
		{File: "disaggregation/nixl/conn.py", Line: 1348,
			Why:    "AckWaitsForWrites: the chunk's writes are in flight while the worker waits on them",
			Anchor: []string{"                while handles:", "                    all_done = True"},
			Where:  Before,
			Lines: []string{
				"                self._roomspec_writing[room] += 1",
				"                writing = True",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 1362,
			Why:    "AckWaitsForWrites: the writes completed",
			Anchor: []string{"                self._staging_outstanding[room] -= 1"},
			Where:  Before,
			Lines: []string{
				"                self._roomspec_writing[room] -= 1",
				"                writing = False",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 1403,
			Why:    "AckWaitsForWrites: a chunk that failed has no write in flight any more",
			Anchor: []string{"                self.exceptions[room] = e", "                self.record_failure(room, str(e))"},
			Where:  Before,
			Lines: []string{
				"                if writing:",
				"                    self._roomspec_writing[room] -= 1",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 2659,
			Why: "AckWaitsForWrites: the ABORT is handled once no write of its room is in flight; " +
				"RecordTombstones: an ABORT of a room prefill does not know leaves a tombstone",
			Anchor: []string{"        room_active = ("},
			Where:  Before,
			Lines: []string{
				"        # roomspec fix: decode frees its pages on the ACK, so the ABORT (and",
				"        # its ACK) waits until no KV write of the room is in flight.",
				"        while self._roomspec_writing.get(room_to_be_aborted, 0) > 0:",
				"            time.sleep(0.001)",
				"        if room_to_be_aborted not in self.request_status:",
				"            self._roomspec_tombstones.add(room_to_be_aborted)",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 2685,
			Why: "AbortAckSent without AckOnDrain: every ABORT is ACKed as it is handled (its room's writes are done)",
			Anchor: []string{
				"            if room_active:",
				"                self.register_deferred_ack_target(",
				"                    room_to_be_aborted, decode_ip, decode_port",
				"                )",
				"                self._maybe_ack_drained_abort(room_to_be_aborted)",
				"            elif self._staging_outstanding.get(room_to_be_aborted, 0) == 0:",
				"                self._send_abort_ack(decode_ip, decode_port, room_to_be_aborted)",
			},
			Where: Replace,
			Lines: []string{"            self._send_abort_ack(decode_ip, decode_port, room_to_be_aborted)"}},
		{File: "disaggregation/nixl/conn.py", Line: 2741,
			Why:    "RecordTombstones: a TransferInfo of a tombstoned room is dropped",
			Anchor: []string{"                room = int(room)", "                if room not in self.transfer_infos:"},
			Where:  Replace,
			Lines: []string{
				"                room = int(room)",
				"                if room in self._roomspec_tombstones:",
				"                    continue",
				"                if room not in self.transfer_infos:",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 2785,
			Why:    "RecordTombstones: a sender created for a tombstoned room reads Failed at once",
			Anchor: []string{"        self.init_time = time.time()", "        self.has_sent = False"},
			Where:  Before,
			Lines: []string{
				"        if bootstrap_room in mgr._roomspec_tombstones:",
				"            mgr.request_status[bootstrap_room] = KVPoll.Failed",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 2829,
			Why:    "AbsentLiveSenderFails: a live sender whose room is gone reads Failed",
			Anchor: []string{"            return KVPoll.Failed  # type: ignore", "        status = self.kv_mgr.check_status(self.bootstrap_room)"},
			Where:  After,
			Lines: []string{
				"        if self.bootstrap_room not in self.kv_mgr.request_status:",
				"            return KVPoll.Failed  # type: ignore",
			}},
		{File: "disaggregation/nixl/conn.py", Line: 2869,
			Why:    "FailureTombstones: a failure that clears its room leaves a tombstone",
			Anchor: []string{"        self._send_failed = True", "", "        self.clear()"},
			Where:  After,
			Lines:  []string{"        self.kv_mgr._roomspec_tombstones.add(self.bootstrap_room)"}},
	},
}
