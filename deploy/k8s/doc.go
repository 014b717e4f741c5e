// Package k8s holds the Kubernetes manifests of gantry's Indexed Job (README.md beside
// this file) and their tests: every manifest decodes strictly into the k8s.io/api types,
// and the Job's entry script runs twenty tasks locally against the fake model. Nothing
// imports this package, so the Kubernetes modules are never linked into gantry.
package k8s
