// Package deploy holds what runs roomspec in production: the Dockerfile
// (at the repository's root) and the Kubernetes manifests of
// deploy/kubernetes. Its tests check them as far as that is possible
// without a Docker daemon or a cluster: the Dockerfile parsed by
// BuildKit's own parser and linter, the binary it builds built the same way
// (CGO_ENABLED=0, static), and every manifest decoded strictly into the
// Kubernetes and prometheus-operator API types, then cross-checked.
package deploy

import (
	"bufio"
	"bytes"
	"debug/elf"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/linter"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"github.com/prometheus/client_golang/prometheus"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/roomspec/roomspec/traces/judge/watch"
)

// dockerfile is the parsed Dockerfile: its stages by name, and the images
// its header says each target is tagged as.
type dockerfile struct {
	stages map[string]instructions.Stage
	images map[string]string // image name (no tag) -> target stage
}

func parseDockerfile(t *testing.T) *dockerfile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	for _, w := range res.Warnings {
		t.Errorf("Dockerfile: parser warning: %s", w.Short)
	}
	lint := linter.New(&linter.Config{Warn: func(rule, desc, url, msg string, loc []parser.Range) {
		t.Errorf("Dockerfile: lint %s: %s (%s)", rule, msg, desc)
	}})
	stages, _, err := instructions.Parse(res.AST, lint)
	if err != nil {
		t.Fatalf("Dockerfile: %v", err)
	}
	d := &dockerfile{stages: map[string]instructions.Stage{}, images: map[string]string{}}
	for _, s := range stages {
		d.stages[s.Name] = s
	}
	tagRe := regexp.MustCompile(`docker build --target (\S+) +-t (\S+?)(:\S+)? `)
	for _, m := range tagRe.FindAllStringSubmatch(string(data), -1) {
		d.images[m[2]] = m[1]
	}
	return d
}

// goBuild returns the words of the go build command of the stage's RUN
// instructions, with the environment assignments before it.
func goBuild(s instructions.Stage) (env map[string]string, args []string) {
	for _, c := range s.Commands {
		run, ok := c.(*instructions.RunCommand)
		if !ok {
			continue
		}
		words := strings.Fields(strings.Join(run.CmdLine, " "))
		env = map[string]string{}
		for i, w := range words {
			if k, v, ok := strings.Cut(w, "="); ok && !strings.HasPrefix(w, "-") && i < len(words)-1 {
				env[k] = v
				continue
			}
			if w == "go" && i+1 < len(words) && words[i+1] == "build" {
				return env, words[i+2:]
			}
			break
		}
	}
	return nil, nil
}

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
)

// build builds the package the Dockerfile builds, as it builds it, and
// returns the binary.
func build(t *testing.T, pkg string) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "roomspec-deploy")
		if err != nil {
			buildErr = err
			return
		}
		binary = filepath.Join(dir, "roomspec")
		cmd := exec.Command("go", "build", "-o", binary, pkg)
		cmd.Dir = ".."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("CGO_ENABLED=0 go build %s: %v\n%s", pkg, err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// TestDockerfile: the Dockerfile parses and lints clean; its build stage
// builds ./cmd/roomspec with CGO_ENABLED=0 on the Go of go.mod, and that
// build succeeds here and gives a static binary; the roomspec image is
// distroless (or scratch), runs that binary as a non-root user; the
// tcpdump image installs tcpdump.
func TestDockerfile(t *testing.T) {
	d := parseDockerfile(t)
	b, ok := d.stages["build"]
	if !ok {
		t.Fatalf("no build stage; stages %v", keys(d.stages))
	}
	gomod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindSubmatch(gomod)
	if goVersion == nil || !strings.HasPrefix(b.BaseName, "golang:"+string(goVersion[1])) {
		t.Errorf("build stage FROM %s, go.mod says go %s", b.BaseName, goVersion[1])
	}
	env, args := goBuild(b)
	if env["CGO_ENABLED"] != "0" {
		t.Errorf("build stage: go build without CGO_ENABLED=0 (env %v)", env)
	}
	var out, pkg string
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-o" && i+1 < len(args):
			out = args[i+1]
			i++
		case !strings.HasPrefix(args[i], "-"):
			pkg = args[i]
		}
	}
	if pkg != "./cmd/roomspec" || out == "" {
		t.Fatalf("build stage builds %q into %q, want ./cmd/roomspec", pkg, out)
	}

	r, ok := d.stages["roomspec"]
	if !ok {
		t.Fatal("no roomspec stage")
	}
	if !strings.HasPrefix(r.BaseName, "gcr.io/distroless/static") && r.BaseName != "scratch" {
		t.Errorf("roomspec image FROM %s: want distroless static or scratch", r.BaseName)
	}
	var copied, entry, user string
	for _, c := range r.Commands {
		switch c := c.(type) {
		case *instructions.CopyCommand:
			if c.From == "build" && slices.Contains(c.SourcePaths, out) {
				copied = c.DestPath
			}
		case *instructions.EntrypointCommand:
			if !c.PrependShell && len(c.CmdLine) > 0 {
				entry = c.CmdLine[0]
			}
		case *instructions.UserCommand:
			user = c.User
		case *instructions.RunCommand:
			t.Errorf("roomspec image: RUN %v (distroless has no shell)", c.CmdLine)
		}
	}
	if copied == "" || entry != copied {
		t.Errorf("roomspec image: binary copied to %q, ENTRYPOINT %q (exec form)", copied, entry)
	}
	if user == "" || strings.HasPrefix(user, "root") || strings.HasPrefix(user, "0") {
		t.Errorf("roomspec image runs as %q, want a non-root user", user)
	}

	td, ok := d.stages["tcpdump"]
	if !ok {
		t.Fatal("no tcpdump stage")
	}
	installs := false
	for _, c := range td.Commands {
		if run, ok := c.(*instructions.RunCommand); ok {
			cmd := strings.Join(run.CmdLine, " ")
			installs = installs || strings.Contains(cmd, "apt-get install") && strings.Contains(cmd, " tcpdump")
		}
	}
	if !installs {
		t.Error("tcpdump image: no apt-get install tcpdump")
	}

	// The binary the Dockerfile names, built as it builds it: static.
	bin := build(t, pkg)
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the CGO_ENABLED=0 binary has a dynamic loader (PT_INTERP)")
		}
	}
	if libs, _ := f.ImportedLibraries(); len(libs) > 0 {
		t.Errorf("the CGO_ENABLED=0 binary needs %v", libs)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// manifests decodes every document of deploy/kubernetes/*.yaml strictly
// (unknown or duplicate fields fail) into its API type.
func manifests(t *testing.T) []any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	var out []any
	for _, file := range files {
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		rd := utilyaml.NewYAMLReader(bufio.NewReader(f))
		for n := 1; ; n++ {
			doc, err := rd.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: document %d: %v", file, n, err)
			}
			if len(bytes.TrimSpace(doc)) == 0 {
				continue
			}
			obj, err := decode(doc)
			if err != nil {
				t.Errorf("%s: document %d: %v", file, n, err)
				continue
			}
			out = append(out, obj)
		}
		f.Close()
	}
	return out
}

// decode decodes one manifest strictly into the type its apiVersion and
// kind name.
func decode(doc []byte) (any, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return nil, err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Namespace":
		obj = &corev1.Namespace{}
	case "v1 Service":
		obj = &corev1.Service{}
	case "apps/v1 DaemonSet":
		obj = &appsv1.DaemonSet{}
	case "monitoring.coreos.com/v1 PodMonitor":
		obj = &monitoringv1.PodMonitor{}
	case "monitoring.coreos.com/v1 PrometheusRule":
		obj = &monitoringv1.PrometheusRule{}
	default:
		return nil, fmt.Errorf("apiVersion %q kind %q: no API type known to this test", tm.APIVersion, tm.Kind)
	}
	// As the API server decodes: YAML to JSON refusing duplicate keys,
	// then JSON into the type refusing unknown fields, case-sensitively
	// (encoding/json, under sigs.k8s.io/yaml's UnmarshalStrict, would take
	// "clusterIp" for "clusterIP").
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
	}
	strict, err := kjson.UnmarshalStrict(j, obj, kjson.DisallowUnknownFields)
	if err == nil && len(strict) > 0 {
		err = errors.Join(strict...)
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", tm.APIVersion, tm.Kind, err)
	}
	return obj, nil
}

// TestDecodeStrict: a typo in a manifest is an error.
func TestDecodeStrict(t *testing.T) {
	good := "apiVersion: v1\nkind: Service\nmetadata:\n  name: x\nspec:\n  clusterIP: None\n"
	if _, err := decode([]byte(good)); err != nil {
		t.Fatalf("good manifest: %v", err)
	}
	for _, bad := range []string{
		strings.Replace(good, "clusterIP", "clusterIp", 1),            // unknown field
		good + "  clusterIP: None\n",                                  // duplicate field
		strings.Replace(good, "kind: Service", "kind: Servise", 1),    // unknown kind
		strings.Replace(good, "clusterIP: None", "clusterIP: [1]", 1), // wrong type
	} {
		if _, err := decode([]byte(bad)); err == nil {
			t.Errorf("accepted:\n%s", bad)
		}
	}
}

// TestManifests decodes every manifest strictly and checks that they fit
// together and fit roomspec: the DaemonSet's tcpdump writes the rotating
// files roomspec watches, with the flags roomspec watch has; its metrics
// port is the one the PodMonitor and the Service scrape, on pods they
// select; the PodMonitor labels series with the node; the alert on pinned
// rooms fires after a minute and carries the runbook, whose sections
// exist; every metric the rules use is one roomspec exports; the images
// are the Dockerfile's targets.
func TestManifests(t *testing.T) {
	objs := manifests(t)
	var ds *appsv1.DaemonSet
	var pm *monitoringv1.PodMonitor
	var svc *corev1.Service
	var rule *monitoringv1.PrometheusRule
	for _, o := range objs {
		switch o := o.(type) {
		case *appsv1.DaemonSet:
			ds = o
		case *monitoringv1.PodMonitor:
			pm = o
		case *corev1.Service:
			svc = o
		case *monitoringv1.PrometheusRule:
			rule = o
		}
	}
	if ds == nil || pm == nil || svc == nil || rule == nil {
		t.Fatalf("want a DaemonSet, a PodMonitor, a Service and a PrometheusRule; got %d objects", len(objs))
	}
	pod := ds.Spec.Template
	if !pod.Spec.HostNetwork {
		t.Error("DaemonSet: not on the host network (the prefill's traffic is on the node's interfaces)")
	}
	sel, err := metav1.LabelSelectorAsSelector(ds.Spec.Selector)
	if err != nil || !sel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("DaemonSet: selector does not match its pods (%v)", err)
	}
	containers := map[string]corev1.Container{}
	for _, c := range pod.Spec.Containers {
		containers[c.Name] = c
	}
	td, rs := containers["tcpdump"], containers["roomspec"]
	if td.Name == "" || rs.Name == "" {
		t.Fatalf("DaemonSet: containers %v, want tcpdump and roomspec", keys(containers))
	}

	// tcpdump: rotating files, each packet handed over at once.
	tdFlags := flagValues(td.Args)
	for _, f := range []string{"--immediate-mode", "-U", "-C", "-W", "-w"} {
		if _, ok := tdFlags[f]; !ok {
			t.Errorf("tcpdump: no %s", f)
		}
	}
	written := tdFlags["-w"]

	// roomspec watch: its flags exist; it watches the directory tcpdump
	// writes, files tcpdump names; it serves metrics on the port scraped.
	if len(rs.Args) == 0 || rs.Args[0] != "watch" {
		t.Fatalf("roomspec: args %v, want watch ...", rs.Args)
	}
	d := parseDockerfile(t)
	_, args := goBuild(d.stages["build"])
	pkg := args[len(args)-1]
	help, err := exec.Command(build(t, pkg), "watch", "-help").Output()
	if err != nil {
		t.Fatal(err)
	}
	rsFlags := flagValues(rs.Args[1:])
	for f := range rsFlags {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(f) + `\b`).Match(help) {
			t.Errorf("roomspec watch has no flag %s", f)
		}
	}
	// The deadline: above SGLang's bootstrap timeout, whose releases are
	// not pins.
	dl, err := time.ParseDuration(rsFlags["-deadline"])
	if timeout := bootstrapTimeout(t); err != nil || dl <= timeout {
		t.Errorf("roomspec watch -deadline %s: not above SGLang's bootstrap timeout %v (%v)", rsFlags["-deadline"], timeout, err)
	}
	watched := rs.Args[len(rs.Args)-1]
	if filepath.Dir(written) != watched {
		t.Errorf("tcpdump writes %s, roomspec watches %s", written, watched)
	}
	if ok, _ := filepath.Match(rsFlags["-pattern"], filepath.Base(written)+"0"); !ok {
		t.Errorf("-pattern %q does not match tcpdump's files %s0...", rsFlags["-pattern"], written)
	}
	mounted := func(c corev1.Container, path string) string {
		for _, m := range c.VolumeMounts {
			if path == m.MountPath || strings.HasPrefix(path, m.MountPath+"/") {
				return m.Name
			}
		}
		return ""
	}
	if v := mounted(td, written); v == "" || v != mounted(rs, watched) {
		t.Errorf("tcpdump writes into volume %q, roomspec reads volume %q", v, mounted(rs, watched))
	}
	if mounted(rs, rsFlags["-log"]) == "" {
		t.Errorf("-log %s is on no volume", rsFlags["-log"])
	}
	if _, ok := rsFlags["-listen-public"]; !ok {
		t.Error("roomspec: -listen without -listen-public cannot serve the pod's address")
	}
	var metricsPort int32
	for _, p := range rs.Ports {
		if p.Name == "metrics" {
			metricsPort = p.ContainerPort
		}
	}
	if !strings.HasSuffix(rsFlags["-listen"], fmt.Sprintf(":%d", metricsPort)) || metricsPort == 0 {
		t.Errorf("roomspec listens on %s, its metrics port is %d", rsFlags["-listen"], metricsPort)
	}
	if rs.LivenessProbe == nil || rs.LivenessProbe.HTTPGet == nil || rs.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("roomspec: no /healthz liveness probe")
	}

	// Images: the Dockerfile's targets.
	for _, c := range []corev1.Container{td, rs} {
		image, _, _ := strings.Cut(c.Image, ":")
		target, ok := d.images[image]
		if _, built := d.stages[target]; !ok || !built {
			t.Errorf("container %s: image %s is not one the Dockerfile builds (%v)", c.Name, c.Image, d.images)
		}
	}

	// Scraping.
	pmSel, err := metav1.LabelSelectorAsSelector(&pm.Spec.Selector)
	if err != nil || !pmSel.Matches(labels.Set(pod.Labels)) {
		t.Errorf("PodMonitor selects no watcher pod (%v)", err)
	}
	if len(pm.Spec.PodMetricsEndpoints) == 0 {
		t.Fatal("PodMonitor: no endpoint")
	}
	ep := pm.Spec.PodMetricsEndpoints[0]
	if ep.Port == nil || *ep.Port != "metrics" || ep.Path != "/metrics" {
		t.Errorf("PodMonitor scrapes port %v path %q", ep.Port, ep.Path)
	}
	nodeLabel := false
	for _, r := range ep.RelabelConfigs {
		nodeLabel = nodeLabel || slices.Contains(r.SourceLabels, "__meta_kubernetes_pod_node_name") && r.TargetLabel == "node"
	}
	if !nodeLabel {
		t.Error("PodMonitor: series are not labelled with the node")
	}
	if !labelsSelect(svc.Spec.Selector, pod.Labels) || len(svc.Spec.Ports) == 0 || svc.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("Service does not select the watchers' metrics port")
	}

	// Alerts: the pinned-room alert, the runbook, the metrics.
	runbook, err := os.ReadFile(filepath.Join("kubernetes", "RUNBOOK.md"))
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^#+ (.+)$`).FindAllSubmatch(runbook, -1) {
		anchors[strings.ToLower(strings.ReplaceAll(string(m[1]), " ", "-"))] = true
	}
	exported := exportedMetrics(t)
	pinned := false
	for _, g := range rule.Spec.Groups {
		for _, r := range g.Rules {
			expr := r.Expr.String()
			for _, name := range regexp.MustCompile(`\broomspec_[a-z_]+`).FindAllString(expr, -1) {
				if !exported[name] {
					t.Errorf("alert %s: roomspec exports no metric %s", r.Alert, name)
				}
			}
			url := r.Annotations["runbook_url"]
			_, anchor, _ := strings.Cut(url, "RUNBOOK.md#")
			if !anchors[anchor] {
				t.Errorf("alert %s: runbook_url %q names no section of RUNBOOK.md", r.Alert, url)
			}
			if strings.Contains(expr, "roomspec_rooms_pinned") && strings.Contains(expr, "> 0") {
				pinned = true
				if r.For == nil || *r.For != "1m" {
					t.Errorf("alert %s: for %v, want 1m", r.Alert, r.For)
				}
				if rb := r.Annotations["runbook"]; !strings.Contains(rb, "kubectl cp") || !strings.Contains(rb, "roomspec replay") {
					t.Errorf("alert %s: the runbook annotation does not say how to get and replay the capture slice", r.Alert)
				}
			}
		}
	}
	if !pinned {
		t.Error("no alert on roomspec_rooms_pinned > 0")
	}
}

// bootstrapTimeout is SGLang's default bootstrap timeout
// (SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT): read from environ.py at the
// commit of $ROOMSPEC_SGLANG (GITDIR@COMMIT) where it is set, else the
// 300 s it has been since PR #34692.
func bootstrapTimeout(t *testing.T) time.Duration {
	t.Helper()
	const known = 300 * time.Second
	gitDir, commit, ok := strings.Cut(os.Getenv("ROOMSPEC_SGLANG"), "@")
	if !ok {
		t.Logf("ROOMSPEC_SGLANG (GITDIR@COMMIT) not set: SGLang's bootstrap timeout taken as %v", known)
		return known
	}
	src, err := exec.Command("git", "--git-dir", gitDir, "show", commit+":python/sglang/srt/environ.py").Output()
	if err != nil {
		t.Fatalf("environ.py at %s: %v", commit, err)
	}
	m := regexp.MustCompile(`SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT = EnvInt\((\d+)\)`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("environ.py at %s: no SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT = EnvInt(N)", commit)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return time.Duration(n) * time.Second
}

// exportedMetrics returns the names of the series roomspec watch exports
// (a histogram's with their suffixes).
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	reg := prometheus.NewRegistry()
	watch.NewMetrics(reg, nil).SetBuild("version", "variant", time.Minute)
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, f := range fams {
		out[f.GetName()] = true
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			out[f.GetName()+s] = true
		}
	}
	return out
}

// flagValues maps each flag of args to its value ("" for a flag followed
// by another flag or by nothing).
func flagValues(args []string) map[string]string {
	out := map[string]string{}
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			continue
		}
		v := ""
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			v = args[i+1]
		}
		out[a] = v
	}
	return out
}

func labelsSelect(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}
