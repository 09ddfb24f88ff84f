//go:build kp136

package driver

// kubeVersion is go.136.mod's k8s.io/kubernetes version, for binaries
// without module information (test binaries).
const kubeVersion = "v1.36.3"
