//go:build kp134

package driver

// kubeVersion is go.134.mod's k8s.io/kubernetes version, for binaries
// without module information (test binaries).
const kubeVersion = "v1.34.4"
