// Package deploy holds the files that run hammer's coordinator and agents
// on an engine someone else operates: the Kubernetes manifests under
// deploy/kubernetes (see its README.md) and the agents of the repository's
// docker-compose.yml. It has no code of its own. Neither path can be run
// where hammer is developed (no cluster, no container engine), so its
// tests prove what can be proved without one: every manifest decodes
// strictly into its Kubernetes API type, as the API server's strict field
// validation would, so a misspelt field fails `make test`; and the pieces
// fit together (the agents' count, the coordinator's address, the token's
// Secret, the results volume, one image).
package deploy
