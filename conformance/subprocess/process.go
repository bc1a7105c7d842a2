package subprocess

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/roomspec/roomspec/spec/model"
)

// Limits of what is kept from a child.
const (
	// MaxReplyLine is the longest reply line read: a longer one is a
	// protocol error, not a reason to hold it in memory.
	MaxReplyLine = 1 << 20
	// StderrKeep is how much of the end of the child's stderr is kept.
	StderrKeep = 64 << 10
)

// Default timeouts.
const (
	DefaultTimeout      = 5 * time.Second
	DefaultStartTimeout = 20 * time.Second
)

// Causes of a failure, for errors.Is. An *Error wraps exactly one.
var (
	// ErrTimeout: no reply within the timeout.
	ErrTimeout = errors.New("no reply")
	// ErrExited: the child closed its stdout (exited) before replying.
	ErrExited = errors.New("the process exited before replying")
	// ErrProtocol: the reply is not a response of the protocol.
	ErrProtocol = errors.New("reply out of protocol")
	// ErrLineTooLong: a reply line longer than MaxReplyLine.
	ErrLineTooLong = fmt.Errorf("reply line longer than %d bytes", MaxReplyLine)
)

// ErrRefused wraps an implementation's refusal of a step ({"ok":false}).
// It is no failure of the process, which stays usable.
var ErrRefused = errors.New("implementation refused the step")

// ErrNoIdle: the implementation runs no idle passes (its reply to reset
// did not offer them).
var ErrNoIdle = errors.New("implementation runs no idle passes")

// Options tune a Process. The zero value gives the defaults.
type Options struct {
	// Timeout bounds the wait for each reply. Default DefaultTimeout.
	Timeout time.Duration
	// StartTimeout bounds the wait for the first reply, which includes
	// the child's start-up (an interpreter importing its modules).
	// Default DefaultStartTimeout.
	StartTimeout time.Duration
	// Grace is how long Close waits for the child to exit after "quit"
	// before killing its process group. Default 2s.
	Grace time.Duration
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.Grace <= 0 {
		o.Grace = 2 * time.Second
	}
	return o
}

// Error is a failure of the child process: its cause (one of ErrTimeout,
// ErrExited, ErrProtocol, ErrLineTooLong, with detail), the request it
// failed on, its exit status and the end of its stderr.
type Error struct {
	Command string
	Request string // "reset", "apply ACTION", "observe", ...
	Err     error
	// Status is how the process ended ("exit status 3", "signal:
	// killed" when it was killed after the failure).
	Status string
	// Stderr is the end of what the process wrote to stderr.
	Stderr string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "exec %q: %s: %v", e.Command, e.Request, e.Err)
	if e.Status != "" {
		fmt.Fprintf(&b, " (%s)", e.Status)
	}
	if s := strings.TrimRight(printable(e.Stderr), "\n"); s != "" {
		fmt.Fprintf(&b, "; its stderr ends:\n%s", s)
	} else {
		b.WriteString("; its stderr is empty")
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// printable shows s with bytes that are not printable text as '.'.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || (unicode.IsPrint(r) && r != utf8.RuneError) {
			return r
		}
		return '.'
	}, s)
}

// Process is an implementation run as a child process. Its methods are
// safe for concurrent use (requests are serialized).
type Process struct {
	command string
	argv    []string // run without a shell where set (NewArgv)
	env     []string
	opt     Options

	mu      sync.Mutex
	ch      *child
	replied bool  // a reply came: later ones wait Timeout, not StartTimeout
	failed  error // sticky: the process is dead
	cfg     *model.Config
	idle    bool // the last reset's reply offered idle passes
}

// New returns the implementation run as `sh -c command`; the process
// starts at the first request.
func New(command string, opt Options) *Process {
	return &Process{command: command, opt: opt.withDefaults()}
}

// NewArgv returns the implementation run as argv, without a shell, with
// env as its environment (nil: roomspec's); command is argv joined, for
// messages.
func NewArgv(argv, env []string, opt Options) *Process {
	return &Process{command: strings.Join(argv, " "), argv: slices.Clone(argv), env: env, opt: opt.withDefaults()}
}

// Command returns the command the process runs.
func (p *Process) Command() string { return p.command }

// child is a running process: its pipes, its stderr and its end.
type child struct {
	cmd     *exec.Cmd
	tree    *tree
	conn    *conn
	stderr  *ring
	copied  chan struct{} // closed when all of stderr was copied
	errPipe *os.File
	done    chan struct{} // closed when the process was reaped
	waitErr error
}

// exitLinger is how long a reply is still awaited once the child has
// exited: its stdout may still be open in a process it started.
const exitLinger = 50 * time.Millisecond

func (p *Process) start() error {
	// Pipes of our own (rather than exec's) for all three streams: Wait
	// then returns when the child exits, whatever its background
	// processes hold open, and replies are read with deadlines.
	var pipes [6]*os.File // stdin r/w, stdout r/w, stderr r/w
	for i := 0; i < 6; i += 2 {
		r, w, err := os.Pipe()
		if err != nil {
			for _, f := range pipes[:i] {
				f.Close()
			}
			return err
		}
		pipes[i], pipes[i+1] = r, w
	}
	ch := &child{stderr: &ring{}, copied: make(chan struct{}), errPipe: pipes[4], done: make(chan struct{})}
	cmd := exec.Command("sh", "-c", p.command)
	env := os.Environ()
	if len(p.argv) > 0 {
		cmd = exec.Command(p.argv[0], p.argv[1:]...)
		if p.env != nil {
			env = p.env
		}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = pipes[0], pipes[3], pipes[5]
	token := newToken()
	cmd.SysProcAttr = sysProcAttr()
	// Every process of the child's tree carries its token (tree_linux.go).
	cmd.Env = append(slices.Clone(env), token.env())
	err := cmd.Start()
	pipes[0].Close()
	pipes[3].Close()
	pipes[5].Close()
	if err != nil {
		pipes[1].Close()
		pipes[2].Close()
		pipes[4].Close()
		return fmt.Errorf("exec %q: %w", p.command, err)
	}
	ch.cmd = cmd
	ch.tree = &tree{pgid: cmd.Process.Pid, pid: cmd.Process.Pid, token: token, reaped: ch.done}
	track(ch.tree)
	ch.conn = newConn(pipes[1], pipes[2])
	go func() {
		io.Copy(ch.stderr, ch.errPipe)
		close(ch.copied)
	}()
	go func() {
		ch.waitErr = cmd.Wait()
		close(ch.done)
		ch.conn.cut()
	}()
	p.ch = ch
	return nil
}

// exited reports whether the child has been reaped.
func (ch *child) exited() bool {
	select {
	case <-ch.done:
		return true
	default:
		return false
	}
}

// stop kills the child's tree (its process group, and on Linux every
// process it started, setsid or not) and waits for the child; it returns
// how the child ended, and the processes of its tree that could not be
// killed (checked after every run: none, unless the kernel refused).
func (ch *child) stop(grace time.Duration) (status string, left []int) {
	select {
	case <-ch.done:
	case <-time.After(grace):
	}
	// Kill the tree even when the child has exited: its background
	// processes may still run.
	left = ch.tree.kill()
	<-ch.done
	untrack(ch.tree)
	ch.conn.close()
	// The group is dead, so stderr ends, unless a process that left the
	// group holds it.
	select {
	case <-ch.copied:
	case <-time.After(time.Second):
	}
	ch.errPipe.Close()
	if ch.waitErr == nil {
		return "exit status 0", left
	}
	var ee *exec.ExitError
	if errors.As(ch.waitErr, &ee) {
		return ee.ProcessState.String(), left
	}
	return ch.waitErr.Error(), left
}

// outlived describes the processes of a child's tree still alive after
// it was killed.
func outlived(left []int) string {
	if len(left) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d processes it started outlived it (pids %v)", len(left), left)
}

// fail kills the child after it failed on request and returns the
// sticky error.
func (p *Process) fail(request string, cause error) error {
	e := &Error{Command: p.command, Request: request, Err: cause}
	if p.ch != nil {
		// A process that exited has said all it will: give it a moment
		// to be reaped; a hung one is killed at once.
		grace := time.Duration(0)
		if errors.Is(cause, ErrExited) {
			grace = p.opt.Grace
		}
		status, left := p.ch.stop(grace)
		e.Status = status + outlived(left)
		e.Stderr = p.ch.stderr.String()
		p.ch = nil
	}
	p.failed = e
	return e
}

// call sends one request and reads its reply.
func (p *Process) call(request string, req any) (*response, error) {
	if p.failed != nil {
		return nil, p.failed
	}
	if p.ch == nil {
		if err := p.start(); err != nil {
			p.failed = err
			return nil, err
		}
	}
	timeout := p.opt.Timeout
	if !p.replied {
		timeout = p.opt.StartTimeout
	}
	b, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	resp, err := p.ch.conn.roundTrip(b, timeout)
	if errors.Is(err, ErrTimeout) && p.ch.exited() {
		err = fmt.Errorf("%w (a process it started still holds its stdout)", ErrExited)
	}
	if err != nil {
		return nil, p.fail(request, err)
	}
	p.replied = true
	return resp, nil
}

// execConfig is the "config" of a reset request.
type execConfig struct {
	Rooms              []string      `json:"rooms"`
	DecodeRanks        []string      `json:"decode_ranks"`
	Requests           []execRequest `json:"requests"`
	RequiredDstInfoNum int           `json:"required_dst_info_num"`
	NumChunks          int           `json:"num_chunks"`
	// BootstrapTimeout is the configuration's BootstrapTimeoutSecs: the
	// implementation checks it against its code's own timeout.
	BootstrapTimeout int `json:"bootstrap_timeout"`
	// ClockBeforeTimeout is TickBeforeTimeout: Tick also stops the clock
	// one second before a timeout expires.
	ClockBeforeTimeout bool `json:"clock_before_timeout"`
}

type execRequest struct {
	Room        int `json:"room"`
	Incarnation int `json:"incarnation"`
}

// Reset starts the process if needed and sends a reset.
func (p *Process) Reset(c *model.Config) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cfg = c
	ec := execConfig{Rooms: c.Rooms.Names, DecodeRanks: c.DecodeRanks.Names,
		RequiredDstInfoNum: c.RequiredDstInfoNum, NumChunks: c.NumChunks, BootstrapTimeout: c.BootstrapTimeoutSecs,
		ClockBeforeTimeout: c.TickBeforeTimeout}
	for q := range c.Requests.Size() {
		ec.Requests = append(ec.Requests, execRequest{Room: c.Requests.Comp(q, 0), Incarnation: c.Requests.Comp(q, 1)})
	}
	resp, err := p.call("reset", map[string]any{"op": "reset", "config": ec})
	if err != nil {
		return err
	}
	if !resp.OK {
		return fmt.Errorf("exec %q: reset refused: %s", p.command, resp.Error)
	}
	p.idle = resp.Idle
	return nil
}

// Idle runs one pass of an action's code in a state where the spec takes
// no step with it (PROTOCOL.md, "idle"): SGLang's event loop polls its
// queues on every iteration, whether or not a request moves. It returns
// ErrNoIdle where the implementation did not offer idle passes in its
// reply to reset, and wraps ErrRefused where the pass was refused.
func (p *Process) Idle(a model.Action) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.idle {
		return ErrNoIdle
	}
	info := model.Actions[a.ID]
	resp, err := p.call("idle "+info.Name, map[string]any{"op": "idle", "action": info.Name, "params": a.Params[:len(info.Params)]})
	if err != nil {
		return err
	}
	if !resp.OK {
		return fmt.Errorf("%w: %s", ErrRefused, resp.Error)
	}
	return nil
}

// Apply sends one action.
func (p *Process) Apply(a model.Action) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	info := model.Actions[a.ID]
	resp, err := p.call("apply "+info.Name, map[string]any{"op": "apply", "action": info.Name, "params": a.Params[:len(info.Params)]})
	if err != nil {
		return err
	}
	if !resp.OK {
		return fmt.Errorf("%w: %s", ErrRefused, resp.Error)
	}
	return nil
}

// Observe asks for the state and reads it with the configuration's
// Config.ReadState; a state that does not fit the configuration is a
// reply out of protocol.
func (p *Process) Observe() (model.State, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cfg == nil {
		return model.State{}, errors.New("subprocess: observe before reset")
	}
	resp, err := p.call("observe", map[string]any{"op": "observe"})
	if err != nil {
		return model.State{}, err
	}
	if !resp.OK {
		return model.State{}, fmt.Errorf("exec %q: observe refused: %s", p.command, resp.Error)
	}
	// The spec's own reader of PROTOCOL.md's plain JSON (generated from
	// Room.tla's variables): no hand-kept mirror of the state to drift.
	s, err := p.cfg.ReadState(resp.State)
	if err != nil {
		return model.State{}, p.fail("observe", fmt.Errorf("%w: %v", ErrProtocol, err))
	}
	return s, nil
}

// Close asks the process to quit, waits for it (Options.Grace at most)
// and kills its process group. It returns an error if the process had to
// be killed or exited with a failure; not again one already returned.
func (p *Process) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ch == nil {
		return nil
	}
	ch := p.ch
	quitErr := error(nil)
	if b, err := json.Marshal(map[string]any{"op": "quit"}); err == nil {
		_, quitErr = ch.conn.roundTrip(b, p.opt.Grace)
	}
	ch.conn.close() // EOF on its stdin
	status, left := ch.stop(p.opt.Grace)
	p.ch = nil
	if status != "exit status 0" || len(left) > 0 {
		e := &Error{Command: p.command, Request: "quit", Err: quitErr, Status: status + outlived(left), Stderr: ch.stderr.String()}
		if quitErr == nil {
			e.Err = errors.New("the process did not end cleanly")
		}
		p.failed = e
		return e
	}
	return nil
}

// response is one reply.
type response struct {
	OK    bool
	Error string
	State json.RawMessage
	// Idle, in a reply to reset: the implementation runs idle passes.
	Idle bool
}

// conn is the protocol over a child's stdin and stdout: one request line
// out, one reply line back, within a deadline.
type conn struct {
	in, out *os.File
	rd      *bufio.Reader
	// short is set once the child has exited: replies are then awaited
	// exitLinger at most.
	short atomic.Bool
}

func newConn(in, out *os.File) *conn {
	return &conn{in: in, out: out, rd: bufio.NewReaderSize(out, MaxReplyLine)}
}

// cut shortens the wait for a reply, now and from now on, to exitLinger.
func (c *conn) cut() {
	c.short.Store(true)
	c.out.SetReadDeadline(time.Now().Add(exitLinger))
}

func (c *conn) close() {
	c.in.Close()
	c.out.Close()
}

// roundTrip writes req as one line and reads one reply line within
// timeout. Its errors wrap ErrTimeout, ErrExited, ErrProtocol or
// ErrLineTooLong.
func (c *conn) roundTrip(req []byte, timeout time.Duration) (*response, error) {
	deadline := time.Now().Add(timeout)
	if err := c.in.SetWriteDeadline(deadline); err != nil {
		return nil, err
	}
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil, fmt.Errorf("%w: the request was not read within %v", ErrTimeout, timeout)
		}
		return nil, fmt.Errorf("%w (writing the request: %v)", ErrExited, err)
	}
	if err := c.out.SetReadDeadline(deadline); err != nil {
		return nil, err
	}
	if c.short.Load() {
		c.out.SetReadDeadline(time.Now().Add(exitLinger))
	}
	line, err := c.rd.ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull):
		return nil, ErrLineTooLong
	case errors.Is(err, os.ErrDeadlineExceeded):
		if len(line) > 0 {
			return nil, fmt.Errorf("%w within %v (%d bytes of a reply line, no newline)", ErrTimeout, timeout, len(line))
		}
		return nil, fmt.Errorf("%w within %v", ErrTimeout, timeout)
	case errors.Is(err, io.EOF):
		if len(line) > 0 {
			return nil, fmt.Errorf("%w (after %d bytes of a reply line: %s)", ErrExited, len(line), quote(line))
		}
		return nil, ErrExited
	case err != nil:
		return nil, fmt.Errorf("%w (reading the reply: %v)", ErrExited, err)
	}
	return parseResponse(line)
}

// parseResponse decodes one reply line: a JSON object with a boolean "ok".
func parseResponse(line []byte) (*response, error) {
	var raw struct {
		OK    *bool           `json:"ok"`
		Error string          `json:"error"`
		State json.RawMessage `json:"state"`
		Idle  bool            `json:"idle"`
	}
	if err := json.Unmarshal(line, &raw); err != nil {
		return nil, fmt.Errorf("%w: %v: %s", ErrProtocol, err, quote(line))
	}
	if raw.OK == nil {
		return nil, fmt.Errorf(`%w: no boolean "ok": %s`, ErrProtocol, quote(line))
	}
	return &response{OK: *raw.OK, Error: raw.Error, State: raw.State, Idle: raw.Idle}, nil
}

// quote shows at most 200 bytes of a reply.
func quote(b []byte) string {
	b = []byte(strings.TrimRight(string(b), "\r\n"))
	if len(b) > 200 {
		return fmt.Sprintf("%q... (%d bytes)", b[:200], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// tree is the processes a child started: its process group and, on
// Linux, every process that carries its token (see tree_linux.go).
type tree struct {
	pgid, pid int
	token     token
	// reaped is closed once pid, the child, was waited for: from then
	// on its pid may be another process's, and is no root to walk from.
	reaped <-chan struct{}
}

// kill kills every process of the tree and returns those that outlived
// it.
func (t *tree) kill() []int {
	root := t.pid
	select {
	case <-t.reaped:
		root = 0
	default:
	}
	return killTree(t.pgid, root, t.token)
}

// token marks the processes of one child's tree: this process's pid and
// a number.
type token string

var tokens atomic.Int64

func newToken() token {
	adoptOrphans()
	return token(fmt.Sprintf("%d-%d", os.Getpid(), tokens.Add(1)))
}

// env is the environment variable that carries t.
func (t token) env() string { return tokenVar + "=" + string(t) }

// live holds the trees of the children started and not yet reaped.
var live = struct {
	sync.Mutex
	trees map[*tree]struct{}
}{trees: map[*tree]struct{}{}}

func track(t *tree) {
	live.Lock()
	live.trees[t] = struct{}{}
	live.Unlock()
}

func untrack(t *tree) {
	live.Lock()
	delete(live.trees, t)
	live.Unlock()
}

// KillAll kills the tree of every child this package started and has not
// reaped (see stop): what a program does on SIGINT or SIGTERM before it
// exits, so that no child, nor anything a child started, outlives it.
func KillAll() {
	live.Lock()
	defer live.Unlock()
	for t := range live.trees {
		t.kill()
	}
}

// killGroup sends SIGKILL to process group pgid.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
