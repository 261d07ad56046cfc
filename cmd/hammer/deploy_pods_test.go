package main

import (
	"fmt"
	"regexp"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// pod is the pod a manifest runs (a Job's or a Deployment's template, or a
// Pod), with the labels it carries.
type pod struct {
	owner  manifest
	labels map[string]string
	spec   *corev1.PodSpec
}

// pods returns the pod of every manifest that runs one.
func pods(ms []manifest) []pod {
	var out []pod
	for _, m := range ms {
		switch o := m.obj.(type) {
		case *batchv1.Job:
			out = append(out, pod{m, o.Spec.Template.Labels, &o.Spec.Template.Spec})
		case *appsv1.Deployment:
			out = append(out, pod{m, o.Spec.Template.Labels, &o.Spec.Template.Spec})
		case *corev1.Pod:
			out = append(out, pod{m, o.Labels, &o.Spec})
		}
	}
	return out
}

// containerArgs is a hammer container's args: the subcommand and its flags
// (`--name value` or `--name=value`; a flag followed by another flag, or by
// nothing, has the value "").
type containerArgs struct {
	sub   string
	flags map[string]string
}

// parseArgs splits a hammer container's args into its command.
func parseArgs(args []string) containerArgs {
	c := containerArgs{flags: map[string]string{}}
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		c.sub, args = args[0], args[1:]
	}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		if !ok {
			name, ok = strings.CutPrefix(args[i], "-")
		}
		if !ok {
			continue
		}
		if n, v, eq := strings.Cut(name, "="); eq {
			c.flags[n] = v
			continue
		}
		if i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			c.flags[name] = args[i+1]
			i++
		} else {
			c.flags[name] = ""
		}
	}
	return c
}

// hammerContainer returns the container of a Job's pod that runs hammer
// (the one named "hammer").
func hammerContainer(j *batchv1.Job) (*corev1.Container, error) {
	for i, c := range j.Spec.Template.Spec.Containers {
		if c.Name == "hammer" {
			return &j.Spec.Template.Spec.Containers[i], nil
		}
	}
	return nil, fmt.Errorf("job %s has no container named hammer", j.Name)
}

// env returns the container's variable called name, or nil.
func env(c *corev1.Container, name string) *corev1.EnvVar {
	for i, e := range c.Env {
		if e.Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

// selects reports whether a selector's every label is among labels; an
// empty selector selects nothing here (a Service without one has no
// endpoints).
func selects(selector, labels map[string]string) bool {
	if len(selector) == 0 {
		return false
	}
	for k, v := range selector {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// containerPort resolves a Service's targetPort against a container: a
// number is itself, a name is the number of the container's port of that
// name (0 if it has none).
func containerPort(c *corev1.Container, target corev1.ServicePort) int32 {
	if target.TargetPort.StrVal == "" && target.TargetPort.IntVal != 0 {
		return target.TargetPort.IntVal
	}
	if target.TargetPort.StrVal == "" {
		return target.Port // no targetPort: the port itself
	}
	for _, p := range c.Ports {
		if p.Name == target.TargetPort.StrVal {
			return p.ContainerPort
		}
	}
	return 0
}

// envReference is a $(VAR) in a container's command or args, which
// Kubernetes expands only when the container defines VAR.
var envReference = regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// nonRoot returns what in a container of the pod would let it run as root
// or gain privileges: each container must run as non-root (by its own
// securityContext or the pod's), as no uid 0, without privilege escalation,
// with every capability dropped and a read-only root filesystem.
func nonRoot(p pod) []string {
	var out []string
	psc := p.spec.SecurityContext
	if psc == nil {
		psc = &corev1.PodSecurityContext{}
	}
	for _, c := range append(p.spec.InitContainers, p.spec.Containers...) {
		sc := c.SecurityContext
		if sc == nil {
			sc = &corev1.SecurityContext{}
		}
		runAsNonRoot, uid := psc.RunAsNonRoot, psc.RunAsUser
		if sc.RunAsNonRoot != nil {
			runAsNonRoot = sc.RunAsNonRoot
		}
		if sc.RunAsUser != nil {
			uid = sc.RunAsUser
		}
		where := fmt.Sprintf("%v, container %s", p.owner, c.Name)
		switch {
		case runAsNonRoot == nil || !*runAsNonRoot:
			out = append(out, where+": runAsNonRoot is not true")
		case uid != nil && *uid == 0:
			out = append(out, where+": runAsUser is 0 (root)")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			out = append(out, where+": allowPrivilegeEscalation is not false")
		}
		if sc.Capabilities == nil || len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
			out = append(out, where+": capabilities do not drop ALL")
		}
		if sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
			out = append(out, where+": readOnlyRootFilesystem is not true")
		}
	}
	return out
}
