package main

import (
	"strings"
	"testing"
)

// tokenFromSecret is the agents' HAMMER_TOKEN as agents.yaml has it.
const tokenFromSecret = `            - name: HAMMER_TOKEN
              valueFrom:
                secretKeyRef:
                  name: hammer
                  key: token
`

// serviceSelector is the coordinator Service's selector in coordinator.yaml.
const serviceSelector = `  selector:
    app.kubernetes.io/name: hammer
    app.kubernetes.io/component: coordinator
`

// TestDeployChecksCatchMistakes breaks the real manifests in ways that still
// decode and checks that the race's checks name each: the checks of
// TestDeployRaceFitsTogether can fail.
func TestDeployChecksCatchMistakes(t *testing.T) {
	tests := []struct {
		name, file, old, new, want string
	}{
		{"fewer completions", "agents.yaml", "completions: 4", "completions: 3", "completions is 3, the coordinator's --agents 4"},
		{"more agents", "coordinator.yaml", `- "4"`, `- "5"`, "parallelism is 4, the coordinator's --agents 5"},
		{"not indexed", "agents.yaml", "completionMode: Indexed", "completionMode: NonIndexed", "not completionMode: Indexed"},
		{"loopback listener", "coordinator.yaml", "0.0.0.0:7070", "127.0.0.1:7070", "loopback"},
		{"listener on another port", "coordinator.yaml", "0.0.0.0:7070", "0.0.0.0:7071", "it listens on 7071"},
		{"numeric targetPort", "coordinator.yaml", "targetPort: agents", "targetPort: 7071", "goes to the coordinator's port 7071"},
		{"selector selects agents", "coordinator.yaml", serviceSelector, strings.ReplaceAll(serviceSelector, "coordinator", "agent"), "does not select the coordinator's pod"},
		{"join another host", "agents.yaml", "hammer-coordinator:7070", "coordinator:7070", `agents join "coordinator"`},
		{"join another port", "agents.yaml", "hammer-coordinator:7070", "hammer-coordinator:7071", "agents join port 7071"},
		{"agents run the gate", "agents.yaml", "            - agent\n", "            - gate\n", `agents run hammer "gate"`},
		{"token literal", "agents.yaml", tokenFromSecret, "            - name: HAMMER_TOKEN\n              value: s3cret\n", "HAMMER_TOKEN is not from a secretKeyRef"},
		{"token in args", "agents.yaml", "            - agent\n", "            - agent\n            - --token=s3cret\n", "has --token in its args"},
		{"token of another Secret", "agents.yaml", tokenFromSecret, strings.Replace(tokenFromSecret, "name: hammer", "name: other", 1), "the agents' other/token"},
		{"retrying coordinator", "coordinator.yaml", "backoffLimit: 0", "backoffLimit: 2", "backoffLimit 2, want 0"},
		{"results on /tmp", "coordinator.yaml", "/results/$(POD_NAME)", "/tmp/run", `is on volume tmp, not the claim hammer-results`},
		{"results nowhere", "coordinator.yaml", "/results/$(POD_NAME)", "/data/$(POD_NAME)", "is on no writable volume"},
		{"undefined variable", "coordinator.yaml", "/results/$(POD_NAME)", "/results/$(POD)", "$(POD) in its args"},
		{"claim in the kustomization", "kustomization.yaml", "  - agents.yaml\n", "  - agents.yaml\n  - results-pvc.yaml\n", "kubectl delete -k would delete the results"},
		{"other image", "agents.yaml", "hammer:latest", "hammer:v2", "the agents ghcr.io/hammer-load/hammer:v2"},
		{"root", "servers.yaml", "runAsUser: 999\n        runAsGroup: 999\n        fsGroup: 999\n        seccompProfile:\n          type: RuntimeDefault\n      containers:\n        - name: postgres",
			"runAsUser: 0\n        runAsGroup: 999\n        fsGroup: 999\n        seccompProfile:\n          type: RuntimeDefault\n      containers:\n        - name: postgres", "runAsUser is 0"},
		{"may be root", "coordinator.yaml", "runAsNonRoot: true", "runAsNonRoot: false", "runAsNonRoot is not true"},
		{"writable root", "agents.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: false", "readOnlyRootFilesystem is not true"},
		{"service links", "agents.yaml", "enableServiceLinks: false", "enableServiceLinks: true", "enableServiceLinks is not false"},
		{"CPU limit", "agents.yaml", "            limits:\n", "            limits:\n              cpu: \"1\"\n", "no CPU limit"},
		{"not spread", "agents.yaml", "topologyKey: kubernetes.io/hostname", "topologyKey: topology.kubernetes.io/zone", "not spread over nodes"},
		{"secret key not created", "README.md", "--from-literal=pg-password=", "--from-literal=pg-passwd=", "reads key pg-password of Secret hammer"},
		{"URL of no Service", "README.md", "redis://hammer-redis:6379/0", "redis://redis:6379/0", `"redis://redis:6379/0" names no Service`},
		{"URL of another port", "servers.yaml", "      port: 6379\n", "      port: 6380\n", "Service hammer-redis has ports"},
		{"URL of another database", "README.md", "@hammer-postgres:5432/hammer?", "@hammer-postgres:5432/postgres?", "the user or database"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := mutate(t, readManifests(t), tt.file, tt.old, tt.new)
			ms, err := decodeAll(files)
			if err != nil {
				t.Fatalf("the mutation does not decode, so it tests the decoder, not the checks: %v", err)
			}
			r, err := findRace(ms, files["README.md"])
			if err != nil {
				t.Fatal(err)
			}
			problems := r.problems()
			for _, p := range problems {
				if strings.Contains(p, tt.want) {
					return
				}
			}
			t.Errorf("no problem names %q; got %q", tt.want, problems)
		})
	}
}
