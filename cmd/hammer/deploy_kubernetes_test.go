package main

import (
	"fmt"
	"net"
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// kubeRace is what deploy/kubernetes races with: the two Jobs, the Service the
// agents join through, the results claim, the kustomization, every
// manifest, and the README (its kubectl create secret command).
type kubeRace struct {
	all                 []manifest
	coordinator, agents *batchv1.Job
	coord, agent        *corev1.Container
	service             *corev1.Service
	results             *corev1.PersistentVolumeClaim
	kustomization       *kustomization
	readme              string
}

// findRace picks the race's pieces out of the manifests by kind and name.
func findRace(ms []manifest, readme string) (*kubeRace, error) {
	r := &kubeRace{all: ms, readme: readme}
	for _, m := range ms {
		switch o := m.obj.(type) {
		case *batchv1.Job:
			switch o.Name {
			case "hammer-coordinator":
				r.coordinator = o
			case "hammer-agents":
				r.agents = o
			}
		case *corev1.Service:
			if o.Name == "hammer-coordinator" {
				r.service = o
			}
		case *corev1.PersistentVolumeClaim:
			r.results = o
		case *kustomization:
			r.kustomization = o
		}
	}
	if r.coordinator == nil || r.agents == nil || r.service == nil || r.results == nil || r.kustomization == nil {
		return nil, fmt.Errorf("want Jobs hammer-coordinator and hammer-agents, Service hammer-coordinator, a PersistentVolumeClaim and a Kustomization")
	}
	var err error
	if r.coord, err = hammerContainer(r.coordinator); err != nil {
		return nil, err
	}
	if r.agent, err = hammerContainer(r.agents); err != nil {
		return nil, err
	}
	return r, nil
}

// raceChecks are the ways a manifest can decode and still not race: each
// returns what is wrong, nothing when all is well.
func raceChecks() []struct {
	name  string
	check func(*kubeRace) []string
} {
	return []struct {
		name  string
		check func(*kubeRace) []string
	}{
		{"agents", (*kubeRace).checkAgents},
		{"listen", (*kubeRace).checkListen},
		{"join", (*kubeRace).checkJoin},
		{"token", (*kubeRace).checkToken},
		{"jobs", (*kubeRace).checkJobs},
		{"results", (*kubeRace).checkResults},
		{"image", (*kubeRace).checkImage},
		{"pods", (*kubeRace).checkPods},
		{"secret", (*kubeRace).checkSecret},
	}
}

// problems runs every check.
func (r *kubeRace) problems() []string {
	var out []string
	for _, c := range raceChecks() {
		for _, p := range c.check(r) {
			out = append(out, c.name+": "+p)
		}
	}
	return out
}

// checkAgents: the agents Job is Indexed and runs as many pods at once as
// the coordinator waits for.
func (r *kubeRace) checkAgents() []string {
	n, err := strconv.Atoi(parseArgs(r.coord.Args).flags["agents"])
	if err != nil || n < 1 {
		return []string{fmt.Sprintf("coordinator's --agents is not a count: %q", parseArgs(r.coord.Args).flags["agents"])}
	}
	var out []string
	s := r.agents.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		out = append(out, "agents Job is not completionMode: Indexed")
	}
	if s.Completions == nil || int(*s.Completions) != n {
		out = append(out, fmt.Sprintf("agents Job's completions is %v, the coordinator's --agents %d", deref(s.Completions), n))
	}
	if s.Parallelism == nil || int(*s.Parallelism) != n {
		out = append(out, fmt.Sprintf("agents Job's parallelism is %v, the coordinator's --agents %d", deref(s.Parallelism), n))
	}
	return out
}

// checkListen: the coordinator is a race's coordinator, listens on an
// address other pods reach, and the Service sends them to that port of the
// coordinator's pod and of no other.
func (r *kubeRace) checkListen() []string {
	cmd := parseArgs(r.coord.Args)
	var out []string
	if !slices.Contains([]string{"run", "load", "gate"}, cmd.sub) {
		out = append(out, fmt.Sprintf("coordinator runs hammer %q, want run, load or gate", cmd.sub))
	}
	host, port, err := net.SplitHostPort(cmd.flags["listen"])
	if err != nil {
		return append(out, fmt.Sprintf("coordinator's --listen %q: %v", cmd.flags["listen"], err))
	}
	if ip := net.ParseIP(host); host == "" || host == "localhost" || ip != nil && ip.IsLoopback() {
		out = append(out, fmt.Sprintf("coordinator listens on %q, a loopback address no agent reaches (want e.g. 0.0.0.0)", host))
	}
	tmpl := r.coordinator.Spec.Template
	if !selects(r.service.Spec.Selector, tmpl.Labels) {
		out = append(out, fmt.Sprintf("Service selector %v does not select the coordinator's pod (labels %v)", r.service.Spec.Selector, tmpl.Labels))
	}
	if selects(r.service.Spec.Selector, r.agents.Spec.Template.Labels) {
		out = append(out, fmt.Sprintf("Service selector %v also selects the agents' pods", r.service.Spec.Selector))
	}
	for _, sp := range r.service.Spec.Ports {
		if got := containerPort(r.coord, sp); strconv.Itoa(int(got)) != port {
			out = append(out, fmt.Sprintf("Service port %d goes to the coordinator's port %d, it listens on %s", sp.Port, got, port))
		}
	}
	return out
}

// checkJoin: the agents run hammer agent and join the coordinator's Service
// at its port.
func (r *kubeRace) checkJoin() []string {
	cmd := parseArgs(r.agent.Args)
	var out []string
	if cmd.sub != "agent" {
		out = append(out, fmt.Sprintf("agents run hammer %q, want agent", cmd.sub))
	}
	if idx, ok := cmd.flags["index"]; ok && idx != "$(JOB_COMPLETION_INDEX)" {
		out = append(out, fmt.Sprintf("agents pass --index %q: every pod would have the same", idx))
	}
	host, port, err := net.SplitHostPort(cmd.flags["join"])
	if err != nil {
		return append(out, fmt.Sprintf("agents' --join %q: %v", cmd.flags["join"], err))
	}
	if name, _, _ := strings.Cut(host, "."); name != r.service.Name {
		out = append(out, fmt.Sprintf("agents join %q, not the coordinator's Service %s", host, r.service.Name))
	}
	if len(r.service.Spec.Ports) != 1 || strconv.Itoa(int(r.service.Spec.Ports[0].Port)) != port {
		out = append(out, fmt.Sprintf("agents join port %s, the Service's ports are %v", port, r.service.Spec.Ports))
	}
	return out
}

// checkToken: both sides read the same token from the same Secret, and no
// secret is a literal or an argument (args show in process listings).
func (r *kubeRace) checkToken() []string {
	var out []string
	var refs []string
	for _, c := range []*corev1.Container{r.coord, r.agent} {
		who := "hammer " + parseArgs(c.Args).sub
		e := env(c, "HAMMER_TOKEN")
		switch {
		case e == nil:
			out = append(out, who+" has no HAMMER_TOKEN")
			continue
		case e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil:
			out = append(out, who+"'s HAMMER_TOKEN is not from a secretKeyRef")
			continue
		case e.ValueFrom.SecretKeyRef.Optional != nil && *e.ValueFrom.SecretKeyRef.Optional:
			out = append(out, who+"'s HAMMER_TOKEN is optional")
		}
		refs = append(refs, e.ValueFrom.SecretKeyRef.Name+"/"+e.ValueFrom.SecretKeyRef.Key)
		for _, flag := range []string{"token", "redis-url", "pg-url"} {
			if _, ok := parseArgs(c.Args).flags[flag]; ok {
				out = append(out, fmt.Sprintf("%s has --%s in its args, which process listings show", who, flag))
			}
		}
	}
	if len(refs) == 2 && refs[0] != refs[1] {
		out = append(out, fmt.Sprintf("coordinator's token is %s, the agents' %s", refs[0], refs[1]))
	}
	if parseArgs(r.coord.Args).flags["stack"] == "external" {
		for _, name := range []string{"HAMMER_REDIS_URL", "HAMMER_PG_URL"} {
			if e := env(r.coord, name); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				out = append(out, fmt.Sprintf("coordinator with --stack external has no %s from a secretKeyRef", name))
			}
		}
	}
	return out
}

// checkJobs: neither Job retries (a new pod would start another race, or
// could not rejoin this one), each has a deadline and is cleaned up.
func (r *kubeRace) checkJobs() []string {
	var out []string
	for _, j := range []*batchv1.Job{r.coordinator, r.agents} {
		s := j.Spec
		if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			out = append(out, fmt.Sprintf("Job %s: restartPolicy %q, want Never", j.Name, s.Template.Spec.RestartPolicy))
		}
		if s.BackoffLimit == nil || *s.BackoffLimit != 0 {
			out = append(out, fmt.Sprintf("Job %s: backoffLimit %v, want 0", j.Name, deref(s.BackoffLimit)))
		}
		if s.ActiveDeadlineSeconds == nil || s.TTLSecondsAfterFinished == nil {
			out = append(out, fmt.Sprintf("Job %s: no activeDeadlineSeconds or ttlSecondsAfterFinished", j.Name))
		}
	}
	return out
}

// checkResults: the coordinator's --out lies on a writable mount of the
// results claim, and the kustomization (what kubectl delete -k removes)
// does not hold the claim.
func (r *kubeRace) checkResults() []string {
	out := parseArgs(r.coord.Args).flags["out"]
	var mount *corev1.VolumeMount
	for i, m := range r.coord.VolumeMounts {
		if strings.HasPrefix(path.Clean(out)+"/", path.Clean(m.MountPath)+"/") {
			mount = &r.coord.VolumeMounts[i]
		}
	}
	if mount == nil || mount.ReadOnly {
		return []string{fmt.Sprintf("coordinator's --out %q is on no writable volume", out)}
	}
	var problems []string
	for _, v := range r.coordinator.Spec.Template.Spec.Volumes {
		if v.Name == mount.Name && (v.PersistentVolumeClaim == nil || v.PersistentVolumeClaim.ClaimName != r.results.Name) {
			problems = append(problems, fmt.Sprintf("coordinator's --out %q is on volume %s, not the claim %s", out, v.Name, r.results.Name))
		}
	}
	for _, m := range r.all {
		if _, ok := m.obj.(*corev1.PersistentVolumeClaim); ok && slices.Contains(r.kustomization.Resources, m.file) {
			problems = append(problems, fmt.Sprintf("kustomization.yaml holds %s: kubectl delete -k would delete the results", m.file))
		}
	}
	for _, f := range r.kustomization.Resources {
		if !slices.ContainsFunc(r.all, func(m manifest) bool { return m.file == f }) {
			problems = append(problems, fmt.Sprintf("kustomization.yaml lists %s, which is not among the manifests", f))
		}
	}
	return problems
}

// checkImage: coordinator and agents run one image, the one the
// kustomization's images entry rewrites.
func (r *kubeRace) checkImage() []string {
	var out []string
	if r.coord.Image != r.agent.Image {
		out = append(out, fmt.Sprintf("coordinator runs %s, the agents %s", r.coord.Image, r.agent.Image))
	}
	name, _, _ := strings.Cut(r.coord.Image, ":")
	if !slices.ContainsFunc(r.kustomization.Images, func(i kustomizeImage) bool { return i.Name == name }) {
		out = append(out, fmt.Sprintf("kustomization.yaml's images do not name %s", name))
	}
	return out
}

// checkPods: every pod of every manifest runs as non-root, read-only, with
// no capabilities; hammer's pods have no service links (their variables
// are named HAMMER_… like hammer's own), a writable /tmp, $(VAR)s the
// container defines, requests, a memory limit and no CPU limit (throttling
// would show up as latency); the agents spread over nodes.
func (r *kubeRace) checkPods() []string {
	var out []string
	for _, p := range pods(r.all) {
		out = append(out, nonRoot(p)...)
	}
	for _, j := range []*batchv1.Job{r.coordinator, r.agents} {
		spec := j.Spec.Template.Spec
		if spec.EnableServiceLinks == nil || *spec.EnableServiceLinks {
			out = append(out, fmt.Sprintf("Job %s: enableServiceLinks is not false", j.Name))
		}
		c, _ := hammerContainer(j)
		if !slices.ContainsFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == "/tmp" }) {
			out = append(out, fmt.Sprintf("Job %s: no writable /tmp beside the read-only root", j.Name))
		}
		for _, m := range envReference.FindAllStringSubmatch(strings.Join(append(c.Command, c.Args...), " "), -1) {
			if env(c, m[1]) == nil {
				out = append(out, fmt.Sprintf("Job %s: $(%s) in its args is not a variable of the container", j.Name, m[1]))
			}
		}
		req, lim := c.Resources.Requests, c.Resources.Limits
		if req.Cpu().IsZero() || req.Memory().IsZero() || lim.Memory().IsZero() || !lim.Cpu().IsZero() {
			out = append(out, fmt.Sprintf("Job %s: want CPU and memory requests, a memory limit and no CPU limit", j.Name))
		}
	}
	spread := r.agents.Spec.Template.Spec.TopologySpreadConstraints
	if !slices.ContainsFunc(spread, func(c corev1.TopologySpreadConstraint) bool {
		return c.TopologyKey == "kubernetes.io/hostname" && c.LabelSelector != nil &&
			selects(c.LabelSelector.MatchLabels, r.agents.Spec.Template.Labels)
	}) {
		out = append(out, "agents are not spread over nodes (topologySpreadConstraints on kubernetes.io/hostname selecting them)")
	}
	return out
}

// deref prints an optional count.
func deref(p *int32) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// TestDeployRaceFitsTogether checks that the manifests that decode also race.
func TestDeployRaceFitsTogether(t *testing.T) {
	files := readManifests(t)
	ms, err := decodeAll(files)
	if err != nil {
		t.Fatal(err)
	}
	r, err := findRace(ms, files["README.md"])
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.problems() {
		t.Error(p)
	}
}
