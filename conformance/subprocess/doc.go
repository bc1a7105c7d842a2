// Package subprocess runs an implementation of the room lifecycle as a
// child process that speaks the JSON-lines protocol of
// conformance/PROTOCOL.md, and supervises it: the client of
// `roomspec test -impl exec:COMMAND`.
//
// A *Process satisfies conformance.Implementation. The child runs as
// `sh -c COMMAND` in its own process group, which is killed when the
// Process is closed, when the child fails, and (through KillAll, which
// roomspec calls on SIGINT and SIGTERM) when roomspec is stopped; so a
// child that leaves background processes behind leaves none. Every reply
// is awaited at most Options.Timeout (the first one, while the child
// starts, Options.StartTimeout) and read as one line of at most
// MaxReplyLine bytes. The last StderrKeep bytes of the child's stderr are
// kept and shown, with its exit status, in the error of any failure: a
// timeout, an exit, or a reply out of protocol. After a failure the
// process is dead and every later request returns the same error.
package subprocess
