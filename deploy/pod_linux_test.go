package deploy

// Running a pod's containers on this machine as a kubelet would, as far
// as the kernel allows without a container runtime: the pod's network is
// a network namespace of its own (hostNetwork: the node's, here a fresh
// one with only loopback, so that other work on the machine is not
// captured); each container gets a root filesystem of its own (a tmpfs
// holding the host's /usr and /etc read-only, the image's own files, and
// the pod's volumes at their mount paths; read-only when the manifest
// says readOnlyRootFilesystem), and runs its image's ENTRYPOINT with the
// manifest's command and args under its securityContext through setpriv
// (user and group, the capability set containerd gives, no_new_privs).
//
// The test binary is its own helper: run with $ROOMSPEC_POD_HELPER set to
// a JSON helperSpec, it enters the namespaces, builds the root, chroots
// and execs; nothing of Go runs after that.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
	corev1 "k8s.io/api/core/v1"
)

const helperEnv = "ROOMSPEC_POD_HELPER"

func TestMain(m *testing.M) {
	if spec := os.Getenv(helperEnv); spec != "" {
		os.Exit(runHelper(spec))
	}
	os.Exit(m.Run())
}

// helperSpec is what the helper process does.
type helperSpec struct {
	// Node: bring loopback up in this (new) network namespace, then wait
	// for standard input to close.
	Node bool
	// NetNS is the network namespace to enter (/proc/PID/ns/net).
	NetNS string
	// Root, if set, is the container's root filesystem, chrooted into.
	Root *rootSpec
	Argv []string
	Env  []string
}

// rootSpec is a container's root filesystem.
type rootSpec struct {
	// Dir is an empty directory to build it on.
	Dir      string
	ReadOnly bool
	// Files are the image's own files: path in the container -> the host
	// file bound there (read-only).
	Files   map[string]string
	Volumes []volume
}

type volume struct {
	Host, Path string
	ReadOnly   bool
}

func runHelper(specJSON string) int {
	var spec helperSpec
	if err := json.Unmarshal([]byte(specJSON), &spec); err != nil {
		fmt.Fprintf(os.Stderr, "pod helper: %v\n", err)
		return 125
	}
	if err := spec.run(); err != nil {
		fmt.Fprintf(os.Stderr, "pod helper: %v\n", err)
		return 125
	}
	return 0
}

func (s *helperSpec) run() error {
	// Namespaces and credentials belong to a thread until exec.
	runtime.LockOSThread()
	if s.Node {
		if err := loopbackUp(); err != nil {
			return err
		}
		buf := make([]byte, 1)
		for {
			if _, err := os.Stdin.Read(buf); err != nil {
				return nil
			}
		}
	}
	if s.NetNS != "" {
		f, err := os.Open(s.NetNS)
		if err != nil {
			return err
		}
		if err := unix.Setns(int(f.Fd()), unix.CLONE_NEWNET); err != nil {
			return fmt.Errorf("setns %s: %w", s.NetNS, err)
		}
		f.Close()
	}
	if s.Root != nil {
		if err := s.Root.build(); err != nil {
			return err
		}
		if err := unix.Chroot(s.Root.Dir); err != nil {
			return fmt.Errorf("chroot: %w", err)
		}
		if err := os.Chdir("/"); err != nil {
			return err
		}
	}
	path := s.Argv[0]
	if !strings.Contains(path, "/") {
		p, err := exec.LookPath(path)
		if err != nil {
			return err
		}
		path = p
	}
	return fmt.Errorf("exec %s: %w", path, unix.Exec(path, s.Argv, s.Env))
}

// loopbackUp sets lo up in the process's network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// build mounts the root filesystem on r.Dir (in the helper's own mount
// namespace, which dies with it).
func (r *rootSpec) build() error {
	mount := func(src, dst, fstype string, flags uintptr, data string) error {
		if err := unix.Mount(src, dst, fstype, flags, data); err != nil {
			return fmt.Errorf("mount %s on %s: %w", src, dst, err)
		}
		return nil
	}
	bind := func(src, dst string, ro bool) error {
		if err := mount(src, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return err
		}
		if ro {
			return mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY, "")
		}
		return nil
	}
	in := func(p string) string { return filepath.Join(r.Dir, p) }
	if err := mount("tmpfs", r.Dir, "tmpfs", 0, "mode=0755"); err != nil {
		return err
	}
	// The host's programs and libraries (Debian's, as the images' bases
	// are), read-only; /usr/local stays the image's own.
	for _, d := range []string{"/usr/bin", "/usr/sbin", "/usr/lib", "/usr/lib64", "/usr/libexec", "/usr/share", "/etc"} {
		if _, err := os.Stat(d); err != nil {
			continue
		}
		if err := os.MkdirAll(in(d), 0o755); err != nil {
			return err
		}
		if err := bind(d, in(d), true); err != nil {
			return err
		}
	}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib64"} {
		if target, err := os.Readlink(d); err == nil {
			if err := os.Symlink(target, in(d)); err != nil {
				return err
			}
		} else if _, err := os.Stat(d); err == nil {
			if err := os.MkdirAll(in(d), 0o755); err != nil {
				return err
			}
			if err := bind(d, in(d), true); err != nil {
				return err
			}
		}
	}
	for _, d := range []string{"/proc", "/dev", "/sys"} {
		if err := os.MkdirAll(in(d), 0o755); err != nil {
			return err
		}
		if err := bind(d, in(d), d == "/sys"); err != nil {
			return err
		}
	}
	for p, host := range r.Files {
		if err := os.MkdirAll(filepath.Dir(in(p)), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(in(p), nil, 0o755); err != nil {
			return err
		}
		if err := bind(host, in(p), true); err != nil {
			return err
		}
	}
	for _, v := range r.Volumes {
		if err := os.MkdirAll(in(v.Path), 0o755); err != nil {
			return err
		}
		if err := bind(v.Host, in(v.Path), v.ReadOnly); err != nil {
			return err
		}
	}
	if r.ReadOnly {
		return mount("", r.Dir, "", unix.MS_REMOUNT|unix.MS_RDONLY, "mode=0755")
	}
	return nil
}

// node is a network namespace of its own, standing for a node's network
// (the pod has hostNetwork): only loopback, up.
type node struct {
	cmd   *exec.Cmd
	NetNS string
}

func newNode(t *testing.T) *node {
	t.Helper()
	spec, _ := json.Marshal(helperSpec{Node: true})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+string(spec))
	cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: unix.CLONE_NEWNET}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("a network namespace: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	return &node{cmd: cmd, NetNS: fmt.Sprintf("/proc/%d/ns/net", cmd.Process.Pid)}
}

// command returns a command that runs argv in the node's network
// namespace (on the host's filesystem, with the test's credentials).
func (n *node) command(argv ...string) *exec.Cmd {
	spec, _ := json.Marshal(helperSpec{NetNS: n.NetNS, Argv: argv, Env: os.Environ()})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+string(spec))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// image is what a container's image brings: its ENTRYPOINT and CMD, its
// USER, and its own files (path in the image -> host file).
type image struct {
	Entrypoint, Cmd []string
	User            string
	Files           map[string]string
}

// container returns a command that runs container c of pod spec pod, from
// image img, in the node's network, as a kubelet would (see the file's
// comment); volumes maps each of the pod's volume names to the host
// directory standing for it, env holds the values of the container's
// environment that come from the pod's fields (status.podIP).
func (n *node) container(t *testing.T, pod corev1.PodSpec, c corev1.Container, img image, volumes map[string]string, fields map[string]string) *exec.Cmd {
	t.Helper()
	env := map[string]string{"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME": "node"}
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = expand(e.Value, env)
		case e.ValueFrom.FieldRef != nil:
			v, ok := fields[e.ValueFrom.FieldRef.FieldPath]
			if !ok {
				t.Fatalf("container %s: env %s from field %s: not known to this test", c.Name, e.Name, e.ValueFrom.FieldRef.FieldPath)
			}
			env[e.Name] = v
		default:
			t.Fatalf("container %s: env %s: only values and field references are known to this test", c.Name, e.Name)
		}
	}
	// Command replaces ENTRYPOINT, args replace CMD; $(VAR) is expanded in
	// both.
	argv := img.Entrypoint
	if len(c.Command) > 0 {
		argv = c.Command
	}
	args := img.Cmd
	if len(c.Command) > 0 || len(c.Args) > 0 {
		args = c.Args
	}
	full := make([]string, 0, len(argv)+len(args))
	for _, a := range append(slices.Clone(argv), args...) {
		full = append(full, expand(a, env))
	}
	setpriv, err := setprivArgs(pod.SecurityContext, c.SecurityContext, img.User)
	if err != nil {
		t.Fatalf("container %s: %v", c.Name, err)
	}
	root := &rootSpec{Dir: t.TempDir(), Files: img.Files}
	if sc := c.SecurityContext; sc != nil && sc.ReadOnlyRootFilesystem != nil {
		root.ReadOnly = *sc.ReadOnlyRootFilesystem
	}
	for _, m := range c.VolumeMounts {
		host, ok := volumes[m.Name]
		if !ok {
			t.Fatalf("container %s mounts volume %s, which the test has no directory for", c.Name, m.Name)
		}
		if m.SubPath != "" {
			host = filepath.Join(host, m.SubPath)
		}
		root.Volumes = append(root.Volumes, volume{Host: host, Path: m.MountPath, ReadOnly: m.ReadOnly})
	}
	var envList []string
	for k, v := range env {
		envList = append(envList, k+"="+v)
	}
	slices.Sort(envList)
	spec, _ := json.Marshal(helperSpec{NetNS: n.NetNS, Root: root, Argv: append(setpriv, full...), Env: envList})
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+string(spec))
	// A mount namespace of its own: the root it builds is seen by it only.
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: unix.CLONE_NEWNS, Setpgid: true}
	return cmd
}

// expand expands $(VAR) references as Kubernetes does in a container's
// command, args and env: a defined VAR is replaced, an undefined one kept
// as written, $$ is a $.
func expand(s string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '$':
			b.WriteByte('$')
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '(':
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				b.WriteString(s[i:])
				return b.String()
			}
			name := s[i+2 : i+end]
			if v, ok := env[name]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(s[i : i+end+1])
			}
			i += end
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// containerdDefaultCaps is the capability set containerd (and CRI-O)
// give a container that drops none.
var containerdDefaultCaps = []string{"CHOWN", "DAC_OVERRIDE", "FSETID", "FOWNER", "MKNOD", "NET_RAW", "SETGID", "SETUID",
	"SETFCAP", "SETPCAP", "NET_BIND_SERVICE", "SYS_CHROOT", "KILL", "AUDIT_WRITE"}

// setprivArgs returns the setpriv command that gives a process the
// credentials a container runtime gives the container: the user and group
// (runAsUser/runAsGroup, else the image's USER; root without either),
// no supplementary groups, the bounding set from the capabilities
// (containerd's defaults, less drop, plus add; a root process holds the
// bounding set after exec, any other user nothing, as no ambient set is
// given), no inheritable capabilities, and no_new_privs unless
// allowPrivilegeEscalation.
func setprivArgs(pod *corev1.PodSecurityContext, sc *corev1.SecurityContext, imageUser string) ([]string, error) {
	uid, gid := int64(0), int64(0)
	switch imageUser {
	case "", "root", "0", "root:root", "0:0":
	case "nonroot", "nonroot:nonroot", "65532", "65532:65532": // distroless's nonroot
		uid, gid = 65532, 65532
	default:
		return nil, fmt.Errorf("image USER %q: not known to this test", imageUser)
	}
	nonRoot := false
	if pod != nil {
		if pod.RunAsUser != nil {
			uid = *pod.RunAsUser
		}
		if pod.RunAsGroup != nil {
			gid = *pod.RunAsGroup
		}
		nonRoot = pod.RunAsNonRoot != nil && *pod.RunAsNonRoot
		if len(pod.SupplementalGroups) > 0 || pod.FSGroup != nil {
			return nil, fmt.Errorf("supplementalGroups and fsGroup: not known to this test")
		}
	}
	caps := slices.Clone(containerdDefaultCaps)
	nnp := false
	if sc != nil {
		if sc.RunAsUser != nil {
			uid = *sc.RunAsUser
		}
		if sc.RunAsGroup != nil {
			gid = *sc.RunAsGroup
		}
		if sc.RunAsNonRoot != nil {
			nonRoot = *sc.RunAsNonRoot
		}
		if sc.Privileged != nil && *sc.Privileged {
			return nil, fmt.Errorf("privileged: not emulated")
		}
		if c := sc.Capabilities; c != nil {
			for _, d := range c.Drop {
				if d == "ALL" {
					caps = nil
				}
				caps = slices.DeleteFunc(caps, func(x string) bool { return x == string(d) })
			}
			for _, a := range c.Add {
				if !slices.Contains(caps, string(a)) {
					caps = append(caps, string(a))
				}
			}
		}
		nnp = sc.AllowPrivilegeEscalation != nil && !*sc.AllowPrivilegeEscalation
	}
	if nonRoot && uid == 0 {
		return nil, fmt.Errorf("runAsNonRoot with user 0: the kubelet would not start it")
	}
	bounding := "-all"
	for _, c := range caps {
		bounding += ",+" + strings.ToLower(c)
	}
	args := []string{"/usr/bin/setpriv", "--reuid", strconv.FormatInt(uid, 10), "--regid", strconv.FormatInt(gid, 10),
		"--clear-groups", "--inh-caps", "-all", "--bounding-set", bounding}
	if nnp {
		args = append(args, "--no-new-privs")
	}
	return append(args, "--"), nil
}
