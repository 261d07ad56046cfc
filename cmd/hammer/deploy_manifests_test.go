package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// The deploy tests (deploy_*_test.go, TestDeploy*) check the files under
// deploy/ that run hammer's coordinator and agents on an engine someone
// else operates: the Kubernetes manifests of deploy/kubernetes (see its
// README.md) and the agents of the repository's docker-compose.yml. Neither
// can be run where hammer is developed (no cluster, no container engine),
// so these tests prove what can be proved without one: every manifest
// decodes strictly into its Kubernetes API type, as the API server's strict
// field validation would, so a misspelt field fails `make test`; and the
// pieces fit together (the agents' count, the coordinator's address, the
// token's Secret, the results volume, one image).

// manifestDir is the folder of the Kubernetes manifests, from cmd/hammer.
const manifestDir = "../../deploy/kubernetes"

// manifest is one decoded document of a file under deploy/kubernetes.
type manifest struct {
	file string // the file's base name
	doc  int    // the document's place in the file, from 0
	kind string // apiVersion/kind, e.g. "batch/v1/Job"
	name string // metadata.name
	obj  any    // *batchv1.Job, *corev1.Service, …
}

func (m manifest) String() string {
	return fmt.Sprintf("%s (document %d, %s %s)", m.file, m.doc, m.kind, m.name)
}

// kustomization is the part of kustomize's Kustomization the manifests use;
// its type is not in k8s.io/api. A field it does not list is a typo, or a
// new field to add here.
type kustomization struct {
	APIVersion string           `json:"apiVersion"`
	Kind       string           `json:"kind"`
	Resources  []string         `json:"resources"`
	Images     []kustomizeImage `json:"images"`
}

// kustomizeImage rewrites the image called Name.
type kustomizeImage struct {
	Name    string `json:"name"`
	NewName string `json:"newName,omitempty"`
	NewTag  string `json:"newTag,omitempty"`
}

// newObject returns a new value of the API type of apiVersion and kind, or
// false for a kind the manifests are not expected to hold.
func newObject(apiVersion, kind string) (any, bool) {
	switch apiVersion + "/" + kind {
	case "batch/v1/Job":
		return &batchv1.Job{}, true
	case "v1/Service":
		return &corev1.Service{}, true
	case "v1/Secret":
		return &corev1.Secret{}, true
	case "v1/PersistentVolumeClaim":
		return &corev1.PersistentVolumeClaim{}, true
	case "v1/Pod":
		return &corev1.Pod{}, true
	case "apps/v1/Deployment":
		return &appsv1.Deployment{}, true
	case "kustomize.config.k8s.io/v1beta1/Kustomization":
		return &kustomization{}, true
	}
	return nil, false
}

// readManifests reads every *.yaml and *.yml file of deploy/kubernetes and
// its README.md, by base name.
func readManifests(t *testing.T) map[string]string {
	t.Helper()
	var paths []string
	for _, pattern := range []string{"*.yaml", "*.yml", "README.md"} {
		m, err := filepath.Glob(filepath.Join(manifestDir, pattern))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Fatalf("no manifests in %s", manifestDir)
	}
	files := make(map[string]string, len(paths))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files[filepath.Base(p)] = string(b)
	}
	return files
}

// decodeAll decodes every document of every YAML file (in the order of
// their names) strictly; the error names each document that did not decode.
func decodeAll(files map[string]string) ([]manifest, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if ext := filepath.Ext(name); ext == ".yaml" || ext == ".yml" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	var out []manifest
	var errs []error
	for _, name := range names {
		for i, doc := range splitDocuments(files[name]) {
			m, err := decode(doc)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s, document %d: %w", name, i, err))
				continue
			}
			if m == nil {
				continue // only comments
			}
			m.file, m.doc = name, i
			out = append(out, *m)
		}
	}
	return out, errors.Join(errs...)
}

// documentSeparator is a YAML document marker on a line of its own.
var documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*(#.*)?$`)

// splitDocuments splits a YAML stream at its document markers.
func splitDocuments(text string) []string {
	return documentSeparator.Split(text, -1)
}

// decode decodes one YAML document into the API type its apiVersion and
// kind name, as strictly as the API server's strict field validation: a
// duplicate key, an unknown field or a field in the wrong case is an
// error (sigs.k8s.io/yaml alone matches field names regardless of case, as
// encoding/json does, so the JSON is decoded by sigs.k8s.io/json, the
// API server's case-sensitive decoder). It returns nil for a document of
// comments only.
func decode(doc string) (*manifest, error) {
	j, err := yaml.YAMLToJSONStrict([]byte(doc))
	if err != nil {
		return nil, err
	}
	if string(j) == "null" {
		return nil, nil
	}
	var meta struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(j, &meta); err != nil {
		return nil, err
	}
	obj, ok := newObject(meta.APIVersion, meta.Kind)
	if !ok {
		return nil, fmt.Errorf("unexpected kind %q of apiVersion %q", meta.Kind, meta.APIVersion)
	}
	strict, err := sigsjson.UnmarshalStrict(j, obj, sigsjson.DisallowDuplicateFields, sigsjson.DisallowUnknownFields)
	if err != nil {
		return nil, err
	}
	if len(strict) > 0 {
		return nil, errors.Join(strict...)
	}
	if meta.Metadata.Name == "" && meta.Kind != "Kustomization" {
		return nil, fmt.Errorf("%s without metadata.name", meta.Kind)
	}
	return &manifest{kind: meta.APIVersion + "/" + meta.Kind, name: meta.Metadata.Name, obj: obj}, nil
}

// TestDeployManifestsDecodeStrictly decodes every document under deploy/kubernetes
// into its API type.
func TestDeployManifestsDecodeStrictly(t *testing.T) {
	ms, err := decodeAll(readManifests(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]manifest{}
	for _, m := range ms {
		key := m.kind + " " + m.name
		if prev, ok := seen[key]; ok {
			t.Errorf("%v and %v have the same kind and name", prev, m)
		}
		seen[key] = m
	}
	for _, want := range []string{
		"batch/v1/Job hammer-coordinator", "batch/v1/Job hammer-agents", "v1/Service hammer-coordinator",
		"v1/PersistentVolumeClaim hammer-results",
	} {
		if _, ok := seen[want]; !ok {
			t.Errorf("no %s among the manifests", want)
		}
	}
}

// TestDeployDecodeCatchesTypos mutates the real manifests the way a hand edit goes
// wrong and checks that decoding refuses each.
func TestDeployDecodeCatchesTypos(t *testing.T) {
	tests := []struct {
		name, file, old, new, want string
	}{
		{"unknown field", "agents.yaml", "completionMode:", "completionMod:", `unknown field "spec.completionMod"`},
		{"field in the wrong case", "coordinator.yaml", "targetPort:", "targetport:", `unknown field "spec.ports[0].targetport"`},
		{"duplicate field", "agents.yaml", "  backoffLimit: 0\n", "  backoffLimit: 0\n  backoffLimit: 1\n", "already set"},
		{"misplaced field", "coordinator.yaml", "      restartPolicy: Never\n", "      restartPolicy: Never\n      runAsNonRoot: true\n", `unknown field "spec.template.spec.runAsNonRoot"`},
		{"wrong type", "agents.yaml", "completions: 4", "completions: four", "cannot unmarshal"},
		{"unknown kind", "results-pvc.yaml", "kind: PersistentVolumeClaim", "kind: PersistentVolumeClame", "unexpected kind"},
		{"no name", "results-pvc.yaml", "  name: hammer-results\n", "", "without metadata.name"},
		{"kustomization typo", "kustomization.yaml", "resources:", "resource:", `unknown field "resource"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := mutate(t, readManifests(t), tt.file, tt.old, tt.new)
			_, err := decodeAll(files)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decoding %s with %q for %q: error %v, want one with %q", tt.file, tt.new, tt.old, err, tt.want)
			}
		})
	}
}

// mutate returns files with old replaced by new in file; old must occur
// there exactly once, so that a mutation cannot silently miss.
func mutate(t *testing.T, files map[string]string, file, old, new string) map[string]string {
	t.Helper()
	text, ok := files[file]
	if !ok {
		t.Fatalf("no %s in %s", file, manifestDir)
	}
	if n := strings.Count(text, old); n != 1 {
		t.Fatalf("%s holds %q %d times, want once", file, old, n)
	}
	out := make(map[string]string, len(files))
	for k, v := range files {
		out[k] = v
	}
	out[file] = strings.Replace(text, old, new, 1)
	return out
}
