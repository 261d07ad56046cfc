package main

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// secretLiteral is one --from-literal=KEY=VALUE of the README's kubectl
// create secret command.
var secretLiteral = regexp.MustCompile(`--from-literal=([A-Za-z0-9._-]+)=("[^"]*"|\S*)`)

// checkSecret: the README's kubectl create secret command creates the
// Secret the manifests read, with every key they read, and its example
// URLs name the Services, user and database of servers.yaml.
func (r *kubeRace) checkSecret() []string {
	cmd := regexp.MustCompile(`kubectl create secret generic (\S+)((?:.*\\\n)*.*)`).FindStringSubmatch(r.readme)
	if cmd == nil {
		return []string{"README.md has no kubectl create secret generic command"}
	}
	keys := map[string]string{}
	for _, m := range secretLiteral.FindAllStringSubmatch(cmd[2], -1) {
		keys[m[1]] = strings.Trim(m[2], `"`)
	}
	var out []string
	for _, p := range pods(r.all) {
		for _, c := range p.spec.Containers {
			for _, e := range c.Env {
				if ref := e.ValueFrom; ref != nil && ref.SecretKeyRef != nil {
					if _, ok := keys[ref.SecretKeyRef.Key]; ref.SecretKeyRef.Name != cmd[1] || !ok {
						out = append(out, fmt.Sprintf("%v reads key %s of Secret %s, which the README's command (Secret %s) does not create",
							p.owner, ref.SecretKeyRef.Key, ref.SecretKeyRef.Name, cmd[1]))
					}
				}
			}
		}
	}
	for _, key := range []string{"redis-url", "pg-url"} {
		if err := r.servesURL(keys[key]); err != nil {
			out = append(out, fmt.Sprintf("README's %s: %v", key, err))
		}
	}
	return out
}

// servesURL reports whether a Service of the manifests answers at the URL's
// host and port, and, for PostgreSQL, whether its pod creates the URL's
// user and database.
func (r *kubeRace) servesURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	for _, m := range r.all {
		s, ok := m.obj.(*corev1.Service)
		if !ok || s.Name != u.Hostname() {
			continue
		}
		if len(s.Spec.Ports) != 1 || strconv.Itoa(int(s.Spec.Ports[0].Port)) != u.Port() {
			return fmt.Errorf("%s: Service %s has ports %v", raw, s.Name, s.Spec.Ports)
		}
		if u.Scheme != "postgres" {
			return nil
		}
		for _, p := range pods(r.all) {
			if !selects(s.Spec.Selector, p.labels) {
				continue
			}
			c := &p.spec.Containers[0]
			if user, db := env(c, "POSTGRES_USER"), env(c, "POSTGRES_DB"); user == nil || db == nil ||
				user.Value != u.User.Username() || "/"+db.Value != u.Path {
				return fmt.Errorf("%s: the user or database is not the one %v creates", raw, p.owner)
			}
			return nil
		}
		return fmt.Errorf("%s: Service %s selects no pod", raw, s.Name)
	}
	return fmt.Errorf("%q names no Service of the manifests", raw)
}
