//go:build kp135

package driver

// kubeVersion is go.135.mod's k8s.io/kubernetes version, for binaries
// without module information (test binaries).
const kubeVersion = "v1.35.4"
