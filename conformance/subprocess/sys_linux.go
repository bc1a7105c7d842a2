package subprocess

import "syscall"

// sysProcAttr puts the child in its own process group, and has the kernel
// kill it if roomspec dies without closing it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
