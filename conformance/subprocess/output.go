package subprocess

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// MaxOutput is the most a one-shot command may write to stdout before
// Output stops it.
const MaxOutput = 64 << 20

// outputLinger is how long Output reads what a command's background
// processes write after it exited.
const outputLinger = 200 * time.Millisecond

// ErrOutputTooLong: a one-shot command wrote more than MaxOutput bytes.
var ErrOutputTooLong = fmt.Errorf("output longer than %d bytes", MaxOutput)

// OutputOptions tune Output.
type OutputOptions struct {
	// Timeout bounds the whole run. Default one minute.
	Timeout time.Duration
	// Dir is the working directory; Env, if set, the environment.
	Dir string
	Env []string
	// Stdout, if set, receives stdout instead of Output's result (for
	// outputs larger than MaxOutput, such as an archive).
	Stdout io.Writer
}

// Output runs argv (no shell) supervised as the protocol's children are:
// in its own process group, killed at the timeout, when ctx is done and
// when roomspec is stopped (KillAll); stdout bounded by MaxOutput, the
// end of stderr kept. A failure is an *Error naming the cause, the exit
// status and the end of stderr.
func Output(ctx context.Context, argv []string, opt OutputOptions) ([]byte, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = opt.Dir, opt.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	token := newToken()
	cmd.Env = append(cmd.Env, token.env())
	cmd.SysProcAttr = sysProcAttr()
	// A process it started may hold its stdout or stderr open after it
	// exits: stop waiting for them then (the tree is killed below).
	cmd.WaitDelay = outputLinger
	var out limitedBuffer
	var w io.Writer = &out
	if opt.Stdout != nil {
		w = opt.Stdout
	}
	stderr := &ring{}
	cmd.Stdout, cmd.Stderr = w, stderr
	name := strings.Join(argv, " ")
	fail := func(cause error, status string) error {
		return &Error{Command: name, Request: "run", Err: cause, Status: status, Stderr: stderr.String()}
	}
	if err := cmd.Start(); err != nil {
		return nil, fail(err, "")
	}
	reaped := make(chan struct{})
	t := &tree{pgid: cmd.Process.Pid, pid: cmd.Process.Pid, token: token, reaped: reaped}
	track(t)
	defer untrack(t)
	done := make(chan error, 1)
	go func() {
		err := cmd.Wait()
		close(reaped)
		done <- err
	}()
	select {
	case err := <-done:
		t.kill() // anything it left behind
		if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState.Success() {
			err = nil
		}
		if out.over {
			return nil, fail(ErrOutputTooLong, exitStatus(err))
		}
		if err != nil {
			return nil, fail(ErrExited, exitStatus(err))
		}
		return out.Bytes(), nil
	case <-ctx.Done():
		t.kill()
		err := <-done
		cause := ErrTimeout
		if errors.Is(ctx.Err(), context.Canceled) {
			cause = ctx.Err()
		}
		return nil, fail(fmt.Errorf("%w within %v", cause, opt.Timeout), exitStatus(err))
	}
}

func exitStatus(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return "signal: " + ws.Signal().String()
		}
		return ee.Error()
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// limitedBuffer keeps at most MaxOutput bytes and remembers that more came.
type limitedBuffer struct {
	bytes.Buffer
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.Len()+len(p) > MaxOutput {
		b.over = true
		return 0, ErrOutputTooLong
	}
	return b.Buffer.Write(p)
}
