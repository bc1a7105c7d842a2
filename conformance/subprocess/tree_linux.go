package subprocess

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// On Linux a child's whole tree is killed, not only its process group: a
// descendant that calls setsid (a daemon, "setsid sleep", a Python
// os.setsid) leaves the group but cannot leave the tree. roomspec makes
// itself the subreaper of its descendants (PR_SET_CHILD_SUBREAPER), so an
// orphaned descendant is reparented to it rather than to init, and every
// process of a child's tree carries the child's token in its environment
// (ROOMSPEC_SUBPROCESS): stop kills the group, then every process that
// has the token or descends from the child, until none is left, and reaps
// the orphans it adopted.

// tokenVar is the environment variable that marks a child's tree.
const tokenVar = "ROOMSPEC_SUBPROCESS"

var subreaper sync.Once

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2).
const prSetChildSubreaper = 36

// adoptOrphans makes this process the subreaper of its descendants.
func adoptOrphans() {
	subreaper.Do(func() {
		syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	})
}

// proc is what killTree reads of one process in /proc.
type proc struct {
	pid, ppid int
	zombie    bool
}

// procs lists the processes of the system.
func procs() []proc {
	d, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	out := make([]proc, 0, len(names))
	for _, n := range names {
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		out = append(out, proc{pid: pid, ppid: ppid, zombie: string(f[0]) == "Z"})
	}
	return out
}

// hasToken reports whether process pid's environment holds token.
func hasToken(pid int, token token) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return false
	}
	want := []byte(token.env())
	for _, kv := range bytes.Split(b, []byte{0}) {
		if bytes.Equal(kv, want) {
			return true
		}
	}
	return false
}

// members returns the live processes of a child's tree: those that carry
// token, and the descendants of root (the child, while it lives).
func members(root int, token token) []proc {
	all := procs()
	kids := map[int][]int{}
	byPid := map[int]proc{}
	for _, p := range all {
		kids[p.ppid] = append(kids[p.ppid], p.pid)
		byPid[p.pid] = p
	}
	in := map[int]bool{}
	var walk func(int)
	walk = func(pid int) {
		for _, k := range kids[pid] {
			if !in[k] {
				in[k] = true
				walk(k)
			}
		}
	}
	if root > 0 {
		walk(root)
	}
	self := os.Getpid()
	var out []proc
	for _, p := range all {
		if p.zombie || p.pid == self {
			continue
		}
		if in[p.pid] || hasToken(p.pid, token) {
			out = append(out, p)
		}
	}
	return out
}

// killTree kills the child's process group and every process of its tree
// (see members), again until none is left, reaps the orphans of the tree
// this process adopted, and returns the pids still alive after that:
// none, unless the kernel could not kill them.
func killTree(pgid, root int, token token) []int {
	killGroup(pgid)
	killed := map[int]bool{}
	for range 50 {
		ps := members(root, token)
		if len(ps) == 0 {
			break
		}
		for _, p := range ps {
			syscall.Kill(p.pid, syscall.SIGKILL)
			killed[p.pid] = true
		}
		time.Sleep(5 * time.Millisecond)
		reap(killed, root)
	}
	// A process killed last may not have ended yet (a loaded machine), or
	// may still be the child of another killed process: wait, up to a
	// second, until none of the killed is left for this process to reap.
	for range 200 {
		if !reap(killed, root) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	var left []int
	for _, p := range members(root, token) {
		left = append(left, p.pid)
	}
	return left
}

// reap waits for the processes of killed that this process adopted and
// that have ended; never for root, the child, whose exec.Cmd waits for
// it, nor for any process not of the tree. It reports whether one of the
// killed is still to be reaped: alive, or the child of a killed process
// (this process adopts it when its parent ends).
func reap(killed map[int]bool, root int) (pending bool) {
	self := os.Getpid()
	for _, p := range procs() {
		if !killed[p.pid] || p.pid == root {
			continue
		}
		switch {
		case p.zombie && p.ppid == self:
			var ws syscall.WaitStatus
			syscall.Wait4(p.pid, &ws, syscall.WNOHANG, nil)
		case p.ppid == self || killed[p.ppid]:
			pending = true
		}
	}
	return pending
}
